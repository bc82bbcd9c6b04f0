import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { parseCommandArgs, portNumber, positiveWholeNumber, subcommand } from '../../src/cli/args.ts'
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

  test('an unknown subcommand that does not read as a name is not shown (a token pasted in its place)', () => {
    expectError(() => subcommand('eyJhbGciOiJSUzI1NiJ9.do-not-print-me.c2ln', ['render']), {
      type: UsageError,
      message: 'unknown subcommand (not shown: it may be a token): expected render'
    })
    expectError(() => subcommand('ghp_doNotPrintMe123', ['render']), { type: UsageError, message: 'unknown subcommand (not shown: it may be a token): expected render' })
  })

  test('an empty subcommand is quoted as empty, not taken for a token', () => {
    expectError(() => subcommand('', ['render']), { type: UsageError, message: 'unknown subcommand "": expected render' })
  })
})

describe('parseCommandArgs', () => {
  const OPTIONS = { config: { type: 'string' }, verbose: { type: 'boolean' } } as const

  test('an argument beyond those the command takes is named by its place, never by its text (a token pasted without --token)', () => {
    expectError(() => parseCommandArgs(['--config', 'feature_store.yaml', 'eyJhbGciOiJSUzI1NiJ9.do-not-print-me'], OPTIONS), {
      type: UsageError,
      message: 'unexpected argument: the 3rd (not shown: it may be a token); options are given as --name value'
    })
    expectError(() => parseCommandArgs(['show', '--verbose', 'do-not-print-me'], OPTIONS, 1), {
      type: UsageError,
      message: 'unexpected argument: the 3rd (not shown: it may be a token); options are given as --name value'
    })
  })

  test('an option that takes one value given twice is a usage error naming it, never its values (one would be silently dropped)', () => {
    expectError(() => parseCommandArgs(['--config', 'prod.yaml', '--config=ghp_doNotPrintMe123456789'], OPTIONS), {
      type: UsageError,
      message: '--config given more than once: give it once'
    })
  })

  test('a repeatable option and a flag may be given more than once', () => {
    const options = { tag: { type: 'string', multiple: true }, verbose: { type: 'boolean' } } as const
    assert.deepEqual({ ...parseCommandArgs(['--tag', 'a=1', '--tag', 'b=2', '--verbose', '--verbose'], options).values }, { tag: ['a=1', 'b=2'], verbose: true })
  })

  test('an unknown option is named with the nearest known one', () => {
    expectError(() => parseCommandArgs(['--confg', 'x.yaml'], OPTIONS), {
      type: UsageError,
      message: 'unknown option --confg (did you mean --config?); options: --config, --verbose'
    })
  })

  test('an unknown option that does not read as a name is not shown (a token run into --token, a space forgotten)', () => {
    for (const given of ['--tokeneyJhbGciOiJSUzI1NiJ9.do-not-print-me.c2ln', '--ghp_doNotPrintMe123']) {
      expectError(() => parseCommandArgs([given], OPTIONS), { type: UsageError, message: 'unknown option (not shown: it may be a token); options: --config, --verbose' })
    }
  })

  test('the arguments a command takes are returned with the options', () => {
    const { values, positionals } = parseCommandArgs(['show', '--config', 'x.yaml'], OPTIONS, 1)
    assert.deepEqual([{ ...values }, positionals], [{ config: 'x.yaml' }, ['show']])
  })
})

describe('portNumber', () => {
  test('reads a port from 0 to 65535 written in decimal digits', () => {
    assert.deepEqual(['0', '8080', '65535', '00080'].map(portNumber), [0, 8080, 65535, 80])
  })

  test('reads no port from anything else', () => {
    for (const text of ['', '65536', '-1', '80a', '8.0', ' 80', '0x50', '1e3', '123456']) assert.equal(portNumber(text), undefined, text)
  })
})

describe('positiveWholeNumber', () => {
  test('reads a whole number from 1 to 2^53 − 1 written in decimal digits', () => {
    assert.deepEqual(['1', '100000', '0064', '9007199254740991'].map(positiveWholeNumber), [1, 100_000, 64, Number.MAX_SAFE_INTEGER])
  })

  test('reads no number from anything else', () => {
    for (const text of ['', '0', '000', '-1', '1.5', '1e6', ' 5', '0x10', '1_000', '9007199254740992', '12345678901234567']) assert.equal(positiveWholeNumber(text), undefined, text)
  })
})
