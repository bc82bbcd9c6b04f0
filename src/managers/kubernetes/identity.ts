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
