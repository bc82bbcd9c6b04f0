import { compileNamePattern, type NamePattern } from './name-pattern.ts'
import { SUBTYPES, type Permission, type ResourceType } from './model.ts'
import { policyRequirement } from './policy.ts'

/** What `decide` needs from a permission, prepared once so that a decision allocates little. */
export interface CompiledPermission {
  /** The permission's types plus the subtypes they cover (FeatureView → Batch/StreamFeatureView). */
  readonly types: ReadonlySet<ResourceType>
  /** One compiled pattern per name pattern, matching as Python's `re.fullmatch` in linear time. */
  readonly patterns: readonly NamePattern[]
  readonly requiredTags: readonly (readonly [string, string])[]
  /** `requires roles [reader]`: what the policy asks for. */
  readonly requirement: string
}

// Keyed by the permission object: permissions are immutable, and entries go when they do.
const cache = new WeakMap<Permission, CompiledPermission>()

/**
 * The compiled form of `permission`, built on first use. `permission()` calls this at
 * definition time, so a bad pattern fails there; a hand-built object fails on first decision.
 */
export function compile (permission: Permission): CompiledPermission {
  let compiled = cache.get(permission)
  if (compiled === undefined) {
    const types = new Set<ResourceType>()
    for (const type of permission.types) {
      types.add(type)
      for (const sub of SUBTYPES[type] ?? []) types.add(sub)
    }
    compiled = Object.freeze({
      types,
      patterns: Object.freeze(permission.namePatterns.map((source, i) => compileNamePattern(source, permission.name, i))),
      requiredTags: Object.freeze(Object.entries(permission.requiredTags).map(([key, value]) => Object.freeze([key, value] as const))),
      requirement: policyRequirement(permission.policy)
    })
    cache.set(permission, compiled)
  }
  return compiled
}
