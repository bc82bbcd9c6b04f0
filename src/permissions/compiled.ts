import { PermissionError } from './errors.ts'
import { SUBTYPES, type Permission, type ResourceType } from './model.ts'
import { policyRequirement } from './policy.ts'

/** What `decide` needs from a permission, prepared once so that a decision allocates little. */
export interface CompiledPermission {
  /** The permission's types plus the subtypes they cover (FeatureView → Batch/StreamFeatureView). */
  readonly types: ReadonlySet<ResourceType>
  /** One anchored RegExp per name pattern: `^(?:pattern)$`, i.e. Python's `re.fullmatch`. */
  readonly patterns: readonly RegExp[]
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
      patterns: Object.freeze(permission.namePatterns.map((source, i) => compilePattern(source, permission.name, i))),
      requiredTags: Object.freeze(Object.entries(permission.requiredTags).map(([key, value]) => Object.freeze([key, value] as const))),
      requirement: policyRequirement(permission.policy)
    })
    cache.set(permission, compiled)
  }
  return compiled
}

/**
 * Compiles a name pattern to match the whole name. No flags: JavaScript's non-Unicode syntax is
 * the closest to Python's `re` for the patterns people write (`\d`, `\-`, classes, alternation).
 */
export function compilePattern (source: string, permission?: string, index?: number): RegExp {
  const pythonOnly = pythonOnlyEscape(source)
  if (pythonOnly !== undefined) {
    throw new PermissionError(`${JSON.stringify(source)} uses the Python-only escape \\${pythonOnly}, which JavaScript reads as a plain letter (patterns always match the whole name: leave it out)`, {
      permission,
      field: index === undefined ? 'name_patterns' : `name_patterns[${index}]`
    })
  }
  try {
    // Compiled alone first: a pattern that is valid by itself has balanced groups, so wrapping it
    // cannot be escaped (`a)|(.*` would otherwise turn the anchors off).
    void new RegExp(source)
    return new RegExp(`^(?:${source})$`)
  } catch (error) {
    const reason = (error as Error).message.replace(/^Invalid regular expression: /, '')
    throw new PermissionError(`${JSON.stringify(source)} is not a valid regular expression (${reason})`, {
      permission,
      field: index === undefined ? 'name_patterns' : `name_patterns[${index}]`
    }, error)
  }
}

// `\A` and `\Z` anchor in Python but are the letters A and Z in a JavaScript pattern: refused
// rather than silently matching something else. (`(?P<name>...)` and inline flags do not compile.)
function pythonOnlyEscape (source: string): string | undefined {
  for (let i = 0; i < source.length - 1; i++) {
    if (source[i] !== '\\') continue
    const next = source[i + 1] as string
    if (next === 'A' || next === 'Z') return next
    i++
  }
  return undefined
}
