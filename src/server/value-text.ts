/** How the server's messages describe a value they refuse: by its kind, never the value itself (it may be huge, deeply nested, or a secret). */

/** The JSON type of a value. */
export function jsonType (value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** A number that is not finite. */
export function nonFiniteText (value: number): string {
  return Number.isNaN(value) ? 'NaN' : `a number beyond ±1.8e308 (${String(value)})`
}
