/**
 * How a principal was established: a provider token (`oidc`), a Kubernetes TokenReview
 * (`kubernetes`), a signed intra-server token (`intra`), or no authentication (`no_auth`).
 *
 * WARNING: an `intra` principal passes every permission check: it is the servers of one
 * deployment calling each other with the `INTRA_COMMUNICATION_BASE64` secret.
 */
export type AuthSource = 'oidc' | 'kubernetes' | 'intra' | 'no_auth'

/**
 * The authenticated caller of a request: what permission policies are matched against.
 * Every list keeps the order the identity source gave, without duplicates.
 */
export interface Principal {
  /** Who the caller is: the token's username claim (OIDC), or the user TokenReview reports (Kubernetes). */
  readonly username: string
  /** Roles `roleBasedPolicy` matches (exact, case-sensitive). */
  readonly roles: readonly string[]
  /** Groups `groupBasedPolicy` matches. */
  readonly groups: readonly string[]
  /** Namespaces `namespaceBasedPolicy` matches (Kubernetes: the service account's namespace and `system:serviceaccounts:<ns>` groups). */
  readonly namespaces: readonly string[]
  /** `no_auth` marks the anonymous principal of an unauthenticated server. */
  readonly source: AuthSource
}

/** The principal of every request when `auth.type` is `no_auth`. */
export const ANONYMOUS: Principal = Object.freeze({
  username: 'anonymous',
  roles: Object.freeze([]),
  groups: Object.freeze([]),
  namespaces: Object.freeze([]),
  source: 'no_auth'
})

/**
 * A frozen principal; each list keeps its first occurrences, in order. The lists given are
 * copied, unless `ownsLists`: the caller then hands over arrays nothing else holds (a token's
 * freshly parsed claims), and a list without duplicates is frozen as it is instead of copied:
 * a distinct token's request then allocates no list of its own.
 */
export function createPrincipal (
  fields: Omit<Principal, 'roles' | 'groups' | 'namespaces'> & Partial<Pick<Principal, 'roles' | 'groups' | 'namespaces'>>,
  ownsLists = false
): Principal {
  return Object.freeze({
    username: fields.username,
    roles: frozenUnique(fields.roles, ownsLists),
    groups: frozenUnique(fields.groups, ownsLists),
    namespaces: frozenUnique(fields.namespaces, ownsLists),
    source: fields.source
  })
}

// One frozen empty list for every principal: freezing costs a map transition per array, and
// most principals have at least one empty list (an OIDC user has no namespaces).
const NONE: readonly string[] = Object.freeze([])

function frozenUnique (values: readonly string[] | undefined, owned: boolean): readonly string[] {
  if (values === undefined || values.length === 0) return NONE
  return Object.freeze(owned && values.length <= 16 && !hasDuplicates(values) ? values : unique(values))
}

function hasDuplicates (values: readonly string[]): boolean {
  for (let i = 1; i < values.length; i++) if (values.lastIndexOf(values[i] as string, i - 1) >= 0) return true
  return false
}

// A token's lists hold a handful of names: a scan beats building a Set for each principal.
function unique (values: readonly string[]): string[] {
  if (values.length > 16) return [...new Set(values)]
  const kept: string[] = []
  for (const value of values) if (!kept.includes(value)) kept.push(value)
  return kept
}

/** The plain JSON shape shown by `feast-authz inspect` and in logs. */
export function principalToJSON (principal: Principal): { username: string, roles: string[], groups: string[], namespaces: string[], source: AuthSource } {
  return {
    username: principal.username,
    roles: [...principal.roles],
    groups: [...principal.groups],
    namespaces: [...principal.namespaces],
    source: principal.source
  }
}
