/**
 * Kubernetes RBAC decisions for the fake API server (fake-kube-api.ts), as kube-apiserver makes
 * them: which rules apply to a user in a namespace (the ClusterRoleBindings, then the
 * RoleBindings of that namespace, whose subjects match; kubernetes
 * pkg/registry/rbac/validation/rule.go), whether one rule allows a request (rbac/v1 `PolicyRule`
 * semantics, pkg/apis/rbac/v1/evaluation_helpers.go), and which permissions of a role its creator
 * does not hold (the escalation check of pkg/registry/rbac/escalation_check.go and
 * component-helpers auth/rbac/validation/policy_comparator.go).
 */

/** A `PolicyRule` of a Role or ClusterRole. */
export interface PolicyRule {
  readonly verbs: readonly string[]
  readonly apiGroups?: readonly string[] | undefined
  readonly resources?: readonly string[] | undefined
  readonly resourceNames?: readonly string[] | undefined
  readonly nonResourceURLs?: readonly string[] | undefined
}

/** Who makes a request, once authenticated. */
export interface RbacUser { readonly username: string, readonly groups: readonly string[] }

/** What a resource request asks (apiserver pkg/authorization/authorizer Attributes). */
export interface ResourceAttributes {
  readonly verb: string
  readonly apiGroup: string
  readonly resource: string
  readonly subresource?: string | undefined
  /** The object's name: from the path, or a list's `metadata.name` field selector; empty otherwise (a create has none). */
  readonly name: string
  /** Empty for cluster-scoped resources. */
  readonly namespace: string
}

export interface RbacSubject { readonly kind: string, readonly name: string, readonly namespace?: string | undefined }
export interface RoleRef { readonly apiGroup?: string | undefined, readonly kind: string, readonly name: string }
export interface Binding { readonly roleRef: RoleRef, readonly subjects?: readonly RbacSubject[] | undefined }

/** The RBAC objects the decisions read. */
export interface RbacObjects {
  clusterRoleBindings (): Iterable<Binding>
  roleBindings (namespace: string): Iterable<Binding>
  role (namespace: string, name: string): { readonly rules?: readonly PolicyRule[] | undefined } | undefined
  clusterRole (name: string): { readonly rules?: readonly PolicyRule[] | undefined } | undefined
}

const ALL = '*'

const verbMatches = (rule: PolicyRule, verb: string): boolean => rule.verbs.some((ruleVerb) => ruleVerb === ALL || ruleVerb === verb)

const apiGroupMatches = (rule: PolicyRule, group: string): boolean => (rule.apiGroups ?? []).some((ruleGroup) => ruleGroup === ALL || ruleGroup === group)

/** `*`, the resource itself (`pods/log` for a subresource), or `*` with the same subresource (e.g. `*` + `/log`). */
function resourceMatches (rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === '' ? resource : `${resource}/${subresource}`
  return (rule.resources ?? []).some((ruleResource) => ruleResource === ALL || ruleResource === combined ||
    (subresource !== '' && ruleResource === `*/${subresource}`))
}

/** No `resourceNames` means every name; otherwise the request's name must be listed (a list or create has none). */
const resourceNameMatches = (rule: PolicyRule, name: string): boolean => (rule.resourceNames ?? []).length === 0 || (rule.resourceNames ?? []).includes(name)

/** Whether one rule allows a resource request (plugin/pkg/auth/authorizer/rbac/rbac.go RuleAllows). */
export function ruleAllows (rule: PolicyRule, request: ResourceAttributes): boolean {
  return verbMatches(rule, request.verb) && apiGroupMatches(rule, request.apiGroup) &&
    resourceMatches(rule, request.resource, request.subresource ?? '') && resourceNameMatches(rule, request.name)
}

/**
 * Whether a binding's subject is `user` (validation/rule.go appliesToUser): a User by name, a
 * Group among the user's groups, a ServiceAccount by `system:serviceaccount:<ns>:<name>`, its
 * namespace defaulting to the binding's (none for a ClusterRoleBinding: then it matches nobody).
 */
export function subjectMatches (user: RbacUser, subject: RbacSubject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User': return user.username === subject.name
    case 'Group': return user.groups.includes(subject.name)
    case 'ServiceAccount': {
      const namespace = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace
      return namespace !== '' && user.username === `system:serviceaccount:${namespace}:${subject.name}`
    }
    default: return false
  }
}

/**
 * The rules a role reference grants (validation/rule.go GetRoleReferenceRules): a Role of the
 * binding's namespace, or a ClusterRole; undefined when it does not exist (a binding to a
 * missing role grants nothing, and binding it is a 404).
 */
export function roleRefRules (objects: RbacObjects, ref: RoleRef, bindingNamespace: string): readonly PolicyRule[] | undefined {
  const role = ref.kind === 'ClusterRole'
    ? objects.clusterRole(ref.name)
    : ref.kind === 'Role' && bindingNamespace !== '' ? objects.role(bindingNamespace, ref.name) : undefined
  return role === undefined ? undefined : role.rules ?? []
}

