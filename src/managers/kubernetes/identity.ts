/** What an authenticated TokenReview says about the caller. */
export interface ReviewedIdentity {
  readonly username: string
  readonly groups: readonly string[]
  /** From a `system:serviceaccount:<ns>:<name>` username and `system:serviceaccounts:<ns>` groups. */
  readonly namespaces: readonly string[]
}

const SA_USER_PREFIX = 'system:serviceaccount:'
const SA_GROUP_PREFIX = 'system:serviceaccounts:'

/** Namespaces of an identity: the service account's own, then those of its namespace groups. */
export function namespacesOf (username: string, groups: readonly string[]): string[] {
  const namespaces = new Set<string>()
  const own = serviceAccountOf(username)
  if (own !== undefined) namespaces.add(own.namespace)
  for (const group of groups) {
    if (!group.startsWith(SA_GROUP_PREFIX)) continue
    const namespace = group.slice(SA_GROUP_PREFIX.length)
    if (namespace !== '' && !namespace.includes(':')) namespaces.add(namespace)
  }
  return [...namespaces]
}

/**
 * Why `groups` cannot belong to the service account `username` names, or undefined when they
 * can (or `username` names no service account). kube-apiserver gives a service account's tokens
 * the groups `system:serviceaccounts` and `system:serviceaccounts:<its namespace>` (kubernetes
 * pkg/serviceaccount MakeGroupNames), never the group of another namespace: an answer that does
 * would give the token that namespace (and its group's bindings) on nobody's word.
 */
export function serviceAccountGroupConflict (username: string, groups: readonly string[]): string | undefined {
  const account = serviceAccountOf(username)
  if (account === undefined) return undefined
  const other = groups.some((group) => group.startsWith(SA_GROUP_PREFIX) && group !== `${SA_GROUP_PREFIX}${account.namespace}`)
  return other ? 'the groups of a service account name the service-account group of another namespace' : undefined
}

/** `system:serviceaccount:<ns>:<name>` → `{ namespace, name }`; anything else → undefined. */
export function serviceAccountOf (username: string): { namespace: string, name: string } | undefined {
  if (!username.startsWith(SA_USER_PREFIX)) return undefined
  const parts = username.slice(SA_USER_PREFIX.length).split(':')
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined
  return { namespace: parts[0]!, name: parts[1]! }
}

/** The username the API server gives a service account's tokens. */
export function serviceAccountUsername (namespace: string, name: string): string {
  return `${SA_USER_PREFIX}${namespace}:${name}`
}
