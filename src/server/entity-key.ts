/** What may be an entity key (a join key's value), in a read, a write and a sample row alike. */
import { INT64_RANGE, isInt64 } from './exact-integers.ts'
import { jsonType, nonFiniteText } from './value-text.ts'

/** What an entity key may be, for the messages refusing one. */
export const ENTITY_KEY_TYPES = 'a string, finite number, boolean or null'

/**
 * Why a value cannot be an entity key, or undefined when it can: Feast's keys are scalars, and a
 * number JSON reads as infinite (`1e400`) is none. Feast turns it into an int64 key with `int()`,
 * which fails (a 500); here, where keys are compared as JSON, it would read as `null`'s key. An
 * integer must fit int64, whether read exactly (a BigInt) or written as a double (`1e19`): keys
 * are compared by their integer value, as Feast's int64 keys take a float with `int()`, and
 * Feast's protobuf refuses a larger one (a 500).
 */
export function entityKeyFault (value: unknown): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'bigint') return isInt64(value) ? undefined : `an integer beyond int64 (${INT64_RANGE})`
  if (typeof value !== 'number') return jsonType(value)
  if (!Number.isFinite(value)) return nonFiniteText(value)
  // Every double beyond 2^53 is an integer, and only those can leave int64.
  if (Number.isSafeInteger(value) || !Number.isInteger(value)) return undefined
  return isInt64(BigInt(value)) ? undefined : `a number beyond int64 (${INT64_RANGE}), the range of an integer key`
}