/**
 * Every rule that applies to `user` in `namespace` (validation/rule.go VisitRulesFor): those of
 * the ClusterRoleBindings naming the user, then, for a namespaced request, those of the
 * namespace's RoleBindings naming the user; a RoleBinding to a ClusterRole grants its rules in
 * the binding's namespace only.
 */
export function rulesFor (objects: RbacObjects, user: RbacUser, namespace: string): PolicyRule[] {
  const rules: PolicyRule[] = []
  const collect = (bindings: Iterable<Binding>, bindingNamespace: string): void => {
    for (const binding of bindings) {
      if (!(binding.subjects ?? []).some((subject) => subjectMatches(user, subject, bindingNamespace))) continue
      rules.push(...(roleRefRules(objects, binding.roleRef, bindingNamespace) ?? []))
    }
  }
  collect(objects.clusterRoleBindings(), '')
  if (namespace !== '') collect(objects.roleBindings(namespace), namespace)
  return rules
}

/** Whether the RBAC rules of `user` allow a request (the RBAC authorizer; `system:masters` is decided before it). */
export function rbacAllows (objects: RbacObjects, user: RbacUser, request: ResourceAttributes): boolean {
  return rulesFor(objects, user, request.namespace).some((rule) => ruleAllows(rule, request))
}

/** One rule per (group, resource, verb, name) or (URL, verb): policy_comparator.go BreakdownRule. */
function breakDown (rule: PolicyRule): PolicyRule[] {
  const parts: PolicyRule[] = []
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? []
        if (names.length === 0) parts.push({ apiGroups: [group], resources: [resource], verbs: [verb] })
        for (const name of names) parts.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] })
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) parts.push({ nonResourceURLs: [url], verbs: [verb] })
  return parts
}

const hasAll = (set: readonly string[], wanted: readonly string[]): boolean => wanted.every((one) => set.includes(one))

/** policy_comparator.go ruleCovers: whether one owner rule covers one broken-down rule. */
function covers (owner: PolicyRule, part: PolicyRule): boolean {
  const verbs = owner.verbs.includes(ALL) || hasAll(owner.verbs, part.verbs)
  const groups = (owner.apiGroups ?? []).includes(ALL) || hasAll(owner.apiGroups ?? [], part.apiGroups ?? [])
  const ownerResources = owner.resources ?? []
  const resources = ownerResources.includes(ALL) || (part.resources ?? []).every((resource) =>
    ownerResources.includes(resource) || (resource.includes('/') && ownerResources.includes(`*/${resource.slice(resource.indexOf('/') + 1)}`)))
  const urls = (part.nonResourceURLs ?? []).every((url) => (owner.nonResourceURLs ?? []).some((ownerUrl) =>
    ownerUrl === url || (ownerUrl.endsWith('*') && url.startsWith(ownerUrl.replace(/\*+$/, '')))))
  const ownerNames = owner.resourceNames ?? []
  const names = (part.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, part.resourceNames ?? [])
  return verbs && groups && resources && urls && names
}

/**
 * The permissions of `wanted` that `held` does not cover, broken down to one verb, group,
 * resource and name each (policy_comparator.go Covers): empty when the holder may grant them.
 * A role with no rules is covered by anything.
 */
export function uncovered (held: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakDown).filter((part) => !held.some((owner) => covers(owner, part)))
}

/** Go's `%q` of a string slice: `["a" "b"]`. */
export function goQuotedList (values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(' ')}]`
}

/** rbac/v1 CompactString: `{APIGroups:["g"], Resources:["r"], ResourceNames:["n"], Verbs:["v"]}`, empty fields left out. */
function compactString (rule: PolicyRule): string {
  const fields: Array<[string, readonly string[] | undefined]> = [
    ['APIGroups', rule.apiGroups], ['Resources', rule.resources], ['NonResourceURLs', rule.nonResourceURLs], ['ResourceNames', rule.resourceNames], ['Verbs', rule.verbs]
  ]
  return `{${fields.filter(([, values]) => (values ?? []).length > 0).map(([field, values]) => `${field}:${goQuotedList(values ?? [])}`).join(', ')}}`
}

/**
 * The reason of the 403 an escalation gets (validation/rule.go ConfirmNoEscalation): the missing
 * permissions with the verbs of one group, resource and name merged (policy_compact.go
 * CompactRules), one per line, sorted.
 */
export function escalationReason (user: RbacUser, missing: readonly PolicyRule[]): string {
  const merged = new Map<string, PolicyRule>()
  const others: PolicyRule[] = []
  for (const rule of missing) {
    if ((rule.nonResourceURLs ?? []).length > 0) { others.push(rule); continue }
    const key = JSON.stringify([rule.apiGroups, rule.resources, rule.resourceNames ?? []])
    const existing = merged.get(key)
    merged.set(key, existing === undefined ? rule : { ...existing, verbs: [...existing.verbs, ...rule.verbs] })
  }
  const lines = [...new Set([...others, ...merged.values()].map(compactString))].sort()
  return `user ${JSON.stringify(user.username)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`
}
