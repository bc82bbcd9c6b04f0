import { describeValue } from '../base/describe-value.ts'
import { compile } from './compiled.ts'
import { compileNamePattern } from './name-pattern.ts'
import { PermissionError } from './errors.ts'
import { didYouMean } from '../base/did-you-mean.ts'
import {
  ACTION_GROUPS, ACTIONS, RESOURCE_TYPES, expandActions, isAction, isActionGroup, isResourceType,
  type Action, type ActionGroup, type Permission, type Policy, type ResourceType
} from './model.ts'
import { checkPolicy } from './policy.ts'

export { allowAll, combinedGroupNamespacePolicy, groupBasedPolicy, namespaceBasedPolicy, roleBasedPolicy } from './policy.ts'

/** A permission as written in TypeScript; `permission()` validates and normalises it. */
export interface PermissionInput {
  readonly name: string
  /** Resource types covered; a single type or a list. Omitted or empty: every type. */
  readonly types?: readonly ResourceType[] | ResourceType
  /** Regexes that must match the whole name; any one suffices; omitted or empty: any name. */
  readonly namePatterns?: readonly string[] | string
  /** Every key must be on the resource's tags with an equal value. */
  readonly requiredTags?: Readonly<Record<string, string>>
  /** Actions and groups (`READ`, `WRITE`, `CRUD`, `ALL_ACTIONS`). Omitted: all actions; empty: an error. */
  readonly actions?: readonly (Action | ActionGroup)[] | Action | ActionGroup
  /** Required: `roleBasedPolicy([...])`, `groupBasedPolicy`, `namespaceBasedPolicy`, `combinedGroupNamespacePolicy`, `allowAll`. */
  readonly policy: Policy
  /** Free metadata, never used for matching. */
  readonly tags?: Readonly<Record<string, string>>
}

/** Field names used in error messages; the YAML loader passes Feast's snake_case ones. */
export interface FieldNames {
  readonly name: string
  readonly types: string
  readonly namePatterns: string
  readonly requiredTags: string
  readonly actions: string
  readonly policy: string
  readonly tags: string
}

/**
 * What a format accepts beyond `permission()`'s own rules. Feast's `Permission` takes an empty
 * name (it is only used in logs) and an empty tag name, so a registry Feast wrote may hold them;
 * in code and in YAML they are far more likely a slip, so `permission()` refuses them.
 */
export interface Leniency {
  readonly blankNames?: boolean
}

const TS_FIELDS: FieldNames = { name: 'name', types: 'types', namePatterns: 'namePatterns', requiredTags: 'requiredTags', actions: 'actions', policy: 'policy', tags: 'tags' }
const ALL_TYPES: readonly ResourceType[] = Object.freeze([...RESOURCE_TYPES])
const ALL_ACTIONS: readonly Action[] = Object.freeze([...ACTIONS])

/**
 * Builds a validated, frozen permission, after Feast's `Permission(...)`.
 *
 * Normalises like Feast (a single type, pattern or action becomes a list; patterns and tag
 * keys/values are trimmed; no types means all types) and throws a PermissionError naming the
 * permission and the field for: an empty name, an unknown type or action, empty actions, a
 * missing policy, a pattern that does not compile, a tag that is not a string, an unknown field.
 * Name patterns are compiled here, once.
 *
 * @example
 * ```ts
 * import { feastAuthz, permission, roleBasedPolicy } from 'feast-authz'
 * const readers = permission({ name: 'readers', types: ['FeatureView'], namePatterns: 'driver_.*',
 *   actions: ['DESCRIBE', 'READ'], policy: roleBasedPolicy(['reader']) })
 * await app.register(feastAuthz, { config: './feature_store.yaml', permissions: [readers] })
 * ```
 */
export function permission (input: PermissionInput): Permission {
  return buildPermission(input, TS_FIELDS)
}

