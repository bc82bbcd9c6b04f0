import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_TOKEN_REUSE_SECONDS, reuseUntil, UNKNOWN_LIFETIME_SECONDS } from '../../src/client/token-lifetime.ts'

const NOW = 1_700_000_000_000
const CAP = NOW + MAX_TOKEN_REUSE_SECONDS * 1000
const UNKNOWN = NOW + UNKNOWN_LIFETIME_SECONDS * 1000

/** An unsigned JWT whose payload is `payload` as written (JSON text, so that `1e400` can be written). */
function jwtWithPayload (payload: string): string {
  return `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from(payload).toString('base64url')}.c2ln`
}
const jwtExpiringAt = (exp: unknown): string => jwtWithPayload(JSON.stringify({ sub: 'x', exp }))

describe('how long a fetched token is reused (reuseUntil)', () => {
  it('reuses an opaque token for expires_in seconds', () => {
    assert.equal(reuseUntil('opaque', 3600, NOW), NOW + 3_600_000)
  })

  it('reuses a JWT until its exp', () => {
    assert.equal(reuseUntil(jwtExpiringAt(NOW / 1000 + 600), undefined, NOW), NOW + 600_000)
  })

  it('takes the earlier of exp and expires_in', () => {
    assert.deepEqual([
      reuseUntil(jwtExpiringAt(NOW / 1000 + 600), 60, NOW),
      reuseUntil(jwtExpiringAt(NOW / 1000 + 60), 600, NOW)
    ], [NOW + 60_000, NOW + 60_000])
  })

  for (const [label, token] of [
    ['1e306', jwtExpiringAt(1e306)],
    ['one second past what a Date holds (8.64e12 s)', jwtExpiringAt(8.64e12 + 1)],
    ['1e400 (Infinity once parsed)', jwtWithPayload('{"sub":"x","exp":1e400}')],
    ['two days from now', jwtExpiringAt(NOW / 1000 + 2 * 86_400)]
  ] as const) {
    it(`reuses a JWT whose exp is ${label} for 24 hours, not longer`, () => {
      assert.equal(reuseUntil(token, undefined, NOW), CAP)
    })
  }

  it('bounds a JWT with an absurd exp to 24 hours even when expires_in says longer too', () => {
    assert.equal(reuseUntil(jwtExpiringAt(1e306), 1e306, NOW), CAP)
  })

  it('does not reuse a JWT whose exp is already past', () => {
    assert.ok(reuseUntil(jwtExpiringAt(NOW / 1000 - 10), 3600, NOW) < NOW)
  })

  it('does not reuse a JWT whose exp is -1e400 (-Infinity once parsed)', () => {
    assert.ok(reuseUntil(jwtWithPayload('{"sub":"x","exp":-1e400}'), undefined, NOW) < NOW)
  })

  for (const exp of ['1700000600', null, true, { at: 1 }]) {
    it(`reads a JWT whose exp is ${JSON.stringify(exp)}, not a number, as one without exp: expires_in counts`, () => {
      assert.equal(reuseUntil(jwtExpiringAt(exp), 60, NOW), NOW + 60_000)
    })
  }

  it('reuses a JWT without exp and without expires_in for 5 minutes', () => {
    assert.equal(reuseUntil(jwtWithPayload('{"sub":"x"}'), undefined, NOW), UNKNOWN)
  })

  it('reuses an opaque token without expires_in for 5 minutes', () => {
    assert.equal(reuseUntil('opaque', undefined, NOW), UNKNOWN)
  })

  it('reads three dot-separated parts whose middle is not JSON as an opaque token', () => {
    assert.equal(reuseUntil('a.b.c', undefined, NOW), UNKNOWN)
  })

  for (const expiresIn of ['1e3', '3600s', ' 3600', '0x1000', null, [3600], { seconds: 3600 }]) {
    it(`reads expires_in ${JSON.stringify(expiresIn)}, which is not a number of seconds, as a missing one`, () => {
      assert.equal(reuseUntil('opaque', expiresIn, NOW), UNKNOWN)
    })
  }

  for (const expiresIn of [0, -3600, '0', -Infinity]) {
    it(`does not reuse a token whose expires_in is ${String(expiresIn)}, even with a later exp: it is already over`, () => {
      assert.equal(reuseUntil(jwtExpiringAt(NOW / 1000 + 600), expiresIn, NOW), NOW)
    })
  }
})
