import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { inspect } from 'node:util'
import { describeReadError, FileTooLargeError, NotRegularFileError, readFailureCause, readRegularFile } from '../../src/base/regular-file.ts'
import { expectError } from '../helpers/errors.ts'
import { namedPipe } from '../helpers/named-pipe.ts'

const dir = mkdtempSync(join(tmpdir(), 'feast-authz-regular-file-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

describe('readRegularFile', () => {
  test('reads a regular file whole', () => {
    const path = join(dir, 'plain.txt')
    writeFileSync(path, 'x'.repeat(70_000))
    assert.equal(readRegularFile(path, 70_000).toString('utf8'), 'x'.repeat(70_000))
  })

  test('refuses a named pipe at once, naming it, instead of waiting for a writer', () => {
    const pipe = namedPipe(dir, 'pipe')
    try {
      expectError(() => readRegularFile(pipe.path, 1024), { type: NotRegularFileError, message: 'is a named pipe (FIFO), expected a file' })
    } finally {
      pipe.close()
    }
  })

  test('refuses a device that never ends (/dev/zero) without reading it', () => {
    expectError(() => readRegularFile('/dev/zero', 1024), { type: NotRegularFileError, message: 'is a character device, expected a file' })
  })

  test('judges what a symbolic link names, not the link', () => {
    const link = join(dir, 'link-to-zero')
    symlinkSync('/dev/zero', link)
    expectError(() => readRegularFile(link, 1024), { type: NotRegularFileError, message: 'is a character device, expected a file' })
  })

  test('refuses a file over the bound giving its size', () => {
    const path = join(dir, 'large.txt')
    writeFileSync(path, 'x'.repeat(1025))
    expectError(() => readRegularFile(path, 1024), { type: FileTooLargeError, size: 1025, maxBytes: 1024 })
  })
})

describe('describeReadError', () => {
  /** The error readRegularFile throws for `path`. */
  const failure = (path: string): unknown => {
    try { readRegularFile(path, 1024) } catch (error) { return error }
    throw new Error(`${path} was read`)
  }

  test('a name too long for a file (a token given as a path) is said in words, without the name', () => {
    const name = `eyJhbGciOiJSUzI1NiJ9.${'do-not-print-me'.repeat(30)}`
    assert.equal(describeReadError(failure(name)), 'the name is too long for a file')
  })

  test('any other file-system error keeps Node\'s reason but drops the path Node ends it with', () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, '')
    // A file used as a directory: ENOTDIR, whose message Node ends with the path.
    assert.equal(describeReadError(failure(join(file, 'inside-a-file'))), 'ENOTDIR: not a directory')
  })
})

describe('readFailureCause', () => {
  const failure = (path: string): NodeJS.ErrnoException => {
    try { readRegularFile(path, 1024) } catch (error) { return error as NodeJS.ErrnoException }
    throw new Error(`${path} was read`)
  }

  test('is the file-system error itself for a path a person would type', () => {
    const error = failure(join(dir, 'no-such-file.yaml'))
    assert.equal(readFailureCause(join(dir, 'no-such-file.yaml'), error), error)
  })

  test('for a path shaped like a token, shows nothing of it and keeps the code, errno and syscall', () => {
    const token = `eyJhbGciOiJSUzI1NiJ9.${'do-not-print-me'.repeat(30)}`
    const error = failure(token)
    const cause = readFailureCause(token, error) as NodeJS.ErrnoException
    assert.ok(!inspect(cause, { depth: 10 }).includes('do-not-print-me'), inspect(cause))
    assert.deepEqual([cause.code, cause.errno, cause.syscall], [error.code, error.errno, error.syscall])
    assert.equal(cause.message, 'the name is too long for a file')
  })
})
