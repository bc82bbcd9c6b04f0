import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { InputTimeoutError, readBoundedInput } from '../../src/cli/bounded-input.ts'
import { FileTooLargeError } from '../../src/base/regular-file.ts'
import { expectError } from '../helpers/errors.ts'
import { namedPipe } from '../helpers/named-pipe.ts'

const dir = mkdtempSync(join(tmpdir(), 'feast-authz-bounded-input-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

// A generous time bound where the test is not about time: only a broken reader would reach it.
const BOUNDS = { maxBytes: 1024, timeoutMs: 60_000 }

describe('readBoundedInput', () => {
  test('reads a regular file whole', async () => {
    const path = join(dir, 'token.txt')
    writeFileSync(path, 'a-token\n')
    assert.equal((await readBoundedInput(path, BOUNDS)).toString('utf8'), 'a-token\n')
  })

  test('stops reading a device that never ends (/dev/zero) one byte past the bound', async () => {
    await expectError(readBoundedInput('/dev/zero', BOUNDS), { type: FileTooLargeError, size: 1025, maxBytes: 1024 })
  })

  test('reads a named pipe until its writer closes it', async () => {
    const pipe = namedPipe(dir, 'text-pipe', { text: 'piped-token\n' })
    try {
      assert.equal((await readBoundedInput(pipe.path, BOUNDS)).toString('utf8'), 'piped-token\n')
    } finally {
      pipe.close()
    }
  })

  test('stops reading a named pipe whose writer never stops, past the bound', async () => {
    const pipe = namedPipe(dir, 'endless-pipe', 'endless')
    try {
      await expectError(readBoundedInput(pipe.path, BOUNDS), { type: FileTooLargeError, maxBytes: 1024 })
    } finally {
      pipe.close()
    }
  })

  test('gives up on a named pipe whose writer holds it open without writing', async () => {
    // The writer closes after 2 s: a reader without a time bound would get an empty pipe then, not this error.
    const pipe = namedPipe(dir, 'silent-pipe', 'silent')
    try {
      await expectError(readBoundedInput(pipe.path, { maxBytes: 1024, timeoutMs: 100 }), { type: InputTimeoutError, timeoutMs: 100, message: 'it did not end within 0.1 s (does what writes it ever close it?)' })
    } finally {
      pipe.close()
    }
  })

  test('throws a missing path\'s error as Node gives it', async () => {
    await expectError(readBoundedInput(join(dir, 'missing'), BOUNDS), { code: 'ENOENT' })
  })
})
