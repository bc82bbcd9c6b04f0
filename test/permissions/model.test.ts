import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { OptionError } from '../../src/base/errors.ts'
import { expandActions } from '../../src/permissions/model.ts'

describe('expandActions', () => {
  test('expands groups into their actions, without duplicates, in first-seen order', () => {
    assert.deepEqual(expandActions(['WRITE', 'WRITE_ONLINE', 'DESCRIBE']), ['WRITE_ONLINE', 'WRITE_OFFLINE', 'DESCRIBE'])
  })

  test('refuses an unknown name with an OptionError naming it, a did-you-mean and the names it knows', () => {
    assert.throws(() => expandActions(['READ', 'REED_ONLINE' as 'READ']), (error: unknown) =>
      error instanceof OptionError &&
      /unknown action "REED_ONLINE" \(did you mean READ_ONLINE\?\) \(expected one of CREATE, .*, CRUD\)$/.test(error.message))
  })

  test('refuses a value that is not a string, naming it', () => {
    assert.throws(() => expandActions([7 as unknown as 'READ']), { name: 'OptionError', message: /unknown action 7 \(expected one of/ })
  })
})
