/**
 * The bounds the reference server takes in code (the online store's bytes, an answer's values),
 * checked alike: a positive whole number, else an OptionError naming the option, what it takes
 * and what was given. NaN, Infinity, 0 or a negative number would lift the bound or refuse
 * everything, and a fraction or a string is a mistake best reported where it was made.
 */
import { OptionError } from '../registry/index.ts'

/** Where a bound was given and what it counts, for the message. */
export interface LimitPlace {
  /** The function it was given to, e.g. `createOnlineStore`. */
  readonly owner: string
  readonly option: string
  /** What it counts, e.g. `bytes`. */
  readonly unit: string
  /** The value taken when none is given. */
  readonly fallback: number
}

/** `value`, or the fallback when it is undefined; any other value than a positive safe integer is an OptionError. */
export function limitOption (value: unknown, place: LimitPlace): number {
  if (value === undefined) return place.fallback
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value
  throw new OptionError(`${place.owner}: ${place.option} must be a positive whole number of ${place.unit} (default ${place.fallback}), got ${shown(value)}`, { option: place.option })
}

function shown (value: unknown): string {
  if (typeof value === 'number') return String(value)
  // Options given in code, never a secret; cut short all the same, as a message is one line.
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value)
  return value === null ? 'null' : typeof value
}
