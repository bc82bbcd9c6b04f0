import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { feastBoolean } from '../../src/server/feast-boolean.ts'

describe('feastBoolean reads a value as pydantic reads a bool in lax mode', () => {
  test('true and false are themselves', () => {
    assert.deepEqual([feastBoolean(true), feastBoolean(false)], [true, false])
  })

  test('the numbers 1 and 0 are true and false', () => {
    assert.deepEqual([feastBoolean(1), feastBoolean(0), feastBoolean(1.0)], [true, false, true])
  })

  test('pydantic\'s words are read in any case', () => {
    for (const word of ['1', 'on', 't', 'true', 'y', 'yes', 'TRUE', 'Yes', 'ON']) assert.equal(feastBoolean(word), true, word)
    for (const word of ['0', 'off', 'f', 'false', 'n', 'no', 'FALSE', 'No', 'Off']) assert.equal(feastBoolean(word), false, word)
  })

  test('anything else stands for no boolean: other numbers, other words, padded words, null, lists, objects', () => {
    for (const value of [2, -1, 0.5, Number.NaN, '', 'maybe', 'truee', ' true', 'true ', '01', null, undefined, [true], { value: true }]) {
      assert.equal(feastBoolean(value), undefined, JSON.stringify(value))
    }
  })
})
