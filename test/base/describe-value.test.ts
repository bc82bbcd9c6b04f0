import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { quotedNames } from '../../src/base/describe-value.ts'

describe('quotedNames', () => {
  test('quotes every name, in order, when there are at most ten', () => {
    assert.equal(quotedNames(['demo', 'other']), '"demo", "other"')
    assert.equal(quotedNames([]), '')
  })

  test('names the first ten of more and counts the rest', () => {
    const names = Array.from({ length: 12 }, (_, index) => `p${index}`)
    assert.equal(quotedNames(names), '"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9" and 2 more')
  })

  test('quotes a name holding a quote or a control character as JSON does', () => {
    assert.equal(quotedNames(['a"b', 'c\nd']), '"a\\"b", "c\\nd"')
  })
})
