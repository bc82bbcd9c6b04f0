import { UnusableAnswer } from './api-request.ts'

/** A JSON object of an answer. */
export type JsonObject = Readonly<Record<string, unknown>>

/**
 * Reading an answer of the API server field by field, as the Kubernetes API declares it. A field
 * of another JSON type is an {@link UnusableAnswer} naming its path and the type found (never its
 * value, which may be anything, a token included). `null` counts as absent, as Go's decoder reads
 * it. Nothing is coerced: a string where a list is declared is refused, not read letter by letter.
 */
export const read = {
  object (value: unknown, at: string): JsonObject {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as JsonObject
    throw wrongType(value, at, 'an object')
  },
  optionalObject (value: unknown, at: string): JsonObject | undefined {
    return value === undefined || value === null ? undefined : read.object(value, at)
  },
  text (value: unknown, at: string): string {
    if (typeof value === 'string') return value
    throw wrongType(value, at, 'a string')
  },
  optionalText (value: unknown, at: string): string | undefined {
    return value === undefined || value === null ? undefined : read.text(value, at)
  },
  /** A string that must be there and not be empty. */
  name (value: unknown, at: string): string {
    const found = read.text(value, at)
    if (found === '') throw new UnusableAnswer(`${at} is empty`)
    return found
  },
  optionalBoolean (value: unknown, at: string): boolean | undefined {
    if (value === undefined || value === null || typeof value === 'boolean') return value ?? undefined
    throw wrongType(value, at, 'true or false')
  },
  optionalNumber (value: unknown, at: string): number | undefined {
    if (value === undefined || value === null || typeof value === 'number') return value ?? undefined
    throw wrongType(value, at, 'a number')
  },
  optionalList (value: unknown, at: string): readonly unknown[] | undefined {
    if (value === undefined || value === null) return undefined
    if (Array.isArray(value)) return value
    throw wrongType(value, at, 'a list')
  },
  optionalTexts (value: unknown, at: string): readonly string[] | undefined {
    const list = read.optionalList(value, at)
    list?.forEach((item, i) => { read.text(item, `${at}[${i}]`) })
    return list as readonly string[] | undefined
  },
  /** A field that must hold exactly `expected` (e.g. `kind: TokenReview`). */
  exactly (value: unknown, at: string, expected: string): void {
    if (value !== expected) throw new UnusableAnswer(`${at} is ${typeof value === 'string' ? 'another string' : describe(value)}, expected ${JSON.stringify(expected)}`)
  }
}

function wrongType (value: unknown, at: string, expected: string): UnusableAnswer {
  return new UnusableAnswer(`${at} is ${describe(value)}, expected ${expected}`)
}

function describe (value: unknown): string {
  if (value === undefined) return 'missing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'boolean') return 'a boolean'
  return `a ${typeof value}`
}
