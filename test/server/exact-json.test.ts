/** JSON text with BigInts written as the integers they are (src/server/exact-json.ts). */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { exactJson } from '../../src/server/exact-json.ts'
import { nestedList } from '../helpers/feast-checks.ts'

describe('exactJson', () => {
  test('writes a BigInt as the integer it is, however large, where it stands', () => {
    assert.equal(exactJson({ a: [2n ** 64n, -(2n ** 63n), 0n], b: { c: 1234567890123456789n } }), '{"a":[18446744073709551616,-9223372036854775808,0],"b":{"c":1234567890123456789}}')
    assert.equal(exactJson(-5n), '-5')
  })

  test('writes everything else as JSON.stringify does (property)', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => { assert.equal(exactJson(value), JSON.stringify(value)) }), { numRuns: 500 })
  })

  test('leaves out members JSON has no text for and writes such items null, and calls toJSON, as JSON.stringify does', () => {
    const value = { a: undefined, b: () => 1, c: Symbol('c'), d: [undefined, () => 1], e: new Date(0), f: { toJSON: (key: string) => `key ${key}` }, g: Object(7) as unknown }
    assert.equal(exactJson(value), JSON.stringify(value))
    assert.equal(exactJson({ a: undefined }), '{}')
  })

  test('ignores a toJSON a program gave BigInt, which would write a string', () => {
    const prototype = BigInt.prototype as unknown as { toJSON?: () => string }
    prototype.toJSON = function (this: bigint) { return this.toString() }
    try {
      assert.equal(JSON.stringify([1n]), '["1"]')
      assert.equal(exactJson([1n]), '[1]')
    } finally {
      delete prototype.toJSON
    }
  })

  test('writes 10,000 levels of nesting without recursion, and refuses a cycle with a TypeError', () => {
    assert.equal(exactJson(JSON.parse(nestedList(10_000))), nestedList(10_000))
    const cycle: unknown[] = []
    cycle.push([cycle])
    assert.throws(() => exactJson(cycle), TypeError)
  })
})
