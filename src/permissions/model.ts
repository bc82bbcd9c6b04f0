/**
 * The permission model, after Feast's `feast.permissions`: the shapes every other
 * module (decision engine, YAML and registry loaders, adapters) agrees on.
 */
import { mayBeCredential, quotedUnlessCredential } from '../base/credential-shape.ts'
import { didYouMean } from '../base/did-you-mean.ts'
import { OptionError } from '../base/errors.ts'

/** Every action a permission can grant, as Feast names them (`AuthzedAction`). */
export const ACTIONS = ['CREATE', 'DESCRIBE', 'UPDATE', 'DELETE', 'READ_ONLINE', 'READ_OFFLINE', 'WRITE_ONLINE', 'WRITE_OFFLINE'] as const
/** One action on a resource: `CREATE`, `DESCRIBE`, `UPDATE`, `DELETE`, `READ_ONLINE`, ... */
export type Action = typeof ACTIONS[number]

/** Names that stand for several actions, accepted wherever actions are written. */
export const ACTION_GROUPS = {
  ALL_ACTIONS: ACTIONS,
  READ: ['READ_ONLINE', 'READ_OFFLINE'],
  WRITE: ['WRITE_ONLINE', 'WRITE_OFFLINE'],
  CRUD: ['CREATE', 'DESCRIBE', 'UPDATE', 'DELETE']
} as const satisfies Readonly<Record<string, readonly Action[]>>
/** The name of a group of actions: `ALL_ACTIONS`, `READ`, `WRITE`, `CRUD`. */
export type ActionGroup = keyof typeof ACTION_GROUPS

/** Every type of resource a permission can cover, as Feast names them. */
export const RESOURCE_TYPES = [
  'Project', 'FeatureView', 'OnDemandFeatureView', 'BatchFeatureView', 'StreamFeatureView', 'LabelView',
  'Entity', 'FeatureService', 'DataSource', 'ValidationReference', 'SavedDataset', 'Permission'
] as const
/** One resource type (`FeatureView`, `Entity`, `Project`, ...); case-sensitive. */
export type ResourceType = typeof RESOURCE_TYPES[number]

/** A thing a request acts on. `tags` are the resource's real tags (Feast's `required_tags` are matched against them). */
export interface Resource {
  readonly type: ResourceType
  readonly name: string
  readonly project?: string
  readonly tags?: Readonly<Record<string, string>>
}

/**
 * Who a permission grants: build one with `roleBasedPolicy`, `groupBasedPolicy`,
 * `namespaceBasedPolicy`, `combinedGroupNamespacePolicy`, or use `allowAll`.
 */
export type Policy =
  | { readonly kind: 'role', readonly roles: readonly string[] }
  | { readonly kind: 'group', readonly groups: readonly string[] }
  | { readonly kind: 'namespace', readonly namespaces: readonly string[] }
  | { readonly kind: 'combined', readonly groups: readonly string[], readonly namespaces: readonly string[] }
  | { readonly kind: 'allow_all' }

/** A validated permission; build one with `permission()` or load them from YAML or a registry. */
export interface Permission {
  readonly name: string
  /** Resource types it covers (all when none were given). */
  readonly types: readonly ResourceType[]
  /** Sources of the name patterns; each must match the whole name, any one suffices, none = any name. */
  readonly namePatterns: readonly string[]
  readonly requiredTags: Readonly<Record<string, string>>
  readonly actions: readonly Action[]
  readonly policy: Policy
  /** Free metadata (Feast's `tags`); never used for matching. */
  readonly tags?: Readonly<Record<string, string>>
}

/**
 * Types a permission for `type` also covers: Batch and Stream feature views are kinds of
 * feature view (Feast matches with `isinstance`). OnDemandFeatureView and LabelView are not.
 */
export const SUBTYPES: Readonly<Partial<Record<ResourceType, readonly ResourceType[]>>> = {
  FeatureView: ['BatchFeatureView', 'StreamFeatureView']
}

export function isAction (value: unknown): value is Action {
  return typeof value === 'string' && (ACTIONS as readonly string[]).includes(value)
}

export function isActionGroup (value: unknown): value is ActionGroup {
  return typeof value === 'string' && Object.hasOwn(ACTION_GROUPS, value)
}

export function isResourceType (value: unknown): value is ResourceType {
  return typeof value === 'string' && (RESOURCE_TYPES as readonly string[]).includes(value)
}

/**
 * Expands action names and groups (`READ`, `WRITE`, `CRUD`, `ALL_ACTIONS`) into actions,
 * without duplicates, in first-seen order. Throws an `OptionError` on an unknown name, with a
 * did-you-mean and the names it knows.
 */
export function expandActions (names: readonly (Action | ActionGroup)[] | Action | ActionGroup): Action[] {
  const list = typeof names === 'string' ? [names] : names
  const out: Action[] = []
  for (const name of list) {
    const expanded: readonly Action[] = isActionGroup(name) ? ACTION_GROUPS[name] : isAction(name) ? [name] : []
    if (expanded.length === 0) throw new OptionError(unknownAction(name))
    for (const action of expanded) if (!out.includes(action)) out.push(action)
  }
  return out
}

/**
 * The message for an action name that is neither an action nor a group. A string shaped like a
 * credential (`--action "$TOKEN"`) is told by its length, not quoted, and no guess is made from it.
 */
export function unknownAction (name: unknown): string {
  const known = [...ACTIONS, ...Object.keys(ACTION_GROUPS)]
  if (typeof name === 'string' && mayBeCredential(name)) return `unknown action: ${quotedUnlessCredential(name)} (expected one of ${known.join(', ')})`
  const guess = typeof name === 'string' ? didYouMean(name, known) : ''
  return `unknown action ${JSON.stringify(name) ?? String(name)}${guess} (expected one of ${known.join(', ')})`
}

/** `Type:name`, the way explanations and logs name a resource. */
export function resourceLabel (resource: Pick<Resource, 'type' | 'name'>): string {
  return `${resource.type}:${resource.name}`
}
