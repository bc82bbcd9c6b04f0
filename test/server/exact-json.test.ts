/** JSON text with BigInts written as the integers they are (src/server/exact-json.ts). */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { exactJson, exactJsonByWalking } from '../../src/server/exact-json.ts'
import { nestedList } from '../helpers/feast-checks.ts'

/** Every UTF-16 code unit, lone surrogates too: each escape JSON writes, and text it writes as is. */
const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)) })

/** Answers and stored values as exactJson meets them, and the odd values JSON.stringify has rules for. */
const jsonLike = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), fc.double(), fc.constantFrom(-0, 0, NaN, Infinity, -Infinity, null, true, false, undefined),
    fc.integer(), anyText, fc.date({ noInvalidDate: false }), fc.constant({ toJSON: (key: string) => `toJSON of ${key}` })
  ),
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('list'), tie('object')),
  list: fc.array(tie('value'), { maxLength: 6 }),
  // Keys that look like integers too: JavaScript writes those first, in both writers alike.
  object: fc.dictionary(fc.oneof(anyText, fc.nat({ max: 20 }).map(String)), tie('value'), { maxKeys: 6 })
})).value

describe('exactJson', () => {
  test('writes a BigInt as the integer it is, however large, where it stands', () => {
    assert.equal(exactJson({ a: [2n ** 64n, -(2n ** 63n), 0n], b: { c: 1234567890123456789n } }), '{"a":[18446744073709551616,-9223372036854775808,0],"b":{"c":1234567890123456789}}')
    assert.equal(exactJson(-5n), '-5')
  })

  test('writes everything else as JSON.stringify does (property)', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => { assert.equal(exactJson(value), JSON.stringify(value)) }), { numRuns: 500 })
  })

  test('writes every value as the walk without JSON.stringify writes it, BigInts and all (property)', () => {
    fc.assert(fc.property(jsonLike, (value) => {
      if (value === undefined) return
      assert.equal(exactJson(value), exactJsonByWalking(value))
    }), { numRuns: 2000 })
  })

  test('writes an answer whose values hold a BigInt below the levels JSON.stringify is tried at, as the walk does', () => {
    const answer = { results: [{ values: [[[[[1n, -0, 'a"\\n']]]]], statuses: ['PRESENT'] }] }
    assert.equal(exactJson(answer), exactJsonByWalking(answer))
    assert.equal(exactJson(answer), '{"results":[{"values":[[[[[1,0,"a\\"\\\\n"]]]]],"statuses":["PRESENT"]}]}')
  })

  test('leaves out members JSON has no text for and writes such items null, and calls toJSON, as JSON.stringify does', () => {
    const value = { a: undefined, b: () => 1, c: Symbol('c'), d: [undefined, () => 1], e: new Date(0), f: { toJSON: (key: string) => `key ${key}` }, g: Object(7) as unknown, h: Object.assign(() => 1, { toJSON: () => 'a function with toJSON' }) }
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
