/** The permission framework: model, definitions, YAML files and the decision engine. */
export {
  ACTIONS, ACTION_GROUPS, RESOURCE_TYPES, SUBTYPES, expandActions, resourceLabel,
  type Action, type ActionGroup, type Permission, type Policy, type Resource, type ResourceType
} from './model.ts'
export { PermissionError, type PermissionErrorDetails } from './errors.ts'
export { permission, type PermissionInput } from './define.ts'
export {
  allowAll, combinedGroupNamespacePolicy, groupBasedPolicy, namespaceBasedPolicy, roleBasedPolicy,
  policyGrants, policyRequirement, type PolicySubject
} from './policy.ts'
export {
  decide, describeDecision, filterAllowed,
  type Decision, type FilterResult, type FilteredOut, type MatchPart, type PermissionVerdict
} from './decide.ts'
export { loadPermissionsFile, parsePermissionsYaml, permissionsToYaml } from './yaml.ts'
