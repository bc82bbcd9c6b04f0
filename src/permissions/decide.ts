import { compile } from './compiled.ts'
import { Evaluation } from './evaluate.ts'
import { actionsCovered, nameMatches, tagsMatch, typeMatches } from './match.ts'
import { resourceLabel, type Action, type Permission, type Resource } from './model.ts'
import { policyGrants, type PolicySubject } from './policy.ts'

/** The parts of a permission that decide whether it applies to a request. */
export type MatchPart = 'type' | 'name_pattern' | 'tags' | 'actions'

/** How one permission took part in a decision. */
export interface PermissionVerdict {
  /** The permission's name. */
  readonly permission: string
  /** Whether it applies: type, name pattern and tags match and it covers *all* requested actions. */
  readonly applied: boolean
  /** Which parts did not match (empty when it applied), in the order type, name_pattern, tags, actions. */
  readonly unmatched: readonly MatchPart[]
  /** Whether its policy grants this principal (evaluated for every permission, applied or not). */
  readonly policyGranted: boolean
  /** When the policy did not grant: what it asks for, e.g. `requires roles [reader]`. */
  readonly missing?: string
}

/** What {@link decide} answers: allowed or not, a message safe for the caller, and the full explanation. */
export interface Decision {
  readonly allowed: boolean
  /**
   * True when there are no permissions at all: everyone who reaches the engine is allowed
   * (Feast's rule since PR #6735). The caller logs the warning, once.
   */
  readonly noPermissionsDefined: boolean
  /** Short and safe to send to the caller (403 body): it names the actions and the resource only. */
  readonly message: string
  /** One verdict per permission, in the order the permissions were given. */
  readonly explanation: readonly PermissionVerdict[]
  /** The resource decided on. */
  readonly resource: Resource
  /** The actions asked for. */
  readonly actions: readonly Action[]
}

const NO_VERDICTS: readonly PermissionVerdict[] = Object.freeze([])
const NOTHING_UNMATCHED: readonly MatchPart[] = Object.freeze([])

/**
 * Decides whether `principal` may perform **all** of `actions` on `resource`, after Feast's enforcer:
 *
 * - a permission *applies* when the resource's type is one of its types (a FeatureView permission
 *   also covers BatchFeatureView and StreamFeatureView), its name fully matches one of the name
 *   patterns (none = any name), its tags hold every required tag with an equal value, and every
 *   requested action is among the permission's actions — two permissions never combine;
 * - access is allowed when any applicable permission's policy grants, denied when none applies
 *   or none grants;
 * - with no permissions at all, access is allowed and `noPermissionsDefined` is set.
 *
 * Pure and synchronous: it does not know about authentication. The adapters answer `no_auth`
 * servers (no checks) and requests without an authenticated principal (401) before calling it.
 * An empty `actions` list asks nothing of the actions, as in Feast: every permission matching
 * the resource then applies.
 *
 * WARNING: with an empty `permissions` list every principal is allowed (Feast's rule); a caller
 * that wants "deny unless granted" must check `noPermissionsDefined` itself.
 *
 * @example
 * ```ts
 * import { decide, describeDecision, expandActions, permission, roleBasedPolicy } from 'feast-authz'
 * const readers = permission({ name: 'readers', actions: 'READ', policy: roleBasedPolicy(['reader']) })
 * const caller = { roles: ['reader'], groups: [], namespaces: [] }
 * const decision = decide([readers], caller, { type: 'FeatureView', name: 'driver_stats' }, expandActions('READ_ONLINE'))
 * console.log(decision.allowed, describeDecision(decision)) // true, and why
 * ```
 */
export function decide (
  permissions: readonly Permission[],
  principal: PolicySubject,
  resource: Resource,
  actions: readonly Action[]
): Decision {
  if (permissions.length === 0) {
    return { allowed: true, noPermissionsDefined: true, message: 'No permissions defined: every authenticated user is allowed', explanation: NO_VERDICTS, resource, actions }
  }
  const allowed = new Evaluation(permissions, principal, actions).granting(resource) >= 0
  return {
    allowed,
    noPermissionsDefined: false,
    message: allowed ? `Allowed: ${actionList(actions)} on ${resourceLabel(resource)}` : `Permission denied: ${actionList(actions)} on ${resourceLabel(resource)}`,
    explanation: permissions.map((permission) => judge(permission, principal, resource, actions)),
    resource,
    actions
  }
}

// Every part of every permission is judged, unlike the evaluation that stops at its answer:
// an explanation says each reason a permission did not apply.
function judge (permission: Permission, principal: PolicySubject, resource: Resource, actions: readonly Action[]): PermissionVerdict {
  const compiled = compile(permission)
  const typeOk = typeMatches(compiled, resource)
  const nameOk = nameMatches(compiled, resource)
  const tagsOk = tagsMatch(compiled, resource)
  const actionsOk = actionsCovered(permission.actions, actions)
  const policyGranted = policyGrants(permission.policy, principal)
  const applied = typeOk && nameOk && tagsOk && actionsOk
  let unmatched = NOTHING_UNMATCHED
  if (!applied) {
    const parts: MatchPart[] = []
    if (!typeOk) parts.push('type')
    if (!nameOk) parts.push('name_pattern')
    if (!tagsOk) parts.push('tags')
    if (!actionsOk) parts.push('actions')
    unmatched = parts
  }
  return policyGranted
    ? { permission: permission.name, applied, unmatched, policyGranted }
    : { permission: permission.name, applied, unmatched, policyGranted, missing: compiled.requirement }
}

