import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { withinDeadline } from '../../src/base/deadline.ts'

describe('one deadline for a request that waits on several calls', () => {
  test('gives the work\'s value when it settles first', async () => {
    assert.equal(await withinDeadline(sleep(5, 'keys'), 1000, () => new Error('late')), 'keys')
  })

  test('passes the work\'s own failure through when it fails first', async () => {
    const failure = new Error('refused')
    await assert.rejects(withinDeadline(Promise.reject(failure), 1000, () => new Error('late')), (error) => error === failure)
  })

  test('rejects with the deadline\'s error when the work is still running, and leaves the work to finish', async () => {
    const late = new Error('late')
    let finished = false
    const work = sleep(200).then(() => { finished = true })
    await assert.rejects(withinDeadline(work, 20, () => late), (error) => error === late)
    assert.equal(finished, false)
    await work
    assert.equal(finished, true)
  })
})
