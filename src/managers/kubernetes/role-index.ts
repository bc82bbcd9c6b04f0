import { hasFeastRoleMarker } from '../../base/feast-role-marker.ts'
import { serviceAccountUsername } from './identity.ts'
import type { RoleBindingObject, RoleObject } from './rbac-objects.ts'

/** Which bindings grant a Feast role (from the `auth` section). */
export interface RolePolicy {
  /** `allow_ruleless_roles`: a Role with no rules grants too (Feast operator's Roles). */
  readonly allowRulelessRoles: boolean
  /** `cluster_roles`: ClusterRoles whose RoleBindings grant the Feast role of the same name. */
  readonly clusterRoles: readonly string[]
}

/** What the index keeps of a RoleBinding: its roleRef and subjects, nothing else. */
export interface SlimBinding {
  readonly roleKind: 'Role' | 'ClusterRole'
  readonly roleName: string
  /** Usernames: User subjects and `system:serviceaccount:<ns>:<name>` of ServiceAccount subjects. */
  readonly users: readonly string[]
  readonly groups: readonly string[]
}

/** What the index keeps of a Role: whether it may be a Feast role. */
export interface SlimRole {
  /** Holds the Feast marker rule of its own name. */
  readonly marked: boolean
  readonly ruleless: boolean
}

/** The roles of a caller as of one state of the index. */
export interface RoleView {
  rolesFor (identity: { readonly username: string, readonly groups: readonly string[] }): string[]
  /** Changes whenever the answer of {@link rolesFor} may change: roles derived from an older key are stale. */
  readonly key: number
}

/** RoleBindings and Roles of the service namespace, indexed by subject and updated one event at a time. */
export interface RoleIndex extends RoleView {
  putBinding (name: string, binding: SlimBinding | undefined): void
  deleteBinding (name: string): void
  replaceBindings (bindings: ReadonlyMap<string, SlimBinding>): void
  putRole (name: string, role: SlimRole): void
  deleteRole (name: string): void
  replaceRoles (roles: ReadonlyMap<string, SlimRole>): void
  readonly bindingCount: number
  readonly roleCount: number
  /** Subject entries added or removed so far: the work the index did (tests count it). */
  readonly work: number
  /** Bindings that grant nothing and why, for the startup notice. */
  unusedBindings (): { unmarkedRoles: string[], missingRoles: string[], clusterRoles: string[] }
}

// One sequence for every index, so the keys of a direct-list index and the live one never meet.
let lastKey = 0

/**
 * The subset of a RoleBinding the index needs, or undefined when it can never grant a Feast
 * role (another namespace, a malformed roleRef). ServiceAccount subjects without a namespace
 * mean the binding's namespace, as in Kubernetes RBAC; the namespace of a User or Group
 * subject is ignored, as RBAC's authorizer ignores it.
 */
export function slimBinding (binding: RoleBindingObject, namespace: string): SlimBinding | undefined {
  if (binding.metadata.namespace !== namespace) return undefined
  const ref = binding.roleRef
  if ((ref.kind !== 'Role' && ref.kind !== 'ClusterRole') || ref.apiGroup !== 'rbac.authorization.k8s.io' || ref.name === '') return undefined
  let users: string[] = NONE
  let groups: string[] = NONE
  for (const subject of binding.subjects) {
    if (subject.name === '') continue
    if (subject.kind === 'ServiceAccount') (users === NONE ? users = [] : users).push(flat(serviceAccountUsername(subject.namespace || namespace, subject.name)))
    else if (subject.kind === 'User') (users === NONE ? users = [] : users).push(subject.name)
    else if (subject.kind === 'Group') (groups === NONE ? groups = [] : groups).push(intern(subject.name))
  }
  return { roleKind: ref.kind, roleName: intern(ref.name), users, groups }
}

// Shared by every binding without users or without groups.
const NONE: string[] = []
// Role and group names repeat across thousands of bindings: keep one copy of each.
const interned = new Map<string, string>()
function intern (value: string): string {
  const known = interned.get(value)
  if (known !== undefined) return known
  if (interned.size < 100_000) interned.set(value, value)
  return value
}
/** A concatenated string as one flat string (a rope of parts costs more memory for ever). */
function flat (value: string): string {
  return Buffer.from(value, 'utf8').toString('utf8')
}

/** The subset of a Role the index needs. */
export function slimRole (role: RoleObject): SlimRole {
  return { marked: hasFeastRoleMarker(role.metadata.name, role.rules), ruleless: role.rules.length === 0 }
}

