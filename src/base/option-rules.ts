/**
 * The one way options given in code are checked (the plugin's, the middleware's,
 * `createAuthManager`'s, the client's, the registry's, the reference server's): a declarative
 * rule per option, checked when the options are given, throwing an {@link OptionError} that
 * names the option's full path, the value as received (never a secret) and what was expected.
 * NaN, Infinity, negative numbers and wrong types are refused here, so that they can never
 * unbound a cache, lift a limit or turn a timer into a busy loop.
 */
import { describeValue } from './describe-value.ts'
import { closest } from './did-you-mean.ts'
import { OptionError } from './errors.ts'

/** The longest delay a Node timer honours (2^31 - 1 ms): a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647

/** The rule of one option. Build them with the functions below rather than by hand. */
export interface OptionRule {
  /** What a valid value is, for the message: `an integer from 1 to 64`. */
  readonly expected: string
  /** Whether a given value (never `undefined`: an absent option takes its default) is valid. */
  readonly accepts: (value: unknown) => boolean
  /** The rule of every item, checked after `accepts`, when the value is a list. */
  readonly items?: OptionRule | undefined
  /** The rules of the value's own fields, checked after `accepts`, when it is an object of options. */
  readonly fields?: OptionRules | undefined
  /** Checked after `fields`: a rule across fields (`initial` at most `max`), as `expected` and `accepts`. */
  readonly across?: { readonly expected: string, readonly accepts: (value: Record<string, unknown>) => boolean } | undefined
  /** The option must be given. */
  readonly required?: boolean | undefined
  /** The value is never shown in a message, only its type. */
  readonly secret?: boolean | undefined
  /** Not an option any more: any value is refused with this explanation instead of a did-you-mean. */
  readonly retired?: string | undefined
}

/** The rules of an options object, by option name. */
export type OptionRules = Readonly<Record<string, OptionRule>>

/** Where options are checked, for the messages. */
export interface OptionsPlace {
  /** Prefix of every option's path, e.g. `kubernetes.tuning` (default: none). */
  readonly path?: string | undefined
  /** The function the options were given to, e.g. `openFeastRegistry` (default: none, the plugin's options). */
  readonly owner?: string | undefined
}

