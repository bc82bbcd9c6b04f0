import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { run as check } from '../../src/cli/commands/check.ts'
import { run as inspect } from '../../src/cli/commands/inspect.ts'
import { readTokenArgument, TOKEN_FILE_BOUNDS } from '../../src/cli/inputs.ts'
import { UsageError } from '../../src/cli/io.ts'
import { runInProcess } from '../helpers/cli.ts'
import { expectError } from '../helpers/errors.ts'
import { namedPipe } from '../helpers/named-pipe.ts'

const dir = mkdtempSync(join(tmpdir(), 'feast-authz-inputs-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

describe('readTokenArgument', () => {
  test('refuses --token-file /dev/zero, naming it and the bound, instead of reading until memory runs out', async () => {
    await expectError(readTokenArgument(undefined, '/dev/zero'), {
      type: UsageError,
      message: 'cannot read --token-file /dev/zero: it holds more than the 65536 bytes a token file may have'
    })
  })

  test('words a missing --token-file as the client words its own token files', async () => {
    const missing = join(dir, 'missing.jwt')
    await expectError(readTokenArgument(undefined, missing), { type: UsageError, message: `cannot read --token-file ${missing}: file not found` })
  })

  test('words a directory given as --token-file as the client words its own token files', async () => {
    await expectError(readTokenArgument(undefined, dir), { type: UsageError, message: `cannot read --token-file ${dir}: is a directory, expected a file` })
  })

  test('reads the token of a named pipe (as --token-file <(command) gives), trimmed', async () => {
    const pipe = namedPipe(dir, 'token-pipe', { text: '  piped-token\n' })
    try {
      assert.equal(await readTokenArgument(undefined, pipe.path), 'piped-token')
    } finally {
      pipe.close()
    }
  })

  test('refuses a named pipe whose writer never closes it, naming it and the time bound', async () => {
    const pipe = namedPipe(dir, 'silent-pipe', 'silent')
    try {
      await expectError(readTokenArgument(undefined, pipe.path, undefined, { maxBytes: 1024, timeoutMs: 100 }), {
        type: UsageError,
        message: `cannot read --token-file ${pipe.path}: it did not end within 0.1 s (does what writes it ever close it?)`
      })
    } finally {
      pipe.close()
    }
  })
})

describe('the bounds of --token-file in the help', () => {
  test('check and inspect state the bounds --token-file reads with', async () => {
    const bounds = `at most ${TOKEN_FILE_BOUNDS.maxBytes / 1024} KiB, and a pipe must end within ${TOKEN_FILE_BOUNDS.timeoutMs / 1000} s`
    for (const [name, command] of [['check', check], ['inspect', inspect]] as const) {
      const { code, stdout } = await runInProcess(command, ['--help'])
      assert.equal(code, 0)
      assert.ok(stdout.replace(/\s+/g, ' ').includes(bounds), `${name} --help does not say ${bounds}`)
    }
  })
})