/**
 * A RoleBinding grants the Feast role named by its roleRef when that is a Role of the
 * service namespace holding the Feast marker rule (or, with `allowRulelessRoles`, no rule at
 * all), or a ClusterRole named in `clusterRoles`. Bindings to missing Roles grant nothing.
 */
export function createRoleIndex (policy: RolePolicy): RoleIndex {
  const bindings = new Map<string, SlimBinding>()
  const roles = new Map<string, SlimRole>()
  // Subject → binding name, or a Set when several bindings name it: most subjects have one,
  // and a Set per subject would triple the index of a large namespace.
  const byUser = new Map<string, string | Set<string>>()
  const byGroup = new Map<string, string | Set<string>>()
  const clusterRoles = new Set(policy.clusterRoles)
  let key = ++lastKey
  let work = 0

  const link = (map: Map<string, string | Set<string>>, subject: string, binding: string): void => {
    const names = map.get(subject)
    if (names === undefined || names === binding) map.set(subject, binding)
    else if (typeof names === 'string') map.set(subject, new Set([names, binding]))
    else names.add(binding)
    work++
  }
  const unlink = (map: Map<string, string | Set<string>>, subject: string, binding: string): void => {
    const names = map.get(subject)
    work++
    if (names === undefined) return
    if (typeof names === 'string') {
      if (names === binding) map.delete(subject)
      return
    }
    names.delete(binding)
    if (names.size === 1) map.set(subject, names.values().next().value!)
  }
  const remove = (name: string): void => {
    const old = bindings.get(name)
    if (old === undefined) return
    bindings.delete(name)
    for (const user of old.users) unlink(byUser, user, name)
    for (const group of old.groups) unlink(byGroup, group, name)
  }
  const add = (name: string, binding: SlimBinding): void => {
    bindings.set(name, binding)
    for (const user of binding.users) link(byUser, user, name)
    for (const group of binding.groups) link(byGroup, group, name)
  }
  const grants = (binding: SlimBinding): boolean => {
    if (binding.roleKind === 'ClusterRole') return clusterRoles.has(binding.roleName)
    const role = roles.get(binding.roleName)
    return role !== undefined && (role.marked || (policy.allowRulelessRoles && role.ruleless))
  }
  const changed = (): void => { key = ++lastKey }

  return {
    get key () { return key },
    get bindingCount () { return bindings.size },
    get roleCount () { return roles.size },
    get work () { return work },
    putBinding (name, binding) {
      remove(name)
      if (binding !== undefined) add(name, binding)
      changed()
    },
    deleteBinding (name) {
      remove(name)
      changed()
    },
    replaceBindings (next) {
      for (const name of [...bindings.keys()]) if (!next.has(name)) remove(name)
      for (const [name, binding] of next) {
        const old = bindings.get(name)
        if (old !== undefined && sameBinding(old, binding)) continue
        remove(name)
        add(name, binding)
      }
      changed()
    },
    putRole (name, role) {
      roles.set(name, role)
      changed()
    },
    deleteRole (name) {
      roles.delete(name)
      changed()
    },
    replaceRoles (next) {
      roles.clear()
      for (const [name, role] of next) roles.set(name, role)
      changed()
    },
    rolesFor ({ username, groups }) {
      const granted = new Set<string>()
      const consider = (names: string | Set<string> | undefined): void => {
        if (names === undefined) return
        for (const name of typeof names === 'string' ? [names] : names) {
          const binding = bindings.get(name)!
          if (grants(binding)) granted.add(binding.roleName)
        }
      }
      consider(byUser.get(username))
      for (const group of groups) consider(byGroup.get(group))
      return [...granted].sort()
    },
    unusedBindings () {
      const unmarkedRoles = new Set<string>()
      const missingRoles = new Set<string>()
      const unlisted = new Set<string>()
      for (const binding of bindings.values()) {
        if (grants(binding)) continue
        if (binding.roleKind === 'ClusterRole') unlisted.add(binding.roleName)
        else if (roles.has(binding.roleName)) unmarkedRoles.add(binding.roleName)
        else missingRoles.add(binding.roleName)
      }
      return { unmarkedRoles: [...unmarkedRoles].sort(), missingRoles: [...missingRoles].sort(), clusterRoles: [...unlisted].sort() }
    }
  }
}

function sameBinding (a: SlimBinding, b: SlimBinding): boolean {
  return a.roleKind === b.roleKind && a.roleName === b.roleName && sameList(a.users, b.users) && sameList(a.groups, b.groups)
}

function sameList (a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i])
}