/** An integer from `min` to `max`, both included (by default, any safe integer from `min`). */
export function integer (min: number, max: number = Number.MAX_SAFE_INTEGER): OptionRule {
  const expected = max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`
  return { expected, accepts: (value) => Number.isInteger(value) && (value as number) >= min && (value as number) <= max }
}

/** A finite number of seconds from `min` to `max` (by default, any finite number from `min`). */
export function seconds (min: number, max: number = Number.POSITIVE_INFINITY): OptionRule {
  return finite(min, max, 'seconds')
}

/** A finite number of milliseconds from `min` to `max` (at most {@link MAX_TIMER_MS} for a timer). */
export function milliseconds (min: number, max: number = MAX_TIMER_MS): OptionRule {
  return finite(min, max, 'milliseconds')
}

function finite (min: number, max: number, unit: string): OptionRule {
  const expected = max === Number.POSITIVE_INFINITY ? `a finite number of ${unit} of at least ${min}` : `a number of ${unit} from ${min} to ${max}`
  return { expected, accepts: (value) => Number.isFinite(value) && (value as number) >= min && (value as number) <= max }
}

/** One of `values`. */
export function oneOf (...values: readonly unknown[]): OptionRule {
  return { expected: `one of ${values.map((value) => JSON.stringify(value)).join(', ')}`, accepts: (value) => values.includes(value) }
}

/** `true` or `false`: a truthy string such as `'false'` must not switch a behaviour on. */
export function boolean (): OptionRule {
  return { expected: 'true or false', accepts: (value) => typeof value === 'boolean' }
}

/** A function. */
export function func (): OptionRule {
  return { expected: 'a function', accepts: (value) => typeof value === 'function' }
}

/** A string; with `pattern`, one that matches it, described by `expected`. */
export function text (options: { readonly nonEmpty?: boolean, readonly pattern?: RegExp, readonly expected?: string } = {}): OptionRule {
  const { nonEmpty = false, pattern } = options
  return {
    expected: options.expected ?? (nonEmpty ? 'a non-empty string' : 'a string'),
    accepts: (value) => typeof value === 'string' && (!nonEmpty || value !== '') && (pattern === undefined || pattern.test(value))
  }
}

/** A list whose every item `item` accepts (an item's message names it as `option[2]`). */
export function listOf (item: OptionRule): OptionRule {
  return { expected: `a list whose every item is ${item.expected}`, accepts: Array.isArray, items: item }
}

/** An object (not a list); with `fields`, each of its fields checked by its own rule. */
export function object (fields?: OptionRules, across?: OptionRule['across']): OptionRule {
  return { expected: 'an object', accepts: isObject, fields, across }
}

/** An object with these methods, e.g. a logger (`debug`, `info`, `warn`, `error`). */
export function methods (...names: readonly string[]): OptionRule {
  return {
    expected: `an object with the methods ${names.join(', ')}`,
    accepts: (value) => (isObject(value) || typeof value === 'function') && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
  }
}

/** Any of `rules` (`a list, a string or an object`). */
export function anyOf (...rules: readonly OptionRule[]): OptionRule {
  return { expected: rules.map((rule) => rule.expected).join(', or '), accepts: (value) => rules.some((rule) => rule.accepts(value)) }
}

/** Anything: an option checked elsewhere (the `config` loader), listed so a misspelling of it is caught. */
export function unchecked (): OptionRule {
  return { expected: 'anything', accepts: () => true }
}

/** `rule`, and the option must be given. */
export function required (rule: OptionRule): OptionRule {
  return { ...rule, required: true }
}

/**
 * An option that no longer exists, refused with `why`: without it, a key that was an option
 * would be answered with the did-you-mean of its closest neighbour, which may mean something
 * else (`informer.watch` is not `informer.watchTimeoutSeconds`).
 */
export function retired (why: string): OptionRule {
  return { expected: 'nothing', accepts: () => false, retired: why }
}

/**
 * An option of another entry point, refused here with `why` (what to do instead): a caller the
 * types do not stop would otherwise pass it and get no effect and no word.
 */
export function absent (why: string): OptionRule {
  return { expected: `absent: ${why}`, accepts: () => false }
}

/** `rule`, with the value never shown in a message. */
export function secret (rule: OptionRule): OptionRule {
  return { ...rule, secret: true }
}

/**
 * Checks `options` against `rules`; `undefined` options are none given. Throws an
 * {@link OptionError} at the first invalid option. A key that is not an option but is close
 * to one (`maxTokenLenght`) is refused with a did-you-mean; other unknown keys are left alone,
 * since frameworks pass their own (Fastify's `prefix`).
 */
export function checkOptions (options: unknown, rules: OptionRules, place: OptionsPlace = {}): void {
  if (options === undefined) return
  const owner = place.owner === undefined ? '' : `${place.owner}: `
  if (!isObject(options)) {
    throw new OptionError(`${owner}${place.path ?? 'the options'} must be an object, got ${describeValue(options)}`, { option: place.path })
  }
  checkFields(options, rules, place.path, owner)
}

function checkFields (options: Record<string, unknown>, rules: OptionRules, path: string | undefined, owner: string): void {
  const known = Object.keys(rules)
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(rules, key)) continue
    const guess = closest(key, known)
    if (guess !== undefined) {
      const option = join(path, key)
      throw new OptionError(`${owner}${option} is not an option (did you mean ${join(path, guess)}?)`, { option })
    }
  }
  for (const [key, rule] of Object.entries(rules)) checkValue(options[key], rule, join(path, key), owner)
}

function checkValue (value: unknown, rule: OptionRule, option: string, owner: string): void {
  if (value === undefined) {
    if (rule.required === true) throw new OptionError(`${owner}${option} must be ${rule.expected}, got nothing`, { option })
    return
  }
  if (rule.retired !== undefined) throw new OptionError(`${owner}${option} is no longer an option: ${rule.retired}`, { option })
  if (!rule.accepts(value)) {
    throw new OptionError(`${owner}${option} must be ${rule.expected}, got ${describeValue(value, rule.secret)}`, { option })
  }
  if (rule.items !== undefined) {
    const item = required(rule.secret === true ? secret(rule.items) : rule.items)
    const list = value as readonly unknown[]
    for (let i = 0; i < list.length; i++) checkValue(list[i], item, `${option}[${i}]`, owner)
  }
  if (rule.fields !== undefined) checkFields(value as Record<string, unknown>, rule.fields, option, owner)
  if (rule.across !== undefined && !rule.across.accepts(value as Record<string, unknown>)) {
    throw new OptionError(`${owner}${option} must be ${rule.across.expected}`, { option })
  }
}

function join (path: string | undefined, key: string): string {
  return path === undefined || path === '' ? key : `${path}.${key}`
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
