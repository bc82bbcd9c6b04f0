/**
 * Whether each part of one permission matches a request: the rules of Feast's
 * `Permission.match_resource` and `match_actions`, written once. The verdicts of an explanation
 * and the lean evaluation that answers allow/deny both ask here, so they cannot disagree.
 */
import type { CompiledPermission } from './compiled.ts'
import type { Action, Resource } from './model.ts'

/** The resource's type is one of the permission's types, subtypes included. */
export function typeMatches (compiled: CompiledPermission, resource: Resource): boolean {
  return compiled.types.has(resource.type)
}

/** No name patterns, or one of them matches the whole name. */
export function nameMatches (compiled: CompiledPermission, resource: Resource): boolean {
  const { patterns } = compiled
  if (patterns.length === 0) return true
  for (const pattern of patterns) if (pattern.matches(resource.name)) return true
  return false
}

// Own properties only: a resource's tags are data, never its prototype.
/** Every required tag is on the resource with an equal value. */
export function tagsMatch (compiled: CompiledPermission, resource: Resource): boolean {
  const { requiredTags } = compiled
  if (requiredTags.length === 0) return true
  const { tags } = resource
  if (tags === undefined) return false
  for (const [key, value] of requiredTags) if (!Object.hasOwn(tags, key) || tags[key] !== value) return false
  return true
}

/** Every requested action is granted: two permissions never combine. */
export function actionsCovered (granted: readonly Action[], requested: readonly Action[]): boolean {
  for (const action of requested) if (!granted.includes(action)) return false
  return true
}
