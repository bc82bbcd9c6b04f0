import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { decodeJsonSegment, decodeSegment, isCompactJws } from '../../src/base/jwt-segments.ts'

const encode = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

describe('isCompactJws: the one shape check every verifier runs first', () => {
  test('accepts three unpadded base64url segments, the signature possibly empty', () => {
    assert.equal(isCompactJws('eyJh.eyJz.c2ln'), true)
    assert.equal(isCompactJws('eyJh.eyJz.'), true)
  })

  test('refuses padding, the standard alphabet, two or four segments and an empty header or payload', () => {
    for (const token of ['eyJh.eyJz.c2ln=', 'eyJh.ey+z.c2ln', 'eyJh.eyJz', 'a.b.c.d', '.eyJz.c2ln', 'eyJh..c2ln']) {
      assert.equal(isCompactJws(token), false, token)
    }
  })
})

describe('decodeJsonSegment: the one base64url-JSON decoder', () => {
  test('gives the object a segment encodes', () => {
    assert.deepEqual(decodeJsonSegment(encode({ alg: 'RS256', kid: 'k1' })), { alg: 'RS256', kid: 'k1' })
  })

  test('gives undefined for JSON that is not an object, and for text that is not JSON', () => {
    for (const segment of [encode([1]), encode('null'), encode('3'), encode('{"a":'), '!!!']) assert.equal(decodeJsonSegment(segment), undefined, segment)
  })

  test('with refuseReplacement, leaves bytes that were not UTF-8 undecided', () => {
    const segment = Buffer.concat([Buffer.from('{"sub":"'), Buffer.from([0xff]), Buffer.from('"}')]).toString('base64url')
    assert.deepEqual(decodeJsonSegment(segment), { sub: '\uFFFD' })
    assert.equal(decodeJsonSegment(segment, true), undefined)
  })

  test('decodeSegment picks a segment of a token by index, and undefined past the last one', () => {
    const token = `${encode({ typ: 'JWT' })}.${encode({ exp: 5 })}.sig`
    assert.deepEqual([decodeSegment(token, 0), decodeSegment(token, 1), decodeSegment(token, 3)], [{ typ: 'JWT' }, { exp: 5 }, undefined])
  })
})

describe('isCompactJws asked twice in one request', () => {
  test('a token found canonical stays canonical, and the next token is judged on its own', () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2k'
    assert.equal(isCompactJws(token), true)
    assert.equal(isCompactJws(token), true)
    assert.equal(isCompactJws(`${token}=`), false)
    // The same signature spelt with set unused bits: not canonical, although one character away.
    assert.equal(isCompactJws('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2l'), false)
  })
})
