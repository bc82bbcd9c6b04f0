import type { Permission, ResourceType } from '../permissions/model.ts'
import type { RegistryMessage } from './decode.ts'
import { permissionFromMessage, type ProjectPermission } from './permissions.ts'
import { resourcesOf, type FeatureViewResource, type RegistryResource } from './resources.ts'

/** One project of a registry: its permissions (in registry order) and its resources. */
export interface RegistryProject {
  readonly name: string
  readonly permissions: readonly Permission[]
  readonly resources: readonly RegistryResource[]
  /** The resource of `type` called `name`, if the project has one. */
  find (type: ResourceType, name: string): RegistryResource | undefined
}

/** An immutable view of one version of a registry file. */
export interface RegistrySnapshot {
  /** The file it was read from. */
  readonly path: string
  /** Feast's `version_id` (a random id written on every change), when present. */
  readonly versionId?: string
  /** Feast's `last_updated`, when present. */
  readonly lastUpdated?: Date
  /** Names of the projects the registry lists, in its order. */
  readonly projectNames: readonly string[]
  readonly projects: ReadonlyMap<string, RegistryProject>
  /** Every resource, all projects. */
  readonly resources: readonly RegistryResource[]
  /** Every permission, all projects, in registry order. */
  readonly permissions: readonly ProjectPermission[]
}

/**
 * Indexes a decoded registry. Throws (a PermissionError) when a permission is invalid: a
 * registry whose permissions cannot all be enforced is refused as a whole, never partly used.
 */
export function buildSnapshot (message: RegistryMessage, path: string): RegistrySnapshot {
  const permissions = Object.freeze((message.permissions ?? []).map((permission, i) => permissionFromMessage(permission, i)))
  const resources = Object.freeze(resourcesOf(message))
  const projectNames = Object.freeze(resources.filter((resource) => resource.type === 'Project').map((resource) => resource.name))

  const names = new Set<string>(projectNames)
  for (const resource of resources) names.add(resource.project)
  for (const { project } of permissions) names.add(project)
  const projects = new Map<string, RegistryProject>()
  for (const name of names) {
    const own = Object.freeze(resources.filter((resource) => resource.project === name))
    const index = new Map<string, RegistryResource>()
    for (const resource of own) if (!index.has(key(resource.type, resource.name))) index.set(key(resource.type, resource.name), resource)
    projects.set(name, Object.freeze({
      name,
      permissions: Object.freeze(permissions.filter((entry) => entry.project === name).map((entry) => entry.permission)),
      resources: own,
      find: (type: ResourceType, resourceName: string) => index.get(key(type, resourceName))
    }))
  }

  const seconds = message.last_updated?.seconds
  return Object.freeze({
    path,
    ...(message.version_id === undefined || message.version_id === '' ? {} : { versionId: message.version_id }),
    ...(seconds === undefined ? {} : { lastUpdated: new Date(seconds * 1000 + Math.floor((message.last_updated?.nanos ?? 0) / 1e6)) }),
    projectNames,
    projects,
    resources,
    permissions
  })
}

/** The feature view (of any kind: plain, stream, on-demand) called `name` in `project`. */
export function findFeatureView (project: RegistryProject, name: string): FeatureViewResource | undefined {
  for (const type of ['FeatureView', 'StreamFeatureView', 'OnDemandFeatureView'] as const) {
    const found = project.find(type, name)
    if (found !== undefined) return found as FeatureViewResource
  }
  return undefined
}

/**
 * The feature views and stream feature views whose stream source is the push source `pushSource`:
 * what Feast's `POST /push` writes to (and checks WRITE_* on).
 */
export function pushTargets (project: RegistryProject, pushSource: string): FeatureViewResource[] {
  return project.resources.filter((resource): resource is FeatureViewResource =>
    (resource.type === 'FeatureView' || resource.type === 'StreamFeatureView') && resource.pushSource === pushSource)
}

function key (type: ResourceType, name: string): string {
  return `${type}\u0000${name}`
}
