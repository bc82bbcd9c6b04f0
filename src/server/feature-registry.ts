import type { FeatureRegistry, FeatureServiceDef, FeatureViewDef, SampleRow } from './registry.ts'
import type { FeastRegistry } from '../registry/feast-registry.ts'
import type { FeatureViewResource } from '../registry/resources.ts'
import type { RegistryProject } from '../registry/snapshot.ts'

/**
 * The reference server's view of a Feast registry file: the feature views and feature services
 * of the server's project (or of `project`), following the registry's refreshes (each call reads
 * the version in force). `forProject` gives the view of another project of the file. A Feast
 * registry holds no feature values: rows come from `sampleRows` only (for the server's project),
 * so every other lookup finds no value (reported with Feast's NOT_FOUND status by the server).
 */
export function featureRegistryFromFeast (
  registry: FeastRegistry,
  sampleRows: Readonly<Record<string, readonly SampleRow[]>> = {},
  project: string = registry.project
): FeatureRegistry {
  const current = (): RegistryProject | undefined => registry.projectView(project)
  const others = new Map<string, FeatureRegistry>()
  const views = (): FeatureViewDef[] => {
    const found = current()
    if (found === undefined) return []
    return found.resources.filter(isFeatureView).map((view) => toViewDef(view, found))
  }
  const self: FeatureRegistry = {
    project,
    featureViews: views,
    featureView: (name) => {
      const found = current()
      const view = registry.featureView(name, project)
      return view === undefined || found === undefined ? undefined : toViewDef(view, found)
    },
    featureService: (name) => {
      const found = registry.resource('FeatureService', name, project)
      if (found?.type !== 'FeatureService') return undefined
      const service: FeatureServiceDef = {
        name: found.name,
        tags: found.tags,
        features: found.projections.flatMap((projection) => projection.features.map((feature) => ({ view: projection.featureView, feature })))
      }
      return service
    },
    viewsFedBy: (pushSource) => {
      const found = current()
      return found === undefined ? [] : registry.pushTargets(pushSource, project).map((view) => toViewDef(view, found))
    },
    sampleRows: (view) => project === registry.project && Object.hasOwn(sampleRows, view) ? sampleRows[view] ?? [] : [],
    forProject: (name) => {
      if (name === project) return self
      if (!registry.hasProject(name)) return undefined
      // Bounded: only projects the registry has get a view.
      let other = others.get(name)
      if (other === undefined) {
        other = name === registry.project ? featureRegistryFromFeast(registry, sampleRows) : featureRegistryFromFeast(registry, {}, name)
        others.set(name, other)
      }
      return other
    }
  }
  return self
}

function isFeatureView (resource: { readonly type: string }): resource is FeatureViewResource {
  return resource.type === 'FeatureView' || resource.type === 'BatchFeatureView' || resource.type === 'StreamFeatureView' || resource.type === 'OnDemandFeatureView'
}

function toViewDef (view: FeatureViewResource, project: RegistryProject): FeatureViewDef {
  // Rows are keyed by join keys; the registry names the view's entities, whose join keys it also holds.
  const joinKeys = view.entities.map((entity) => {
    const found = project.find('Entity', entity)
    return found?.type === 'Entity' && found.joinKey !== undefined ? found.joinKey : entity
  })
  return { name: view.name, kind: view.type, tags: view.tags, entities: joinKeys, features: view.features, pushSource: view.pushSource }
}
