import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, test } from 'node:test'
import { createTokenDigest } from '../../src/base/token-digest.ts'

describe('the cache key of a bearer token', () => {
  test('is the SHA-256 of the whole token, in base64url', () => {
    const digest = createTokenDigest()
    assert.equal(digest('a.b.c'), createHash('sha256').update('a.b.c').digest('base64url'))
  })

  test('differs for tokens that differ only in their last character', () => {
    const digest = createTokenDigest()
    assert.notEqual(digest('header.payload.signatureA'), digest('header.payload.signatureB'))
  })

  test('is the same for an equal token arriving as another string, and right again after a different one', () => {
    const digest = createTokenDigest()
    const first = digest(['x', 'y', 'z'].join('.'))
    assert.equal(digest('x.y.z'), first)
    digest('other')
    assert.equal(digest('x.y.z'), first)
  })
})
