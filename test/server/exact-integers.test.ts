/**
 * Integers beyond ±(2^53 − 1) read exactly from a body's text (src/server/exact-integers.ts),
 * where `JSON.parse` rounds them. The HTTP behaviour is in feast-checks.test.ts (both servers).
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { integersAsWritten, readExactly } from '../../src/server/exact-integers.ts'
import { exactJson } from '../../src/server/exact-json.ts'
import { nestedList } from '../helpers/feast-checks.ts'
import { expectError } from '../helpers/errors.ts'

/** What a body parser gives for `text`, and what readExactly makes of its `member`. */
function read (text: string, member = 'entities'): unknown {
  return readExactly((JSON.parse(text) as Record<string, unknown>)[member], text, member)
}

describe('readExactly', () => {
  test('reads integers beyond ±(2^53 − 1) as the BigInts the text writes, where JSON.parse reads two of them as one double', () => {
    const text = '{"entities": {"id": [1234567890123456789, 1234567890123456788, -9007199254740993, 7, "x"]}}'
    const parsed = JSON.parse(text) as { entities: { id: number[] } }
    assert.equal(parsed.entities.id[0], parsed.entities.id[1])
    assert.deepEqual(read(text), { id: [1234567890123456789n, 1234567890123456788n, -9007199254740993n, 7, 'x'] })
  })

  test('reads them at any depth, under any key', () => {
    const text = '{"df": {"a": [[1, {"k\\"ey": [9007199254740993]}]], "7": [{"": 18446744073709551617}]}}'
    assert.deepEqual(read(text, 'df'), { 7: [{ '': 18446744073709551617n }], a: [[1, { 'k"ey': [9007199254740993n] }]] })
  })

  test('leaves a number written with a fraction or an exponent the double it is, as Python\'s json reads it as a float', () => {
    assert.deepEqual(read('{"entities": {"id": [1e18, 1234567890123456789.0, 1.5e300, 9007199254740993E0]}}'), { id: [1e18, 1234567890123456768, 1.5e300, 9007199254740992] })
  })

  test('gives back the parsed value itself, text or not, when no number in it may have been rounded', () => {
    const entities = { id: [9007199254740991, -9007199254740991, 1.5, 'x', null, [nestedList(10)]] }
    assert.equal(readExactly(entities, undefined, 'entities'), entities)
    assert.equal(readExactly(entities, '{"entities": {}}', 'entities'), entities)
  })

  test('never writes into the parsed value: what changes is a copy, what does not is shared, a key __proto__ stays a key', () => {
    const text = '{"entities": {"__proto__": [1234567890123456789], "same": [1]}}'
    const parsed = JSON.parse(text) as { entities: Record<string, unknown[]> }
    const exact = readExactly(parsed.entities, text, 'entities')
    assert.deepEqual(Object.entries(parsed.entities)[0], ['__proto__', [1234567890123456768]])
    assert.equal(Object.getPrototypeOf(exact), Object.prototype)
    assert.deepEqual(Object.entries(exact), [['__proto__', [1234567890123456789n]], ['same', [1]]])
    assert.equal(exact.same, parsed.entities.same)
  })

  test('a key given twice counts with its last value, and a member given twice with its last occurrence, as JSON.parse keeps them', () => {
    assert.deepEqual(read('{"entities": {"id": [1234567890123456789]}, "entities": {"id": [1, 1234567890123456788], "id": [3, 1234567890123456787]}}'), { id: [3, 1234567890123456787n] })
    // The last value at a place is a float: it stays one, whatever an earlier integer there said.
    assert.deepEqual(read('{"entities": {"id": [1234567890123456789], "id": [1234567890123456789.0]}}'), { id: [1234567890123456768] })
  })

  test('without the body\'s text, a number that may have been rounded is a 422 naming its place', () => {
    const parsed = JSON.parse('{"id": ["x", 1234567890123456789]}') as unknown
    expectError(() => readExactly(parsed, undefined, 'entities'), {
      statusCode: 422,
      message: 'entities.id[1] is a number beyond ±(2^53 − 1), which JSON.parse may have rounded (it read 1234567890123456800), and the body\'s JSON text was not given to read it exactly'
    })
  })

  test('a text that does not show the parsed number where it is is a 422, never trusted', () => {
    const parsed = JSON.parse('{"id": [1234567890123456789]}') as unknown
    for (const text of ['{"entities": {"id": [1234567890123456000]}}', '{"entities": {"other": [1234567890123456789]}}', '{"entities": {"id": ["1234567890123456789"]}}', '{"features": []}', 'not json']) {
      expectError(() => readExactly(parsed, text, 'entities'), { statusCode: 422, message: /^entities\.id\[0\] is a number beyond .* the body's JSON text does not show it there/ })
    }
  })

  test('reads back every integer a JSON text writes, at any depth, as the text writes it (property)', () => {
    const big = fc.oneof(fc.bigInt({ min: 2n ** 53n, max: 10n ** 30n }), fc.bigInt({ min: -(10n ** 30n), max: -(2n ** 53n) }))
    const value = fc.letrec((tie) => ({
      json: fc.oneof({ depthSize: 'small' }, big, fc.integer(), fc.string(), fc.constant(null), fc.array(tie('json'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('json'), { maxKeys: 4, noNullPrototype: true }))
    })).json
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.array(value, { maxLength: 4 }), { noNullPrototype: true }), (entities) => {
      const text = exactJson({ features: ['v:f'], entities })
      assert.deepStrictEqual(read(text), entities)
    }), { numRuns: 300 })
  })
})

describe('integersAsWritten', () => {
  test('skips strings, white space and other members whatever they hold', () => {
    const text = `\uFEFF {"s": "[1234567890123456789", "entities" : { "a" : [ "]1234567890123456788" , 1234567890123456787 ] , "d": ${nestedList(10_000)} } }`
    assert.deepEqual([...integersAsWritten(text, 'entities')], [['["a",1]', '1234567890123456787']])
  })

  test('ends on a text that is not JSON without failing', () => {
    for (const text of ['', '{', '{"entities"', '{"entities": {"a', '{"entities": {"a": [1234567890123456789', '{"entities": [1234567890123456789,', '{"entities": {"a": 1 "b": 2}}', '{"entities": {"a": }}', '{"entities": [}']) {
      assert.ok(integersAsWritten(text, 'entities') instanceof Map, text)
    }
  })
})
