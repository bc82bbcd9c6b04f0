import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { bearerTokenOf, DEFAULT_MAX_TOKEN_LENGTH } from '../../../src/base/http/bearer.ts'
import { AuthError } from '../../../src/base/errors.ts'
import { expectError } from '../../helpers/errors.ts'

const accepted: Array<[string, string, string]> = [
  ['the canonical form', 'Bearer abc.def.ghi', 'abc.def.ghi'],
  ['a lower-case scheme', 'bearer abc', 'abc'],
  ['an upper-case scheme', 'BEARER abc', 'abc'],
  ['a mixed-case scheme', 'BeArEr abc', 'abc'],
  ['several spaces after the scheme', 'Bearer    abc', 'abc'],
  ['trailing spaces', 'Bearer abc   ', 'abc'],
  ['every token68 character', 'Bearer aZ09-._~+/', 'aZ09-._~+/'],
  ['trailing "=" padding', 'Bearer abc==', 'abc==']
]

const rejected: Array<[string, string, string]> = [
  ['an empty header', '', 'missing_token'],
  ['another scheme', 'Basic YWxpY2U6c2VjcmV0', 'missing_token'],
  ['a scheme that only starts with "Bearer"', 'Bearerabc', 'missing_token'],
  ['the scheme alone', 'Bearer', 'missing_token'],
  ['a tab instead of a space (not a separator in RFC 7235)', 'Bearer\tabc', 'missing_token'],
  ['the scheme followed by spaces only', 'Bearer   ', 'malformed_header'],
  ['two tokens', 'Bearer abc def', 'malformed_header'],
  ['a comma-separated list', 'Bearer abc,def', 'malformed_header'],
  ['"=" inside the token', 'Bearer ab=c', 'malformed_header'],
  ['padding alone', 'Bearer ==', 'malformed_header'],
  ['a quoted token', 'Bearer "abc"', 'malformed_header'],
  ['a non-ASCII character', 'Bearer abcé', 'malformed_header'],
  ['a control character', 'Bearer abc\u0000', 'malformed_header']
]

/** The code of a refusal `bearerTokenOf` returned (a refusal is returned, never thrown). */
function codeOf (refusal: unknown): string {
  assert.ok(refusal instanceof AuthError, `expected the header to be refused with an AuthError, got ${String(refusal)}`)
  return refusal.code
}

describe('bearerTokenOf', () => {
  for (const [name, header, token] of accepted) {
    test(`accepts ${name}`, () => {
      assert.equal(bearerTokenOf(header, ['Authorization', header]), token)
    })
  }

  for (const [name, header, code] of rejected) {
    test(`rejects ${name} as ${code}`, () => {
      assert.equal(codeOf(bearerTokenOf(header, ['Authorization', header])), code)
    })
  }

  test('rejects a missing header as missing_token', () => {
    assert.equal(codeOf(bearerTokenOf(undefined, [])), 'missing_token')
  })

  test('rejects a header Node delivered as a list as malformed_header', () => {
    assert.equal(codeOf(bearerTokenOf(['Bearer a', 'Bearer b'], undefined)), 'malformed_header')
  })

  test('rejects two Authorization headers in the raw header list, whatever their case', () => {
    const raw = ['Host', 'x', 'authorization', 'Bearer abc', 'AUTHORIZATION', 'Bearer abc']
    assert.equal(codeOf(bearerTokenOf('Bearer abc', raw)), 'malformed_header')
  })

  test('ignores header names that only contain "authorization"', () => {
    const raw = ['Authorization', 'Bearer abc', 'Proxy-Authorization', 'Basic x', 'X-Authorization', 'y']
    assert.equal(bearerTokenOf('Bearer abc', raw), 'abc')
  })

  test('without a raw header list, a single header value is read', () => {
    assert.equal(bearerTokenOf('Bearer abc', undefined), 'abc')
  })

  test('accepts a token of exactly the maximum length, and rejects one character more as token_too_long', () => {
    const max = 'a'.repeat(DEFAULT_MAX_TOKEN_LENGTH)
    assert.equal(bearerTokenOf(`Bearer ${max}`, undefined), max)
    assert.equal(codeOf(bearerTokenOf(`Bearer ${max}a`, undefined)), 'token_too_long')
  })

  test('checks the length before the characters: an oversized token of garbage is token_too_long', () => {
    assert.equal(codeOf(bearerTokenOf(`Bearer ${'"'.repeat(20)}`, undefined, 10)), 'token_too_long')
  })

  test('honours a custom maximum length', () => {
    assert.equal(bearerTokenOf('Bearer abcde', undefined, 5), 'abcde')
    assert.equal(codeOf(bearerTokenOf('Bearer abcdef', undefined, 5)), 'token_too_long')
  })

  test('every rejection is a 401, returned rather than thrown', () => {
    for (const [, header] of rejected) {
      expectError(() => { throw bearerTokenOf(header, undefined) }, { type: AuthError, status: 401 })
    }
  })
})
