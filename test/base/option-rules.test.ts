/**
 * The one mechanism that checks options given in code: every rule refuses NaN, Infinity,
 * negative numbers and wrong types with an OptionError naming the option's full path, the
 * value as received (never a secret) and what was expected.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { OptionError } from '../../src/base/errors.ts'
import {
  absent, anyOf, boolean, checkOptions, func, integer, listOf, MAX_TIMER_MS, methods, milliseconds, object, oneOf, required, retired,
  seconds, secret, text, unchecked,
  type OptionRules
} from '../../src/base/option-rules.ts'

/** Asserts that `options` is refused, naming `option`, with exactly `message`. */
function refused (options: unknown, rules: OptionRules, option: string | undefined, message: string, place: Parameters<typeof checkOptions>[2] = {}): void {
  assert.throws(() => { checkOptions(options, rules, place) }, (error: unknown) => {
    assert.ok(error instanceof OptionError, 'an OptionError')
    assert.equal(error.code, 'FEAST_AUTHZ_OPTION')
    assert.equal(error.option, option)
    assert.equal(error.message, `feast-authz: ${message}`)
    return true
  })
}

describe('integer', () => {
  const rules = { size: integer(0, 100) }
  for (const [label, value, shown] of [
    ['NaN', Number.NaN, 'NaN'],
    ['Infinity', Number.POSITIVE_INFINITY, 'Infinity'],
    ['a negative number', -1, '-1'],
    ['a fraction', 1.5, '1.5'],
    ['a number above the maximum', 101, '101'],
    ['a numeric string', '10', '"10"'],
    ['a boolean', true, 'true'],
    ['null', null, 'null']
  ] as const) {
    test(`${label} is refused with the option, the value and the range`, () => {
      refused({ size: value }, rules, 'size', `size must be an integer from 0 to 100, got ${shown}`)
    })
  }

  test('the bounds themselves are accepted', () => {
    checkOptions({ size: 0 }, rules)
    checkOptions({ size: 100 }, rules)
  })

  test('without a maximum, any safe integer from the minimum is accepted, and the message says so', () => {
    checkOptions({ size: Number.MAX_SAFE_INTEGER }, { size: integer(1) })
    refused({ size: 0 }, { size: integer(1) }, 'size', 'size must be an integer of at least 1, got 0')
    refused({ size: 2 ** 60 }, { size: integer(1) }, 'size', `size must be an integer of at least 1, got ${2 ** 60}`)
  })
})

describe('seconds and milliseconds', () => {
  test('NaN, Infinity and negative durations are refused', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0.5]) {
      refused({ wait: value }, { wait: seconds(0, 60) }, 'wait', `wait must be a number of seconds from 0 to 60, got ${String(value)}`)
    }
  })

  test('without a maximum, seconds accept any finite duration from the minimum, and the message says so', () => {
    checkOptions({ ttl: 1e12 }, { ttl: seconds(0) })
    refused({ ttl: Number.POSITIVE_INFINITY }, { ttl: seconds(0) }, 'ttl', 'ttl must be a finite number of seconds of at least 0, got Infinity')
  })

  test('fractions within the range are accepted', () => {
    checkOptions({ wait: 0.05 }, { wait: seconds(0, 60) })
    checkOptions({ wait: 12.5 }, { wait: milliseconds(0) })
  })

  test('a delay longer than a Node timer honours is refused: it would fire at once, in a loop', () => {
    checkOptions({ wait: MAX_TIMER_MS }, { wait: milliseconds(1) })
    refused({ wait: MAX_TIMER_MS + 1 }, { wait: milliseconds(1) }, 'wait', `wait must be a number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${MAX_TIMER_MS + 1}`)
  })
})

