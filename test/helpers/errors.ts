/**
 * One way to assert an error: `expectError(action, { type, code, status, message, ... })`, built on
 * node:assert's `throws`/`rejects`, whose failure says what was expected and what came instead.
 */
import assert from 'node:assert/strict'
import { isDeepStrictEqual, inspect } from 'node:util'

/**
 * What the error must be. `type` is checked with instanceof; `message` (and any other string field)
 * equals a string or matches a RegExp; every other field is compared deeply. A RegExp alone stands
 * for `{ message: RegExp }`.
 */
export interface ErrorExpectation {
  readonly type?: ErrorClass<Error>
  readonly name?: string | RegExp
  readonly code?: string | RegExp
  readonly status?: number
  readonly statusCode?: number
  readonly message?: string | RegExp
  readonly [field: string]: unknown
}

type Expected = ErrorExpectation | RegExp

/** Asserts that `action` rejects (a promise, or a function returning one) with an error as `expected`. */
export function expectError (action: PromiseLike<unknown> | (() => PromiseLike<unknown>), expected: Expected): Promise<void>
/** Asserts that `action` throws an error as `expected`. */
export function expectError (action: () => unknown, expected: Expected): void
export function expectError (action: PromiseLike<unknown> | (() => unknown), expected: Expected): Promise<void> | undefined {
  const matches = matcher(expected)
  if (typeof action !== 'function') return assert.rejects(Promise.resolve(action), matches, resolved(expected))
  let result: unknown
  // An action that returns a promise is checked by `rejects` below, not as a throw here.
  assert.throws(() => {
    result = action()
    if (isThenable(result)) throw ASYNC
  }, (error: unknown) => error === ASYNC || matches(error), `expected an error ${describe(expected)}, but nothing was thrown`)
  return isThenable(result) ? assert.rejects(Promise.resolve(result), matches, resolved(expected)) : undefined
}

const ASYNC = Symbol('async action')

function resolved (expected: Expected): string {
  return `expected a rejection ${describe(expected)}, but the promise resolved`
}

function isThenable (value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function'
}

function matcher (expected: Expected): (error: unknown) => true {
  const wanted: ErrorExpectation = expected instanceof RegExp ? { message: expected } : expected
  return (error) => {
    const misses: string[] = []
    const { type, ...fields } = wanted
    if (type !== undefined && !(error instanceof type)) misses.push(`not an instance of ${type.name}`)
    for (const [field, want] of Object.entries(fields)) {
      const got = (error as Record<string, unknown> | null | undefined)?.[field]
      const ok = want instanceof RegExp ? typeof got === 'string' && want.test(got) : isDeepStrictEqual(got, want)
      if (!ok) misses.push(`${field} ${inspect(got)}`)
    }
    if (misses.length > 0) {
      throw new assert.AssertionError({ message: `expected an error ${describe(expected)}; got ${describeError(error)} (${misses.join(', ')})`, actual: error, expected, operator: 'expectError' })
    }
    return true
  }
}

function describe (expected: Expected): string {
  if (expected instanceof RegExp) return `with message matching ${String(expected)}`
  const { type, ...fields } = expected
  const parts = Object.entries(fields).map(([field, want]) => `${field} ${want instanceof RegExp ? String(want) : inspect(want)}`)
  return [type === undefined ? '' : `of type ${type.name}`, parts.length === 0 ? '' : `with ${parts.join(', ')}`].filter((part) => part !== '').join(' ')
}

function describeError (error: unknown): string {
  if (!(error instanceof Error)) return inspect(error)
  const code = (error as { code?: unknown }).code
  return `${error.name}${code === undefined ? '' : ` [${String(code)}]`}: ${error.message}`
}

/** An error class, for instanceof checks. */
export type ErrorClass<E extends Error> = abstract new (...args: any[]) => E

/** Runs `fn` and returns the error it throws, asserting it is an instance of `type`: for several assertions on one error. */
export function thrownBy<E extends Error> (fn: () => unknown, type: ErrorClass<E>): E {
  try {
    fn()
  } catch (error) {
    assert.ok(error instanceof type, `expected a ${type.name}, got ${describeError(error)}`)
    return error
  }
  return assert.fail(`expected a ${type.name}, but nothing was thrown`)
}

/** Awaits `promise` and returns the error it rejects with, asserting it is an instance of `type`. */
export async function rejectionOf<E extends Error> (promise: PromiseLike<unknown>, type: ErrorClass<E>): Promise<E> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof type, `expected a ${type.name}, got ${describeError(error)}`)
    return error
  }
  return assert.fail(`expected a rejection with a ${type.name}, but the promise resolved`)
}
