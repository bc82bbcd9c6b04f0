import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, test } from 'node:test'
import { promisify } from 'node:util'
import { terminalControls } from '../helpers/terminal.ts'

const run = promisify(execFile)
const root = resolve(import.meta.dirname, '../..')
const VERSION = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version: string }).version

describe('the feast-authz bin in a clone', () => {
  test('runs from the sources, built or not (npm ci alone is enough, and no stale build runs)', async () => {
    const { stdout } = await run(process.execPath, [resolve(root, 'bin/feast-authz.js'), '--version'], { cwd: root })
    assert.equal(stdout, `${VERSION}\n`)
  })

  test('answers `npx feast-authz` from the repository root', { timeout: 120_000 }, async () => {
    const { stdout } = await run(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['--no-install', 'feast-authz', '--version'], { cwd: root, env: { ...process.env, npm_config_update_notifier: 'false' } })
    assert.equal(stdout, `${VERSION}\n`)
  })

  test('writes terminal controls from names and claims as \\uXXXX, as the CLI does run directly', async () => {
    // A C1 CSI and a right-to-left override: JSON.stringify leaves both as they are.
    const principal = JSON.stringify({ username: 'a\u009b2Jb\u202ec' })
    const args = ['check', '--permissions', 'fixtures/permissions/sample.yaml', '--principal', principal, '--resource', 'Project:x', '--action', 'READ']
    // Denied: exit 1, which execFile reports as a failure carrying the output.
    const failure = await run(process.execPath, [resolve(root, 'bin/feast-authz.js'), ...args], { cwd: root }).then(() => undefined, (error: { code?: number, stdout: string }) => error)
    assert.ok(failure !== undefined)
    assert.equal(failure.code, 1)
    assert.deepEqual(terminalControls(failure.stdout), [])
    assert.match(failure.stdout, /"username": "a\\u009b2Jb\\u202ec"/)
  })
})
