/** The bounds the reference server takes in code (src/server/limit-option.ts); each kind of bad value is tested where an option takes it. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { OptionError } from '../../src/registry/index.ts'
import { limitOption } from '../../src/server/limit-option.ts'
import { expectError } from '../helpers/errors.ts'

const place = { owner: 'makeThing', option: 'maxItems', unit: 'items', fallback: 50 }

test('an absent bound takes its default, and a positive whole number is taken as it is', () => {
  assert.deepEqual([limitOption(undefined, place), limitOption(7, place)], [50, 7])
})

test('a long string is told by its length, so that a message stays one short line', () => {
  expectError(() => limitOption('9'.repeat(41), place), {
    type: OptionError,
    option: 'maxItems',
    message: 'feast-authz: makeThing: maxItems must be a positive whole number of items (default 50), got a string of 41 characters'
  })
})

test('a value that is neither a number nor a string is named by its type', () => {
  expectError(() => limitOption(null, place), { type: OptionError, message: /got null$/ })
  expectError(() => limitOption({ max: 5 }, place), { type: OptionError, message: /got object$/ })
})
