/**
 * The rule that marks a Role as a Feast role. Kubernetes lets someone bind a Role only when
 * they hold every permission in it (or `bind` on it): a Role with no rules is held by
 * everyone, so any namespace admin could bind themselves to it. This rule is held by nobody
 * by accident (no built-in ClusterRole grants a `feast.dev` `roles` resource), so binding a
 * marked Role takes a grant that was made on purpose.
 */
export interface FeastRoleMarker {
  readonly apiGroups: string[]
  readonly resources: string[]
  readonly resourceNames: string[]
  readonly verbs: string[]
}

/** API group of the marker rule. */
export const MARKER_API_GROUP = 'feast.dev'
/** Resource of the marker rule (not a served resource: only RBAC ever reads it). */
export const MARKER_RESOURCE = 'roles'
/** Verb of the marker rule. */
export const MARKER_VERB = 'assume'

/** The marker rule of Feast role `role` (a new object each call: callers may edit it). */
export function feastRoleMarker (role: string): FeastRoleMarker {
  return { apiGroups: [MARKER_API_GROUP], resources: [MARKER_RESOURCE], resourceNames: [role], verbs: [MARKER_VERB] }
}

/** Whether `rules` (a Role's) hold the marker rule of Feast role `role`, exactly. */
export function hasFeastRoleMarker (
  role: string,
  rules: ReadonlyArray<{ readonly [field in keyof FeastRoleMarker]?: readonly string[] | undefined }> | undefined
): boolean {
  return (rules ?? []).some((rule) => (rule.apiGroups ?? []).includes(MARKER_API_GROUP) &&
    (rule.resources ?? []).includes(MARKER_RESOURCE) &&
    (rule.resourceNames ?? []).includes(role) &&
    (rule.verbs ?? []).includes(MARKER_VERB))
}
