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

/**
 * The bound `place.option` of an options object whose only option it is (`createOnlineStore`'s,
 * `readFeatures`'s): {@link limitOption} of it, once `options` is known to be an object.
 */
export function boundOption (options: unknown, place: LimitPlace): number {
  if (typeof options !== 'object' || options === null) {
    throw new OptionError(`${place.owner}: options must be an object ({ ${place.option} }), got ${options === null ? 'null' : typeof options}`, { option: 'options' })
  }
  return limitOption((options as Record<string, unknown>)[place.option], place)
}

function shown (value: unknown): string {
  if (typeof value === 'number') return String(value)
  // Options given in code, never a secret; cut short all the same, as a message is one line.
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value)
  return value === null ? 'null' : typeof value
}
