import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { subcommand } from '../../src/cli/args.ts'
import { UsageError } from '../../src/cli/io.ts'
import { expectError } from '../helpers/errors.ts'

describe('subcommand', () => {
  test('returns a known subcommand', () => {
    assert.equal(subcommand('show', ['show']), 'show')
  })

  test('a missing subcommand names the ones expected', () => {
    expectError(() => subcommand(undefined, ['render']), { type: UsageError, message: 'missing subcommand: expected render' })
  })

  test('an unknown subcommand is named, with the nearest known one and the ones expected', () => {
    expectError(() => subcommand('rendr', ['render']), { type: UsageError, message: 'unknown subcommand "rendr" (did you mean render?): expected render' })
    expectError(() => subcommand('apply', ['render', 'show']), { type: UsageError, message: 'unknown subcommand "apply": expected render or show' })
  })
})
