import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, test } from 'node:test'
import { run as runServe } from '../../src/cli/commands/serve.ts'
import { listeningUrl, runInProcess, startCli, type RunningCli } from '../helpers/cli.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const REGISTRY = join(ROOT, 'fixtures/server/registry.yaml')
let dir: string

before(async () => { dir = await mkdtemp(join(tmpdir(), 'feast-authz-serve-')) })
after(async () => { await rm(dir, { recursive: true, force: true }) })

// The happy path runs the real CLI in a child process (signals, exit code); errors run in-process.
const serve = (args: string[]): RunningCli => startCli(['serve', ...args])

describe('feast-authz serve', () => {
  test('serves the registry named in feature_store.yaml and stops cleanly on SIGTERM', async () => {
    const config = join(dir, 'feature_store.yaml')
    await writeFile(config, `project: driver_ranking\nregistry: ${REGISTRY}\nauth:\n  type: no_auth\n`)
    const run = serve(['--config', config, '--port', '0', '--log-level', 'warn'])
    try {
      const url = await listeningUrl(run)
      assert.equal((await fetch(`${url}/health`)).status, 200)
      const read = await fetch(`${url}/get-online-features`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ features: ['driver_hourly_stats:conv_rate'], entities: { driver_id: [1002] } })
      })
      assert.equal(read.status, 200)
      assert.deepEqual(((await read.json()) as { results: Array<{ values: unknown[] }> }).results[1]?.values, [0.37])
    } finally {
      run.child.kill('SIGTERM')
    }
    const { code, stderr } = await run.exited
    assert.equal(code, 0, stderr)
  })

  test('an invalid permissions file stops startup with exit 2 and names the file', async () => {
    const config = join(dir, 'feature_store.yaml')
    const permissions = join(dir, 'bad-permissions.yaml')
    await writeFile(config, 'project: p\nauth:\n  type: no_auth\n')
    await writeFile(permissions, '- name: readers\n  actions: [REED]\n  policy:\n    role_based_policy: {roles: [reader]}\n')
    const { code, stderr } = await runInProcess(runServe, ['--config', config, '--permissions', permissions, '--port', '0', '--log-level', 'silent'])
    assert.equal(code, 2)
    assert.match(stderr, /bad-permissions\.yaml/)
    assert.match(stderr, /REED/)
  })

  test('a --port that is no port number exits 2 before anything starts, saying what it expected', async () => {
    for (const port of ['65536', '80a', '-1']) {
      const { code, stderr } = await runInProcess(runServe, ['--config', 'feature_store.yaml', `--port=${port}`])
      assert.equal(code, 2, port)
      assert.match(stderr, new RegExp(`^feast-authz serve: --port must be a number from 0 to 65535, got "${port}"\n`))
    }
  })

  test('without --config and with no fallback it exits 2 naming the three places a configuration can come from', async () => {
    const { code, stderr } = await runInProcess(runServe, [])
    assert.equal(code, 2)
    assert.match(stderr, /^feast-authz serve: no configuration: give --config <feature_store\.yaml>, set FEATURE_STORE_YAML_BASE64, or run where a feature_store\.yaml is/)
    assert.match(stderr, /Run `feast-authz serve --help` for the options/)
  })
})
