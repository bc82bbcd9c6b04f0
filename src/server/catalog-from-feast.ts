import type { EntityResource, FeastRegistry, FeatureViewResource, LabelViewResource, RegistryProject } from '../registry/index.ts'
import {
  FEATURE_VIEW_KINDS, entityColumnsOf, type EntityColumns, type FeatureCatalog, type FeatureServiceDef, type FeatureViewDef, type SampleRow
} from './catalog.ts'

/**
 * Each registry version's project holds its own entity columns: worked out on the first read of
 * a version, in one pass over the project (which `featureViews()` also takes), then looked up.
 */
const columnsByProject = new WeakMap<RegistryProject, EntityColumns>()

/**
 * The reference server's view of a Feast registry file: the feature views and feature services
 * of the server's project (or of `project`), following the registry's refreshes (each call reads
 * the version in force). `forProject` gives the view of another project of the file. A Feast
 * registry holds no feature values: rows come from `sampleRows` only (for the server's project),
 * so every other lookup finds no value (reported with Feast's NOT_FOUND status by the server).
 */
export function catalogFromFeastRegistry (
  registry: FeastRegistry,
  sampleRows: Readonly<Record<string, readonly SampleRow[]>> = {},
  project: string = registry.project
): FeatureCatalog {
  const current = (): RegistryProject | undefined => registry.projectView(project)
  const others = new Map<string, FeatureCatalog>()
  const views = (): FeatureViewDef[] => {
    const found = current()
    if (found === undefined) return []
    return found.resources.filter(isFeatureView).map((view) => toViewDef(view, found))
  }
  const self: FeatureCatalog = {
    project,
    featureViews: views,
    entityColumns: () => {
      const found = current()
      if (found === undefined) return entityColumnsOf([])
      let columns = columnsByProject.get(found)
      if (columns === undefined) {
        const names = new Map<string, string>()
        for (const resource of found.resources) if (resource.type === 'Entity') names.set(resource.name, joinKeyOf(resource))
        columns = entityColumnsOf(views(), names)
        columnsByProject.set(found, columns)
      }
      return columns
    },
    featureView: (name) => {
      const found = current()
      if (found === undefined) return undefined
      // Feast reads label views online too (its get_any_feature_view).
      const view = registry.featureView(name, project) ?? found.find('LabelView', name)
      return view !== undefined && isFeatureView(view) ? toViewDef(view, found) : undefined
    },
    featureService: (name) => {
      const found = registry.resource('FeatureService', name, project)
      if (found?.type !== 'FeatureService') return undefined
      const service: FeatureServiceDef = {
        name: found.name,
        tags: found.tags,
        features: found.projections.flatMap(({ featureView: view, alias, features, joinKeyMap }) =>
          features.map((feature) => ({ view, feature, ...(alias === undefined ? {} : { alias }), ...(joinKeyMap === undefined ? {} : { joinKeyMap }) })))
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
        other = name === registry.project ? catalogFromFeastRegistry(registry, sampleRows) : catalogFromFeastRegistry(registry, {}, name)
        others.set(name, other)
      }
      return other
    }
  }
  return self
}

const SERVED_TYPES: ReadonlySet<string> = new Set(FEATURE_VIEW_KINDS)

/** A view the server reads from: a feature view of any kind, or a label view. */
type ServedView = FeatureViewResource | LabelViewResource

function isFeatureView (resource: { readonly type: string }): resource is ServedView {
  return SERVED_TYPES.has(resource.type)
}

function toViewDef (view: ServedView, project: RegistryProject): FeatureViewDef {
  // Rows are keyed by join keys; the registry names the view's entities, whose join keys it also holds.
  const unknownEntities: string[] = []
  const joinKeys = view.entities.map((entity) => {
    const found = project.find('Entity', entity)
    if (found?.type === 'Entity') return joinKeyOf(found)
    unknownEntities.push(entity)
    return entity
  })
  const { name, type: kind, tags, features, online, pushSource } = view
  const common = { name, kind, tags, entities: joinKeys, features, online, pushSource, ...(unknownEntities.length === 0 ? {} : { unknownEntities }) }
  if (view.type === 'LabelView') return common
  return {
    ...common,
    ...(view.offline === true ? { offline: true } : {}),
    ...(view.disabled === true ? { disabled: true } : {}),
    ...(view.unservedState === undefined ? {} : { unservedState: view.unservedState }),
    ...(view.type === 'OnDemandFeatureView' ? onDemandSources(view) : {}),
    ...(view.requestData === undefined ? {} : { requestData: view.requestData })
  }
}

/** An entity's join key; its name when the registry holds none. */
function joinKeyOf (entity: EntityResource): string {
  return entity.joinKey ?? entity.name
}

/**
 * An on-demand view's feature view sources, the aliases and join_key_maps of those read through a
 * projection giving one, and whether it is stored. Every feature view source the registry names
 * is kept, one it has no view for included: a read of the on-demand view then finds it missing
 * and is refused (a 404, as Feast's `FeatureViewNotFoundException`), never read without the
 * check on it. Request sources name no view and are not among them.
 */
function onDemandSources (view: FeatureViewResource): Pick<FeatureViewDef, 'sources' | 'sourceAliases' | 'sourceJoinKeyMaps' | 'writeToOnlineStore'> {
  const { sources = [], sourceAliases: aliases, sourceJoinKeyMaps: maps } = view
  return {
    sources,
    ...(aliases === undefined ? {} : { sourceAliases: aliases }),
    ...(maps === undefined ? {} : { sourceJoinKeyMaps: maps }),
    writeToOnlineStore: view.writeToOnlineStore === true
  }
}
