import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createLru } from '../../src/base/lru.ts'

describe('bounded LRU', () => {
  test('holds at most maxEntries, dropping the least recently used', () => {
    const lru = createLru<string, number>(2)
    lru.set('a', 1)
    lru.set('b', 2)
    assert.equal(lru.get('a'), 1) // a is now the most recent
    lru.set('c', 3) // evicts b
    assert.equal(lru.size(), 2)
    assert.equal(lru.get('b'), undefined)
    assert.equal(lru.get('a'), 1)
    assert.equal(lru.get('c'), 3)
  })

  test('a hit on an older key after the newest one was read still refreshes it', () => {
    const lru = createLru<string, number>(2)
    lru.set('a', 1)
    lru.set('b', 2)
    lru.get('b')
    lru.get('b')
    lru.get('a') // a is now the most recent, b the oldest
    lru.set('c', 3)
    assert.equal(lru.get('b'), undefined)
    assert.equal(lru.get('a'), 1)
  })

  test('setting an existing key replaces its value and refreshes it', () => {
    const lru = createLru<string, number>(2)
    lru.set('a', 1)
    lru.set('b', 2)
    lru.set('a', 10)
    lru.set('c', 3)
    assert.equal(lru.get('a'), 10)
    assert.equal(lru.get('b'), undefined)
  })

  test('delete and clear forget entries, including the most recent one', () => {
    const lru = createLru<string, number>(3)
    lru.set('a', 1)
    lru.set('b', 2)
    lru.delete('b')
    assert.equal(lru.get('b'), undefined)
    lru.set('b', 3)
    assert.equal(lru.get('b'), 3)
    lru.clear()
    assert.equal(lru.size(), 0)
    assert.equal(lru.get('a'), undefined)
  })

  test('maxEntries 0 keeps nothing', () => {
    const lru = createLru<string, number>(0)
    lru.set('a', 1)
    assert.equal(lru.get('a'), undefined)
    assert.equal(lru.size(), 0)
  })
})