/** `permission()` with the field names of the caller's format (the YAML loader's snake_case). */
export function buildPermission (input: PermissionInput, fields: FieldNames, leniency: Leniency = {}): Permission {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new PermissionError(`expected a permission object, got ${describeValue(input)}`)
  }
  const rawName: unknown = input.name
  const blankNames = leniency.blankNames === true
  if (typeof rawName !== 'string' || (rawName.trim() === '' && !blankNames)) {
    throw new PermissionError(`expected a non-empty string, got ${describeValue(rawName)}`, { field: fields.name })
  }
  const name = rawName.trim()
  const fail = (field: string, message: string, cause?: unknown): never => {
    throw new PermissionError(message, { permission: name, field }, cause)
  }

  const known = new Set(Object.keys(TS_FIELDS))
  for (const key of Object.keys(input)) {
    if (!known.has(key)) fail(key, `unknown field (expected ${Object.values(fields).join(', ')})`)
  }

  const types = normaliseTypes(input.types, fields.types, fail)
  const namePatterns = normalisePatterns(input.namePatterns, fields.namePatterns, fail)
  const requiredTags = normaliseTags(input.requiredTags, fields.requiredTags, blankNames, fail)
  const tags = input.tags === undefined ? undefined : normaliseTags(input.tags, fields.tags, blankNames, fail)
  const actions = normaliseActions(input.actions, fields.actions, fail)
  let policy: Policy
  try {
    policy = checkPolicy(input.policy)
  } catch (error) {
    if (!(error instanceof PermissionError)) throw error
    return fail(error.field === undefined ? fields.policy : `${fields.policy}.${error.field}`, error.reason)
  }

  const built: Permission = Object.freeze({
    name,
    types,
    namePatterns,
    requiredTags,
    actions,
    policy,
    ...(tags === undefined ? {} : { tags })
  })
  compile(built)
  return built
}

type Fail = (field: string, message: string, cause?: unknown) => never

function normaliseTypes (value: unknown, field: string, fail: Fail): readonly ResourceType[] {
  if (value === undefined || value === null) return ALL_TYPES
  const list: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : fail(field, `expected a resource type or a list of them, got ${describeValue(value)}`)
  if (list.length === 0) return ALL_TYPES
  const out: ResourceType[] = []
  list.forEach((type, i) => {
    if (!isResourceType(type)) fail(`${field}[${i}]`, `unknown resource type ${describeValue(type)}${didYouMean(String(type), RESOURCE_TYPES)} (expected one of ${RESOURCE_TYPES.join(', ')})`)
    else if (!out.includes(type)) out.push(type)
  })
  return Object.freeze(out)
}

function normalisePatterns (value: unknown, field: string, fail: Fail): readonly string[] {
  if (value === undefined || value === null) return Object.freeze([])
  const list: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : fail(field, `expected a regular expression or a list of them, got ${describeValue(value)}`)
  return Object.freeze(list.map((pattern, i) => {
    if (typeof pattern !== 'string') return fail(`${field}[${i}]`, `expected a regular expression string, got ${describeValue(pattern)}`)
    const trimmed = pattern.trim()
    try {
      compileNamePattern(trimmed)
    } catch (error) {
      fail(`${field}[${i}]`, error instanceof PermissionError ? error.reason : String(error), error)
    }
    return trimmed
  }))
}

function normaliseTags (value: unknown, field: string, blankNames: boolean, fail: Fail): Readonly<Record<string, string>> {
  if (value === undefined || value === null) return Object.freeze({})
  if (typeof value !== 'object' || Array.isArray(value)) return fail(field, `expected a mapping of tag names to string values, got ${describeValue(value)}`)
  // A null-prototype object: a tag called `__proto__` or `constructor` is just a tag.
  const out: Record<string, string> = Object.create(null) as Record<string, string>
  for (const [rawKey, rawValue] of Object.entries(value)) {
    const key = rawKey.trim()
    if (key === '' && !blankNames) fail(field, 'a tag name is empty')
    if (typeof rawValue !== 'string') fail(`${field}.${key}`, `expected a string value, got ${describeValue(rawValue)}${typeof rawValue === 'number' || typeof rawValue === 'boolean' ? ' (quote it in YAML)' : ''}`)
    out[key] = (rawValue as string).trim()
  }
  return Object.freeze(out)
}

function normaliseActions (value: unknown, field: string, fail: Fail): readonly Action[] {
  if (value === undefined) return ALL_ACTIONS
  if (value === null) return fail(field, 'must be a non-empty list of actions (omit it for all actions)')
  const list: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : fail(field, `expected an action or a list of them, got ${describeValue(value)}`)
  if (list.length === 0) fail(field, 'must be a non-empty list of actions (omit it for all actions)')
  list.forEach((action, i) => {
    if (!isAction(action) && !isActionGroup(action)) {
      fail(`${field}[${i}]`, `unknown action ${describeValue(action)}${didYouMean(String(action), [...ACTIONS, ...Object.keys(ACTION_GROUPS)])} (expected one of ${ACTIONS.join(', ')}, or a group ${Object.keys(ACTION_GROUPS).join(', ')})`)
    }
  })
  return Object.freeze(expandActions(list as (Action | ActionGroup)[]))
}
