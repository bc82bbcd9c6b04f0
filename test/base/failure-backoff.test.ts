import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createFailureBackoff } from '../../src/base/failure-backoff.ts'

describe('the failure back-off shared by discovery and the key set', () => {
  test('answers with the remembered failure until the back-off has passed, then lets a new attempt through', () => {
    let time = 0
    const backoff = createFailureBackoff(1000, () => time)
    backoff.check()
    const failure = new Error('provider down')
    backoff.failed(failure)
    time = 999
    assert.throws(() => { backoff.check() }, (error) => error === failure)
    time = 1000
    backoff.check()
  })

  test('a success forgets the failure at once', () => {
    const backoff = createFailureBackoff(60_000)
    backoff.failed(new Error('provider down'))
    backoff.succeeded()
    backoff.check()
  })

  test('says whether it is waiting without throwing, for a background refresh that must not fail a request', () => {
    let time = 0
    const backoff = createFailureBackoff(1000, () => time)
    assert.equal(backoff.waiting(), false)
    backoff.failed(new Error('provider down'))
    time = 999
    assert.equal(backoff.waiting(), true)
    time = 1000
    assert.equal(backoff.waiting(), false)
  })

  test('ends when the clock is set back after the failure, instead of lasting until it catches up', () => {
    let time = 10_000_000
    const backoff = createFailureBackoff(1000, () => time)
    backoff.failed(new Error('provider down'))
    time -= 3_600_000
    assert.equal(backoff.waiting(), false)
    backoff.check()
  })
})
