import type { Permission, ResourceType } from '../permissions/model.ts'
import { permissionFromMessage, type ProjectPermission } from './permissions.ts'
import { resourceSteps, type FeatureViewResource, type LabelViewResource, type RegistryResource } from './resources.ts'
import type { RegistryMessage } from './schema.ts'
import { runToEnd } from './steps.ts'

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
 * Indexes a decoded registry, in one pass over its objects (linear in their number). Throws (a
 * PermissionError) when a permission is invalid: a registry whose permissions cannot all be
 * enforced is refused as a whole, never partly used. A generator that yields now and then (see
 * `decodeRegistrySteps`); its return value is the snapshot.
 */
export function * snapshotSteps (message: RegistryMessage, path: string): Generator<void, RegistrySnapshot> {
  const permissions: ProjectPermission[] = []
  const messages = message.permissions ?? []
  for (let i = 0; i < messages.length; i++) {
    permissions.push(permissionFromMessage(messages[i] ?? {}, i))
    if (i % PERMISSIONS_PER_STEP === PERMISSIONS_PER_STEP - 1) yield
  }
  const resources = yield * resourceSteps(message)
  const projectNames: string[] = []

  interface Building { readonly permissions: Permission[], readonly resources: RegistryResource[], readonly index: Map<string, RegistryResource> }
  const building = new Map<string, Building>()
  const entry = (name: string): Building => {
    let found = building.get(name)
    if (found === undefined) {
      found = { permissions: [], resources: [], index: new Map() }
      building.set(name, found)
    }
    return found
  }
  for (const resource of resources) if (resource.type === 'Project') { projectNames.push(resource.name); entry(resource.name) }
  let count = 0
  for (const resource of resources) {
    const own = entry(resource.project)
    own.resources.push(resource)
    const id = key(resource.type, resource.name)
    if (!own.index.has(id)) own.index.set(id, resource)
    if (++count % INDEXED_PER_STEP === 0) yield
  }
  for (const { project, permission } of permissions) entry(project).permissions.push(permission)

  const projects = new Map<string, RegistryProject>()
  for (const [name, { permissions: own, resources: ownResources, index }] of building) {
    projects.set(name, Object.freeze({
      name,
      permissions: Object.freeze(own),
      resources: Object.freeze(ownResources),
      find: (type: ResourceType, resourceName: string) => index.get(key(type, resourceName))
    }))
  }

  const seconds = message.last_updated?.seconds
  return Object.freeze({
    path,
    ...(message.version_id === undefined || message.version_id === '' ? {} : { versionId: message.version_id }),
    ...(seconds === undefined ? {} : { lastUpdated: new Date(seconds * 1000 + Math.floor((message.last_updated?.nanos ?? 0) / 1e6)) }),
    projectNames: Object.freeze(projectNames),
    projects,
    resources: Object.freeze(resources),
    permissions: Object.freeze(permissions)
  })
}

/** Indexes a decoded registry at once (see `snapshotSteps`). */
export function buildSnapshot (message: RegistryMessage, path: string): RegistrySnapshot {
  return runToEnd(snapshotSteps(message, path))
}

const PERMISSIONS_PER_STEP = 256
const INDEXED_PER_STEP = 4096

/** The feature view (of any kind: plain, batch, stream, on-demand) called `name` in `project`. */
export function findFeatureView (project: RegistryProject, name: string): FeatureViewResource | undefined {
  for (const type of ['FeatureView', 'BatchFeatureView', 'StreamFeatureView', 'OnDemandFeatureView'] as const) {
    const found = project.find(type, name)
    if (found !== undefined) return found as FeatureViewResource
  }
  return undefined
}

/**
 * What Feast's `FeatureStore.push` writes to for the push source `pushSource`: the feature views
 * and stream feature views whose stream source it is, and the label views whose source it is.
 * (Feast's `POST /push` asserts WRITE_* only on the first two; our server checks all of them.)
 */
export function pushTargets (project: RegistryProject, pushSource: string): Array<FeatureViewResource | LabelViewResource> {
  return project.resources.filter((resource): resource is FeatureViewResource | LabelViewResource =>
    (resource.type === 'FeatureView' || resource.type === 'BatchFeatureView' || resource.type === 'StreamFeatureView' || resource.type === 'LabelView') &&
    resource.pushSource === pushSource)
}

function key (type: ResourceType, name: string): string {
  return `${type}\u0000${name}`
}
