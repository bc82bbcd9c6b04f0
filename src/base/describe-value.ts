/**
 * Renders a bad value for an error message: short, typed, and never a secret. Shared by the
 * errors of feature_store.yaml (`ConfigError`) and of options given in code (`OptionError`).
 */
export function describeValue (value: unknown, secret = false): string {
  if (value === null) return 'null'
  if (value === undefined) return 'nothing'
  if (secret) return `${describeKind(value)} (value hidden)`
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value
    return JSON.stringify(shown)
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'symbol') return 'a symbol'
  return describeKind(value)
}

/**
 * What kind of value `value` is, and nothing of the value: `a string`, `a list`, `a mapping`,
 * `null`. For what a file holds at its top when it is not the file expected: a file named by
 * mistake (a token file given as the permissions file) would have its content printed otherwise.
 */
export function describeKind (value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'a list'
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`
}

/**
 * Names for an error message, quoted: `"a", "b" and 3 more` past `most` (a registry may hold
 * hundreds of projects, and a message is one line).
 */
export function quotedNames (names: readonly string[], most = 10): string {
  const shown = names.slice(0, most).map((name) => JSON.stringify(name))
  return names.length > most ? `${shown.join(', ')} and ${names.length - most} more` : shown.join(', ')
}
