import { PermissionError } from './errors.ts'
import type { Policy } from './model.ts'
import type { Principal } from '../base/principal.ts'
import { describeValue } from '../base/describe-value.ts'

/** What a policy looks at: the principal's lists (its username and source play no part). */
export type PolicySubject = Pick<Principal, 'roles' | 'groups' | 'namespaces'>

/**
 * Grants when the principal has **any** of `roles` (exact, case-sensitive). An empty list grants
 * nothing. Feast's `RoleBasedPolicy(roles=[...])`. Always pass a list: `roleBasedPolicy(['reader'])`.
 *
 * @example
 * ```ts
 * import { permission, roleBasedPolicy } from 'feast-authz'
 * const readers = permission({ name: 'readers', actions: ['DESCRIBE', 'READ'], policy: roleBasedPolicy(['reader', 'admin']) })
 * ```
 */
export function roleBasedPolicy (roles: readonly string[]): Policy {
  return Object.freeze({ kind: 'role', roles: checkedList(roles, 'roles') })
}

/**
 * Grants when the principal is in **any** of `groups` (exact, case-sensitive); an empty list
 * grants nothing. Feast's `GroupBasedPolicy(groups=[...])`.
 *
 * @example
 * ```ts
 * import { groupBasedPolicy, permission } from 'feast-authz'
 * const platform = permission({ name: 'platform', actions: 'ALL_ACTIONS', policy: groupBasedPolicy(['platform-team']) })
 * ```
 */
export function groupBasedPolicy (groups: readonly string[]): Policy {
  return Object.freeze({ kind: 'group', groups: checkedList(groups, 'groups') })
}

/**
 * Grants when the principal is in **any** of `namespaces` (for Kubernetes service accounts, their
 * namespace); an empty list grants nothing. Feast's `NamespaceBasedPolicy(namespaces=[...])`.
 *
 * @example
 * ```ts
 * import { namespaceBasedPolicy, permission } from 'feast-authz'
 * const jobs = permission({ name: 'batch-jobs', types: 'FeatureView', actions: 'WRITE_ONLINE', policy: namespaceBasedPolicy(['feast-jobs']) })
 * ```
 */
export function namespaceBasedPolicy (namespaces: readonly string[]): Policy {
  return Object.freeze({ kind: 'namespace', namespaces: checkedList(namespaces, 'namespaces') })
}

/**
 * Grants when the principal is in any of `groups` **or** any of `namespaces`. Feast's
 * `CombinedGroupNamespacePolicy(groups=[...], namespaces=[...])`.
 *
 * @example
 * ```ts
 * import { combinedGroupNamespacePolicy, permission } from 'feast-authz'
 * const ml = permission({ name: 'ml', actions: 'READ', policy: combinedGroupNamespacePolicy(['ml-engineers'], ['ml-serving']) })
 * ```
 */
export function combinedGroupNamespacePolicy (groups: readonly string[], namespaces: readonly string[]): Policy {
  return Object.freeze({ kind: 'combined', groups: checkedList(groups, 'groups'), namespaces: checkedList(namespaces, 'namespaces') })
}

/**
 * Grants every principal (Feast's `AllowAll`, the default policy of a Python `Permission`).
 *
 * WARNING: every *authenticated* caller passes (anyone with a valid token from the provider or
 * the cluster, including service accounts of other teams). Narrow the permission with `types`,
 * `namePatterns` and `actions`, and keep it for what is truly public inside the deployment.
 *
 * @example
 * ```ts
 * import { allowAll, permission } from 'feast-authz'
 * const describeEntities = permission({ name: 'describe-entities', types: 'Entity', actions: 'DESCRIBE', policy: allowAll })
 * ```
 */
export const allowAll: Policy = Object.freeze({ kind: 'allow_all' })

/**
 * Validates a policy built by hand (or by a factory) and returns a frozen copy. Throws a
 * PermissionError whose `field` is relative to the policy (`roles`, `kind`).
 */
export function checkPolicy (policy: unknown): Policy {
  if (policy === null || policy === undefined) throw new PermissionError('a policy is required (e.g. roleBasedPolicy([\'reader\']) or allowAll)')
  if (typeof policy !== 'object' || Array.isArray(policy)) throw new PermissionError(`expected a policy object, got ${describeValue(policy)}`)
  const p = policy as Record<string, unknown>
  switch (p.kind) {
    case 'role': return roleBasedPolicy(p.roles as string[])
    case 'group': return groupBasedPolicy(p.groups as string[])
    case 'namespace': return namespaceBasedPolicy(p.namespaces as string[])
    case 'combined': return combinedGroupNamespacePolicy(p.groups as string[], p.namespaces as string[])
    case 'allow_all': return allowAll
    default: throw new PermissionError(`unknown policy kind ${describeValue(p.kind)} (expected role, group, namespace, combined or allow_all)`, { field: 'kind' })
  }
}

function checkedList (values: unknown, field: string): readonly string[] {
  if (!Array.isArray(values)) throw new PermissionError(`expected a list of strings, got ${describeValue(values)}`, { field })
  values.forEach((value: unknown, i) => {
    if (typeof value !== 'string' || value === '') {
      throw new PermissionError(`expected a non-empty string, got ${describeValue(value)}`, { field: `${field}[${i}]` })
    }
  })
  return Object.freeze([...values] as string[])
}

/** Whether `policy` grants `principal`: any listed value present, exact and case-sensitive. */
export function policyGrants (policy: Policy, principal: PolicySubject): boolean {
  switch (policy.kind) {
    case 'allow_all': return true
    case 'role': return hasAny(principal.roles, policy.roles)
    case 'group': return hasAny(principal.groups, policy.groups)
    case 'namespace': return hasAny(principal.namespaces, policy.namespaces)
    case 'combined': return hasAny(principal.groups, policy.groups) || hasAny(principal.namespaces, policy.namespaces)
  }
}

function hasAny (held: readonly string[], wanted: readonly string[]): boolean {
  if (held.length > SCANNED_LENGTH && Object.isFrozen(held)) {
    const index = indexOf(held)
    for (const value of wanted) if (index.has(value)) return true
    return false
  }
  for (const value of wanted) if (held.includes(value)) return true
  return false
}

// A principal's lists come from the caller's token, and a request checks them once per resource
// and permission: scanning thousands of roles each time made one listing cost seconds. Longer
// lists are indexed once; only frozen ones (a principal's), since the index must not go stale.
const SCANNED_LENGTH = 16
const indexes = new WeakMap<readonly string[], ReadonlySet<string>>()

function indexOf (held: readonly string[]): ReadonlySet<string> {
  let index = indexes.get(held)
  if (index === undefined) {
    index = new Set(held)
    indexes.set(held, index)
  }
  return index
}

/** What a policy asks for, as denial explanations say it: `requires roles [reader, writer]`. */
export function policyRequirement (policy: Policy): string {
  switch (policy.kind) {
    case 'allow_all': return 'allows everyone'
    case 'role': return `requires roles ${list(policy.roles)}`
    case 'group': return `requires groups ${list(policy.groups)}`
    case 'namespace': return `requires namespaces ${list(policy.namespaces)}`
    case 'combined': return `requires groups ${list(policy.groups)} or namespaces ${list(policy.namespaces)}`
  }
}

function list (values: readonly string[]): string {
  return `[${values.join(', ')}]`
}