/**
 * The full explanation of a decision, for the log (never for the caller): names the
 * permission(s), the actions, the resource `Type:name`, and what was missing, e.g.
 * `Permission reader denied [DESCRIBE] on FeatureView:secured: requires roles [reader]`.
 */
export function describeDecision (decision: Decision): string {
  const what = `${actionList(decision.actions)} on ${resourceLabel(decision.resource)}`
  if (decision.noPermissionsDefined) return `No permissions defined: ${what} allowed for every authenticated user`
  const applied = decision.explanation.filter((verdict) => verdict.applied)
  const notApplied = decision.explanation.filter((verdict) => !verdict.applied)
  const skipped = notApplied.length === 0
    ? ''
    : ` (not applicable: ${notApplied.map((verdict) => `${verdict.permission} [${verdict.unmatched.join(', ')} did not match]`).join('; ')})`
  if (decision.allowed) {
    const granting = applied.find((verdict) => verdict.policyGranted)
    return `Permission ${granting?.permission ?? '?'} granted ${what}`
  }
  if (applied.length === 0) return `No permission applies to ${what}${skipped}`
  const denials = applied.map((verdict) => `Permission ${verdict.permission} denied ${what}: ${verdict.missing ?? 'policy did not grant'}`)
  return `${denials.join('; ')}${skipped}`
}

function actionList (actions: readonly Action[]): string {
  return `[${actions.join(', ')}]`
}

/** A resource the filter left out, with the decision that denied it. */
export interface FilteredOut<R extends Resource> {
  readonly resource: R
  readonly decision: Decision
}

/** What {@link filterAllowed} answers: the resources kept, those hidden, and a refusal if any. */
export interface FilterResult<R extends Resource> {
  /** The permitted resources, in input order (empty when `refused` is set). */
  readonly allowed: R[]
  /**
   * Denied resources that were silently left out. Built when first read, and each one's
   * `decision` when that is first read (a listing may hide hundreds, explaining one costs more
   * than deciding it, and most callers never look, or look at a few): from the permissions,
   * principal and actions as they were at the call, and the resource as it is when read.
   */
  readonly dropped: readonly FilteredOut<R>[]
  /**
   * The first denied resource that refuses the whole call (Feast raises there): answer 403 with
   * `refused.decision.message`. Undefined when the call goes ahead with `allowed`.
   */
  readonly refused: FilteredOut<R> | undefined
  /** True when there are no permissions at all (every resource is then allowed). */
  readonly noPermissionsDefined: boolean
}

/**
 * Filter mode (Feast's `permitted_resources`, used by list routes): keeps the resources the
 * principal may act on. A denied resource is either silently dropped or refuses the whole call,
 * by Feast's rules:
 *
 * - some permission applied (all denied): dropped when the **last** applicable permission has
 *   name patterns, otherwise the call is refused;
 * - no permission applied: refused when no permission covers the resource's type at all, or when
 *   none of those that do has name patterns; dropped otherwise.
 *
 * In short: denials that come from permissions scoped by name only hide things; anything else is
 * a 403. Resources are processed in order and the first refusal stops the walk.
 * With no permissions at all every resource is allowed and `noPermissionsDefined` is set.
 */
export function filterAllowed<R extends Resource> (
  permissions: readonly Permission[],
  principal: PolicySubject,
  resources: readonly R[],
  actions: readonly Action[]
): FilterResult<R> {
  if (permissions.length === 0) return { allowed: [...resources], dropped: [], refused: undefined, noPermissionsDefined: true }
  const allowed: R[] = []
  const hidden: R[] = []
  const evaluation = new Evaluation(permissions, principal, actions)
  let explain: ((resource: R) => Decision) | undefined
  for (const resource of resources) {
    if (evaluation.granting(resource) >= 0) { allowed.push(resource); continue }
    explain ??= explainer(permissions, principal, actions)
    if (evaluation.deniedIsDropped(resource)) {
      hidden.push(resource)
    } else {
      return withDropped([], hidden, explain, { resource, decision: explain(resource) })
    }
  }
  return withDropped(allowed, hidden, explain, undefined)
}

function withDropped<R extends Resource> (
  allowed: R[],
  hidden: readonly R[],
  explain: ((resource: R) => Decision) | undefined,
  refused: FilteredOut<R> | undefined
): FilterResult<R> {
  let dropped: readonly FilteredOut<R>[] | undefined
  return {
    allowed,
    get dropped () {
      dropped ??= explain === undefined ? [] : hidden.map((resource) => explainedWhenRead(resource, explain))
      return dropped
    },
    refused,
    noPermissionsDefined: false
  }
}

function explainedWhenRead<R extends Resource> (resource: R, explain: (resource: R) => Decision): FilteredOut<R> {
  let decision: Decision | undefined
  return {
    resource,
    get decision () { return (decision ??= explain(resource)) }
  }
}

// The inputs are copied once per call where they could still change, so that an explanation
// read later says what was decided.
function explainer (permissions: readonly Permission[], principal: PolicySubject, actions: readonly Action[]): (resource: Resource) => Decision {
  const fixedPermissions = Object.isFrozen(permissions) ? permissions : Object.freeze([...permissions])
  const fixedActions = Object.isFrozen(actions) ? actions : Object.freeze([...actions])
  const fixedPrincipal: PolicySubject = { roles: fixedList(principal.roles), groups: fixedList(principal.groups), namespaces: fixedList(principal.namespaces) }
  return (resource) => decide(fixedPermissions, fixedPrincipal, resource, fixedActions)
}

function fixedList (values: readonly string[]): readonly string[] {
  return Object.isFrozen(values) ? values : Object.freeze([...values])
}
