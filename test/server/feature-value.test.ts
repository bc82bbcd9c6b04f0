import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { beyondInt64Fault, featureValueFault } from '../../src/server/feature-value.ts'

describe('featureValueFault', () => {
  test('finds nothing in int64\'s own range, finite numbers and other values', () => {
    assert.equal(featureValueFault([1n, { a: -(2n ** 63n), b: [2n ** 63n - 1n, 1.5e308, 'Infinity', null, true] }]), undefined)
  })

  test('names a value beyond int64 itself by the empty path', () => {
    assert.deepEqual(featureValueFault(2n ** 63n), { kind: 'beyond-int64', path: '' })
  })

  test('names the first fault in the order written, through lists and maps', () => {
    assert.deepEqual(featureValueFault([1, { a: [0, -(2n ** 63n) - 1n], b: Infinity }]), { kind: 'beyond-int64', path: '[1].a[1]' })
    assert.deepEqual(featureValueFault([1, { b: Number.NaN, a: [2n ** 64n] }]), { kind: 'not-finite', value: Number.NaN, path: '[1].b' })
  })

  test('tells an infinity from NaN by the value it reports', () => {
    assert.deepEqual(featureValueFault({ rate: -Infinity }), { kind: 'not-finite', value: -Infinity, path: '.rate' })
  })

  test('walks a value nested deeper than the call stack allows', () => {
    let deep: unknown = [2n ** 64n]
    for (let i = 0; i < 100_000; i++) deep = [deep]
    assert.equal(featureValueFault(deep)?.kind, 'beyond-int64')
  })
})

describe('beyondInt64Fault', () => {
  test('judges integers only: a number that is not finite is no fault of a column that is not stored', () => {
    assert.equal(beyondInt64Fault([Infinity, Number.NaN, { a: -Infinity }]), undefined)
    assert.deepEqual(beyondInt64Fault([Infinity, { a: [0, 2n ** 63n] }]), { kind: 'beyond-int64', path: '[1].a[1]' })
  })
})
