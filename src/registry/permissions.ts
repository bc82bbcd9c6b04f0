import { buildPermission, type FieldNames } from '../permissions/define.ts'
import { PermissionError } from '../permissions/errors.ts'
import type { Action, Permission, Policy, ResourceType } from '../permissions/model.ts'
import { combinedGroupNamespacePolicy, groupBasedPolicy, namespaceBasedPolicy, roleBasedPolicy } from '../permissions/policy.ts'
import { ACTION_NUMBERS, PERMISSION_TYPE_NUMBERS, POLICY_ONEOF, type Message } from './schema.ts'

/** A permission of the registry and the project it belongs to. */
export interface ProjectPermission {
  readonly project: string
  readonly permission: Permission
}

// Error messages use the registry's own (proto) field names.
const PROTO_FIELDS: FieldNames = {
  name: 'name', types: 'types', namePatterns: 'name_patterns', requiredTags: 'required_tags', actions: 'actions', policy: 'policy', tags: 'tags'
}

/**
 * Converts a registry `Permission` into the permission model, validated by the same
 * `buildPermission` as permissions written in code or YAML. Throws a PermissionError for
 * anything Feast itself would refuse or that we cannot enforce faithfully:
 * - no project (Feast lists a project's permissions by it, so such a permission never applies
 *   there; we refuse the file rather than guess a project: Feast's own writer always sets it);
 * - an unknown type or action number (written by a newer Feast): dropping it could turn a
 *   narrow permission into one for every type, so the registry is refused instead;
 * - no actions (Feast: "The list 'actions' must be non-empty");
 * - an empty policy: Feast writes `AllowAll` that way and cannot read it back either; we
 *   refuse rather than guess that it means "allow everyone";
 * - a name pattern that is not a valid regular expression.
 * An empty `types` list means every type, as in Feast. An empty name, or an empty tag name, is
 * read as Feast reads it: the name only labels the permission in decisions and logs. An empty
 * role, group or namespace in the policy is left out: it can match no principal here.
 */
export function permissionFromMessage (message: Message<'Permission'>, index: number): ProjectPermission {
  const spec = message.spec ?? {}
  const name = spec.name ?? ''
  const project = spec.project ?? ''
  // Named like the YAML loader's errors, with the project in front: `project "demo": permission [3] "readers": actions: ...`.
  const where = { index, ...(name === '' ? {} : { permission: name }), ...(project === '' ? {} : { project }) }
  const fail = (field: string, reason: string): never => { throw new PermissionError(reason, { ...where, field }) }
  if (project === '') fail('project', 'the permission names no project')

  try {
    const types = (spec.types ?? []).map((value, i): ResourceType => PERMISSION_TYPE_NUMBERS[value] ?? fail(`types[${i}]`, `unknown resource type number ${value} (this version knows 0..${PERMISSION_TYPE_NUMBERS.length - 1}: ${PERMISSION_TYPE_NUMBERS.join(', ')})`))
    const actionList = spec.actions ?? []
    if (actionList.length === 0) fail('actions', 'the permission lists no actions (Feast refuses such a permission too)')
    const actions = actionList.map((value, i): Action => ACTION_NUMBERS[value] ?? fail(`actions[${i}]`, `unknown action number ${value} (this version knows 0..${ACTION_NUMBERS.length - 1}: ${ACTION_NUMBERS.join(', ')})`))
    const policy = policyOf(spec.policy) ?? fail('policy', 'the policy is empty (Feast stores AllowAll this way and cannot load it back either); use a role, group or namespace policy')
    const permission = buildPermission({
      name,
      types,
      namePatterns: [...(spec.name_patterns ?? [])],
      // Passed only when set: `permission()` gives a permission without required tags its own empty object.
      ...(spec.required_tags === undefined || Object.keys(spec.required_tags).length === 0 ? {} : { requiredTags: { ...spec.required_tags } }),
      actions,
      policy,
      ...(spec.tags === undefined || Object.keys(spec.tags).length === 0 ? {} : { tags: { ...spec.tags } })
    }, PROTO_FIELDS, { blankNames: true })
    return Object.freeze({ project, permission })
  } catch (error) {
    if (!(error instanceof PermissionError)) throw error
    if (error.index === index) throw error
    // Thrown by buildPermission, which knows neither the permission's index nor its project.
    throw new PermissionError(error.reason, { ...where, field: error.field }, error)
  }
}

/** The policy of the message: the member of its `policy_type` oneof, if it holds one. */
function policyOf (policy: Message<'Policy'> | undefined): Policy | undefined {
  const member = policy === undefined ? undefined : policyMember(policy)
  return policy === undefined || member === undefined ? undefined : policyFromMember(policy, member)
}

type PolicyMember = (typeof POLICY_ONEOF)[number]

/**
 * The member of the `policy_type` oneof the policy holds. The decoder leaves at most one (the one
 * read last, as protobuf does), so this is the policy Feast enforces too.
 */
function policyMember (policy: Message<'Policy'>): PolicyMember | undefined {
  return POLICY_ONEOF.find((member) => policy[member] !== undefined)
}

function policyFromMember (policy: Message<'Policy'>, member: PolicyMember): Policy | undefined {
  switch (member) {
    case 'role_based_policy': return roleBasedPolicy(named(policy.role_based_policy?.roles))
    case 'group_based_policy': return groupBasedPolicy(named(policy.group_based_policy?.groups))
    case 'namespace_based_policy': return namespaceBasedPolicy(named(policy.namespace_based_policy?.namespaces))
    case 'combined_group_namespace_policy': {
      const combined = policy.combined_group_namespace_policy
      return combinedGroupNamespacePolicy(named(combined?.groups), named(combined?.namespaces))
    }
  }
}

/**
 * The non-empty entries of a policy list. Feast's policies take an empty string (a
 * `roles=os.environ.get("ROLES", "").split(",")` writes one), and a registry holding one is
 * served by Feast, so it must not stop ours. No principal here ever holds an empty role, group or
 * namespace (claims and Kubernetes names drop or cannot be empty), so the entry could never
 * grant: leaving it out changes no decision. `roleBasedPolicy()` in code still refuses it, as a slip.
 */
function named (values: readonly string[] | undefined): string[] {
  return (values ?? []).filter((value) => value !== '')
}
