import type { V1RoleBinding } from '@kubernetes/client-node'
import { serviceAccountUsername } from './identity.ts'

/** Feast roles of a caller, looked up by subject without scanning the bindings. */
export interface RoleIndex {
  rolesFor (identity: { readonly username: string, readonly groups: readonly string[] }): string[]
  /** Bindings that contributed (those referring to a Role in the namespace). */
  readonly size: number
}

/**
 * Indexes the RoleBindings of the service namespace by subject. A binding counts when it
 * lives in `namespace` and refers to a `Role` (spec 5.5: Feast roles are the names of Role
 * objects in the service's namespace); `ClusterRole` references are left out, see
 * docs/kubernetes.md. Subjects: a ServiceAccount by name and namespace (its namespace
 * defaults to the binding's, as Kubernetes RBAC does), a User by username, a Group by name.
 */
export function buildRoleIndex (bindings: readonly V1RoleBinding[], namespace: string): RoleIndex {
  const byUser = new Map<string, Set<string>>()
  const byGroup = new Map<string, Set<string>>()
  let size = 0
  const add = (map: Map<string, Set<string>>, key: string, role: string): void => {
    let roles = map.get(key)
    if (roles === undefined) map.set(key, roles = new Set())
    roles.add(role)
  }
  for (const binding of bindings) {
    if (binding.metadata?.namespace !== namespace) continue
    const ref = binding.roleRef
    if (ref?.kind !== 'Role' || ref.apiGroup !== 'rbac.authorization.k8s.io' || typeof ref.name !== 'string' || ref.name === '') continue
    size++
    for (const subject of binding.subjects ?? []) {
      if (typeof subject.name !== 'string' || subject.name === '') continue
      if (subject.kind === 'ServiceAccount') add(byUser, serviceAccountUsername(subject.namespace || namespace, subject.name), ref.name)
      else if (subject.kind === 'User') add(byUser, subject.name, ref.name)
      else if (subject.kind === 'Group') add(byGroup, subject.name, ref.name)
    }
  }
  return {
    size,
    rolesFor ({ username, groups }) {
      const roles = new Set(byUser.get(username))
      for (const group of groups) for (const role of byGroup.get(group) ?? []) roles.add(role)
      return [...roles].sort()
    }
  }
}

/** Bindings in the namespace that refer to a ClusterRole, for a one-time explanatory log. */
export function clusterRoleBindingNames (bindings: readonly V1RoleBinding[]): string[] {
  return bindings.filter((binding) => binding.roleRef?.kind === 'ClusterRole').map((binding) => `${binding.metadata?.name ?? '?'} → ClusterRole ${binding.roleRef.name}`)
}
