/**
 * `openFeastRegistry` checks its options before it reads the file: a NaN or negative limit never
 * unbounds the memory budget of a decode, nor a NaN TTL the re-reads.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { inspect } from 'node:util'
import { loadRegistryFile, openFeastRegistry, type FeastRegistryOptions } from '../../src/registry/feast-registry.ts'

const base: FeastRegistryOptions = { path: '/nonexistent/registry.db', project: 'p' }

describe('openFeastRegistry options', () => {
  const cases: ReadonlyArray<[keyof FeastRegistryOptions, unknown, string]> = [
    ['maxDecodedBytes', Number.NaN, 'an integer of at least 1, got NaN'],
    ['maxDecodedBytes', Number.POSITIVE_INFINITY, 'an integer of at least 1, got Infinity'],
    ['maxBytes', -1, 'an integer of at least 1, got -1'],
    ['cacheTtlSeconds', Number.NaN, 'a finite number of seconds of at least 0, got NaN'],
    ['cacheTtlSeconds', Number.POSITIVE_INFINITY, 'a finite number of seconds of at least 0, got Infinity'],
    ['cacheTtlSeconds', -1, 'a finite number of seconds of at least 0, got -1'],
    ['pollIntervalMs', -100, 'a number of milliseconds from 0 to 2147483647, got -100'],
    ['project', '', 'a non-empty string, got ""'],
    ['logger', 'stdout', 'an object with the methods debug, info, warn, error, got "stdout"']
  ]
  for (const [option, value, expected] of cases) {
    test(`${option} = ${JSON.stringify(value) ?? String(value)} is refused with the option named, before the file is read`, () => {
      assert.throws(() => openFeastRegistry({ ...base, [option]: value }), {
        name: 'OptionError',
        option,
        message: `feast-authz: openFeastRegistry: ${option} must be ${expected}`
      })
    })
  }

  test('a path is required', () => {
    assert.throws(() => openFeastRegistry({ project: 'p' } as never), { name: 'OptionError', option: 'path' })
  })

  test('a path shaped like a token is in neither the error nor its cause, which keeps the code', () => {
    // Too long a name for a file (ENAMETOOLONG), whose error from Node repeats it twice.
    const pasted = `eyJhbGciOiJSUzI1NiJ9.${'ZG8tbm90LXByaW50LW1l'.repeat(40)}`
    let thrown: unknown
    try { openFeastRegistry({ path: pasted, project: 'p' }).close() } catch (error) { thrown = error }
    assert.ok(thrown instanceof Error && !inspect(thrown, { depth: 10 }).includes('ZG8tbm90LXByaW50LW1l'), inspect(thrown, { depth: 10 }))
    assert.equal((thrown.cause as NodeJS.ErrnoException).code, 'ENAMETOOLONG')
  })
})

describe('loadRegistryFile limits', () => {
  test('a NaN decode budget is refused with its name, before the file is read', () => {
    assert.throws(() => loadRegistryFile('/nonexistent/registry.db', 'p', 1024, Number.NaN), {
      name: 'OptionError',
      option: 'maxDecodedBytes',
      message: 'feast-authz: loadRegistryFile: maxDecodedBytes must be an integer of at least 1, got NaN'
    })
  })
})
