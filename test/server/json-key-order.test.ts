/**
 * The order in which a JSON text writes an object's keys (src/server/json-key-order.ts), which
 * `JSON.parse` loses for integer-like keys.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { isIntegerLikeKey, keysAsWritten } from '../../src/server/json-key-order.ts'
import { nestedList } from '../helpers/feast-checks.ts'

describe('keysAsWritten', () => {
  test('lists the keys of a member of the root object in the order written, integer-like ones included, where JSON.parse puts those first', () => {
    const text = '{"features": ["a:b"], "entities": {"zip": [1], "42": [2], "7": [3], "id": [4]}}'
    assert.deepEqual(Object.keys(JSON.parse(text).entities), ['7', '42', 'zip', 'id'])
    assert.deepEqual(keysAsWritten(text, 'entities'), ['zip', '42', '7', 'id'])
  })

  test('reads a repeated member from its last occurrence, the one JSON.parse keeps, and a repeated key at its first place', () => {
    assert.deepEqual(keysAsWritten('{"entities": {"a": [1]}, "entities": {"b": [1], "9": [2], "b": [3]}}', 'entities'), ['b', '9'])
  })

  test('decodes escaped key names, and skips strings, nested values and white space whatever they hold', () => {
    const text = `\uFEFF {\n "x": {"entities": {"no": 1}}, "s": "}\\"{", "d": ${nestedList(10_000)},\t"ent\\u0069ties" : { "a\\"b" : [ "}" ], "1" : [] } }`
    assert.deepEqual(keysAsWritten(text, 'entities'), ['a"b', '1'])
  })

  test('is undefined when the root is not an object or the member is absent or not an object', () => {
    for (const text of ['[{"entities": {}}]', '{"features": []}', '{"entities": [1]}', '"entities"']) assert.equal(keysAsWritten(text, 'entities'), undefined, text)
  })

  test('ends on a text that is not JSON without failing', () => {
    for (const text of ['', '{', '{"entities"', '{"entities": {"a', '{"entities": {"a": [1', '{"entities" {"a": 1}}', '{"\\', '{"entities": {"a": 1 "b": 2}}']) {
      const keys = keysAsWritten(text, 'entities')
      assert.ok(keys === undefined || Array.isArray(keys), text)
    }
  })
})

describe('isIntegerLikeKey', () => {
  test('is true for the keys JavaScript orders as integer indexes only', () => {
    for (const key of ['0', '7', '42', '4294967294']) assert.equal(isIntegerLikeKey(key), true, key)
    for (const key of ['', '07', '-1', '1.5', '1e3', ' 7', '4294967295', '99999999999', 'x7']) assert.equal(isIntegerLikeKey(key), false, key)
    // As JavaScript orders them.
    assert.deepEqual(Object.keys({ b: 1, 4294967295: 1, 4294967294: 1, '07': 1, 7: 1 }), ['7', '4294967294', 'b', '4294967295', '07'])
  })
})
