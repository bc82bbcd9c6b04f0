/** The answers to refused requests (src/adapters/challenge.ts), shared between requests. */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AuthError, isSharedRefusal, sharedRefusal } from '../../src/base/errors.ts'
import { rejectionFor } from '../../src/adapters/challenge.ts'

describe('rejectionFor', () => {
  test('answers the same refusal with one shared answer, frozen so that no request can alter the next one\'s', () => {
    const first = rejectionFor(new AuthError('unknown_key', 'the token was not signed by a key of the identity provider'), 'feast')
    const second = rejectionFor(new AuthError('unknown_key', 'the token was not signed by a key of the identity provider'), 'feast')
    assert.equal(second, first)
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.headers) && Object.isFrozen(first.body))
    assert.equal(first.headers['www-authenticate'], 'Bearer realm="feast", error="invalid_token", error_description="the token was not signed by a key of the identity provider"')
  })

  test('gives each message, realm and Retry-After its own answer', () => {
    const base = rejectionFor(new AuthError('invalid_claims', 'the token\'s "nbf" claim is invalid'), 'feast')
    assert.equal(base.headers['www-authenticate'], 'Bearer realm="feast", error="invalid_token", error_description="the token\'s \'nbf\' claim is invalid"')
    assert.notEqual(rejectionFor(new AuthError('invalid_claims', 'the token\'s "iat" claim is invalid'), 'feast'), base)
    assert.match(rejectionFor(new AuthError('invalid_claims', 'the token\'s "nbf" claim is invalid'), 'other').headers['www-authenticate'] ?? '', /^Bearer realm="other"/)
    const soon = rejectionFor(new AuthError('provider_unavailable', 'down', { retryAfterSeconds: 2 }), 'feast')
    const later = rejectionFor(new AuthError('provider_unavailable', 'down', { retryAfterSeconds: 30 }), 'feast')
    assert.deepEqual([soon.status, soon.headers['retry-after'], later.headers['retry-after']], [503, '2', '30'])
  })

  test('answers a shared refusal, frozen itself, with the same answer every time; a fresh error is not shared', () => {
    const refusal = sharedRefusal('invalid_signature', 'the token signature is invalid')
    assert.ok(Object.isFrozen(refusal) && isSharedRefusal(refusal))
    assert.equal(rejectionFor(refusal, 'feast'), rejectionFor(refusal, 'feast'))
    assert.equal(rejectionFor(refusal, 'other').headers['www-authenticate']?.startsWith('Bearer realm="other"'), true)
    assert.equal(isSharedRefusal(new AuthError('invalid_signature', 'the token signature is invalid')), false)
  })

  test('keeps answering each refusal correctly past the number of answers it keeps', () => {
    for (let i = 0; i < 600; i++) {
      const answer = rejectionFor(new AuthError('token_too_long', `the bearer token is longer than ${i} characters`), 'feast')
      assert.equal(answer.body.message, `the bearer token is longer than ${i} characters`)
    }
  })
})