describe('the other rules', () => {
  test('oneOf names the values accepted', () => {
    checkOptions({ mode: 'b' }, { mode: oneOf('a', 'b') })
    refused({ mode: 'c' }, { mode: oneOf('a', 'b') }, 'mode', 'mode must be one of "a", "b", got "c"')
  })

  test('boolean refuses a truthy string', () => {
    refused({ on: 'false' }, { on: boolean() }, 'on', 'on must be true or false, got "false"')
  })

  test('func refuses what cannot be called', () => {
    refused({ now: 5 }, { now: func() }, 'now', 'now must be a function, got 5')
  })

  test('text can demand a non-empty string, or a pattern described in its own words', () => {
    refused({ path: '' }, { path: text({ nonEmpty: true }) }, 'path', 'path must be a non-empty string, got ""')
    refused({ route: 'x' }, { route: text({ pattern: /^\//, expected: 'a path starting with /' }) }, 'route', 'route must be a path starting with /, got "x"')
  })

  test('methods names the methods an object must have', () => {
    checkOptions({ logger: console }, { logger: methods('info', 'warn') })
    refused({ logger: { info () {} } }, { logger: methods('info', 'warn') }, 'logger', 'logger must be an object with the methods info, warn, got a mapping')
  })

  test('anyOf lists every form accepted', () => {
    const rules = { permissions: anyOf({ expected: 'a list', accepts: Array.isArray }, text()) }
    checkOptions({ permissions: [] }, rules)
    checkOptions({ permissions: 'p.yaml' }, rules)
    refused({ permissions: 42 }, rules, 'permissions', 'permissions must be a list, or a string, got 42')
  })

  test('unchecked accepts anything: the option is checked by its own loader', () => {
    checkOptions({ config: 42 }, { config: unchecked() })
  })

  test('a list item is named by its index', () => {
    refused({ origins: ['https://a.example', 7] }, { origins: listOf(text()) }, 'origins[1]', 'origins[1] must be a string, got 7')
    refused({ origins: 'https://a.example' }, { origins: listOf(text()) }, 'origins', 'origins must be a list whose every item is a string, got "https://a.example"')
  })

  test('a secret value is never shown, only its type', () => {
    refused({ token: 'eyJhbGciOi.secret.value' }, { token: secret(integer(0, 1)) }, 'token', 'token must be an integer from 0 to 1, got a string (value hidden)')
    refused({ secrets: ['hunter2'] }, { secrets: secret(listOf(object())) }, 'secrets[0]', 'secrets[0] must be an object, got a string (value hidden)')
  })
})

describe('nested options', () => {
  const rules: OptionRules = {
    tuning: object({
      maxConcurrentReviews: integer(1, 64),
      backoff: object({ initial: required(milliseconds(0)), max: required(milliseconds(0)) }, {
        expected: 'a backoff whose initial is at most its max',
        accepts: (value) => (value.initial as number) <= (value.max as number)
      })
    })
  }

  test('a nested option is named by its full path, with the path of its place', () => {
    refused({ tuning: { maxConcurrentReviews: Number.NaN } }, rules, 'kubernetes.tuning.maxConcurrentReviews',
      'kubernetes.tuning.maxConcurrentReviews must be an integer from 1 to 64, got NaN', { path: 'kubernetes' })
  })

  test('the function the options were given to prefixes the message', () => {
    refused({ tuning: 5 }, rules, 'tuning', 'createAuthManager: tuning must be an object, got 5', { owner: 'createAuthManager' })
  })

  test('a required option that is missing is refused', () => {
    refused({ tuning: { backoff: { initial: 5 } } }, rules, 'tuning.backoff.max', 'tuning.backoff.max must be a number of milliseconds from 0 to 2147483647, got nothing')
  })

  test('a rule across fields is checked after the fields', () => {
    refused({ tuning: { backoff: { initial: 10, max: 5 } } }, rules, 'tuning.backoff', 'tuning.backoff must be a backoff whose initial is at most its max')
  })

  test('absent and undefined options take their defaults: nothing to check', () => {
    checkOptions(undefined, rules)
    checkOptions({}, rules)
    checkOptions({ tuning: undefined }, rules)
    checkOptions({ tuning: { maxConcurrentReviews: undefined } }, rules)
  })

  test('options that are not an object are refused', () => {
    refused(null, rules, undefined, 'the options must be an object, got null')
    refused([1], rules, undefined, 'openFeastRegistry: the options must be an object, got a list', { owner: 'openFeastRegistry' })
  })
})

describe('unknown keys', () => {
  const rules = { maxTokenLength: integer(1), realm: text() }

  test('a key close to an option is refused with a did-you-mean', () => {
    refused({ maxTokenLenght: 4096 }, rules, 'maxTokenLenght', 'maxTokenLenght is not an option (did you mean maxTokenLength?)')
    refused({ tuning: { maxconcurrentreviews: 2 } }, { tuning: object({ maxConcurrentReviews: integer(1) }) }, 'tuning.maxconcurrentreviews',
      'tuning.maxconcurrentreviews is not an option (did you mean tuning.maxConcurrentReviews?)')
  })

  test('a retired option is refused with why it went, not with the did-you-mean of its neighbour', () => {
    const withRetired = { watchTimeoutSeconds: integer(1), watch: retired('there is no switch any more') }
    refused({ watch: false }, withRetired, 'watch', 'watch is no longer an option: there is no switch any more')
  })

  test('a retired option left out is no error', () => {
    checkOptions({ watchTimeoutSeconds: 5 }, { watchTimeoutSeconds: integer(1), watch: retired('gone') })
  })

  test('an option of another entry point is refused with what to do instead, and left out is no error', () => {
    const express = { maxTokenLength: integer(1), healthRoute: absent('mount a route of your own') }
    refused({ healthRoute: '/ready' }, express, 'healthRoute', 'healthRoute must be absent: mount a route of your own, got "/ready"')
    checkOptions({ maxTokenLength: 10 }, express)
  })

  test('a key close to no option is left alone: frameworks pass their own (Fastify\'s prefix)', () => {
    checkOptions({ prefix: '/api', logLevel: 'warn', realm: 'feast' }, rules)
  })
})
