import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { closest, didYouMean } from '../../src/base/did-you-mean.ts'

const ACTIONS = ['CREATE', 'DESCRIBE', 'READ_ONLINE', 'READ_OFFLINE', 'READ', 'WRITE']

describe('did-you-mean', () => {
  test('a name in another case is the known name', () => {
    assert.equal(closest('read_online', ACTIONS), 'READ_ONLINE')
  })

  test('a qualified name (Feast\'s Python enum) is the known name', () => {
    assert.equal(closest('AuthzedAction.READ_ONLINE', ACTIONS), 'READ_ONLINE')
  })

  test('a misspelling gets the nearest name, not a shorter prefix', () => {
    assert.equal(closest('READ_ONLNE', ACTIONS), 'READ_ONLINE')
  })

  test('a prefix gets the name it starts', () => {
    assert.equal(closest('DESC', ACTIONS), 'DESCRIBE')
  })

  test('a name far from every known one gets no suggestion', () => {
    assert.equal(closest('EVERYTHING', ACTIONS), undefined)
    assert.equal(didYouMean('EVERYTHING', ACTIONS), '')
  })

  test('the suggestion reads as the end of an error message', () => {
    assert.equal(didYouMean('CREAT', ACTIONS), ' (did you mean CREATE?)')
  })
})
