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

/** Serves the sample registry with `flags`, runs `use` on its URL, then stops it with SIGTERM: it must exit 0. */
async function whileServing (flags: string[], use: (url: string) => Promise<void>): Promise<void> {
  const config = join(dir, 'feature_store.yaml')
  await writeFile(config, `project: driver_ranking\nregistry: ${REGISTRY}\nauth:\n  type: no_auth\n`)
  const run = serve(['--config', config, '--port', '0', '--log-level', 'warn', ...flags])
  try {
    await use(await listeningUrl(run))
  } finally {
    run.child.kill('SIGTERM')
  }
  const { code, stderr } = await run.exited
  assert.equal(code, 0, stderr)
}

/** An online read of conv_rate for `ids`, as a client sends it. */
async function readConvRate (url: string, ids: number[]): Promise<Response> {
  return await fetch(`${url}/get-online-features`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ features: ['driver_hourly_stats:conv_rate'], entities: { driver_id: ids } })
  })
}

describe('feast-authz serve', () => {
  test('serves the registry named in feature_store.yaml and stops cleanly on SIGTERM', async () => {
    await whileServing([], async (url) => {
      assert.equal((await fetch(`${url}/health`)).status, 200)
      const read = await readConvRate(url, [1002])
      assert.equal(read.status, 200)
      assert.deepEqual(((await read.json()) as { results: Array<{ values: unknown[] }> }).results[1]?.values, [0.37])
    })
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

  test('a token given as --port by mistake is not echoed in its error', async () => {
    const { code, stderr } = await runInProcess(runServe, ['--config', 'feature_store.yaml', '--port', 'ghp_doNotPrintMe0123456789abcdefghijkl'])
    assert.equal(code, 2)
    assert.doesNotMatch(stderr, /doNotPrintMe/)
    assert.match(stderr, /^feast-authz serve: --port must be a number from 0 to 65535, got a string of 38 characters \(not shown: it may be a token\)\n/)
  })

  test('without --config and with no fallback it exits 2 naming the three places a configuration can come from', async () => {
    const { code, stderr } = await runInProcess(runServe, [])
    assert.equal(code, 2)
    assert.match(stderr, /^feast-authz serve: no configuration: give --config <feature_store\.yaml>, set FEATURE_STORE_YAML_BASE64, or run where a feature_store\.yaml is/)
    assert.match(stderr, /Run `feast-authz serve --help` for the options/)
  })

  test('--health-route adds a public route answering the identity source\'s readiness, beside /health', async () => {
    await whileServing(['--health-route', '/ready'], async (url) => {
      const ready = await fetch(`${url}/ready`)
      assert.equal(ready.status, 200)
      assert.deepEqual(await ready.json(), { ready: true, type: 'no_auth' })
      assert.equal(((await (await fetch(`${url}/health`)).json()) as { registry: string }).registry, 'current')
    })
  })

  test('a --health-route that is no path, or a route of the server, exits 2 before anything starts, saying why', async () => {
    const cases = [
      ['ready', /^feast-authz serve: --health-route must be a path starting with \/, without : \* \? or # \(a path as written, not a route pattern or a query\), such as \/ready, got "ready"\n/],
      ['/health', /^feast-authz serve: --health-route "\/health" is a route of the server \(GET \/health says the registry's state\); give the identity source's readiness another path, such as \/ready\n/],
      ['/api/v1/feature_views', /^feast-authz serve: --health-route "\/api\/v1\/feature_views" is a route of the server/]
    ] as const
    for (const [path, expected] of cases) {
      const { code, stderr } = await runInProcess(runServe, ['--config', 'feature_store.yaml', '--health-route', path])
      assert.equal(code, 2, path)
      assert.match(stderr, expected)
    }
  })

  test('a --host it cannot listen on that is shaped like a token exits 1 without echoing it', async () => {
    const config = join(dir, 'feature_store.yaml')
    await writeFile(config, 'project: p\nauth:\n  type: no_auth\n')
    const { code, stderr } = await runInProcess(runServe, ['--config', config, '--host', 'ghp_doNotPrintMe0123456789abcdefghijkl', '--port', '0', '--log-level', 'silent'])
    assert.equal(code, 1)
    assert.doesNotMatch(stderr, /doNotPrintMe/)
    assert.match(stderr, /^feast-authz serve: cannot listen on a --host of 38 characters \(not shown: it may be a token\), port 0: /)
  })

  test('a --health-route written as a route pattern or with a query exits 2 naming the flag, where Fastify took it', async () => {
    // '/:x' and '/*' made every GET path the server lacks a public route; '/:x(' stopped serve with Fastify's regexp error.
    for (const path of ['/:x(', '/:any', '/*', '/ready?probe=1', '/ready#x']) {
      const { code, stderr } = await runInProcess(runServe, ['--config', 'feature_store.yaml', '--health-route', path])
      assert.equal(code, 2, path)
      assert.match(stderr, /^feast-authz serve: --health-route must be a path starting with \/, without : \* \? or # \(a path as written, not a route pattern or a query\), such as \/ready, got "/, path)
    }
  })

  test('--max-answered-values reaches the server: a read past it is a 422 naming the flag', async () => {
    await whileServing(['--max-answered-values', '4'], async (url) => {
      assert.equal((await readConvRate(url, [1001, 1002])).status, 200)
      const refused = await readConvRate(url, [1001, 1002, 1003])
      assert.equal(refused.status, 422)
      assert.match(((await refused.json()) as { message: string }).message, /= 6 values, more than the 4 one answer holds: .*feast-authz serve --max-answered-values\)$/)
    })
  })

  test('sample rows that do not fit --online-store-max-bytes stop startup with exit 2, naming the project, the bound and the flag', async () => {
    const config = join(dir, 'feature_store.yaml')
    await writeFile(config, `project: driver_ranking\nregistry: ${REGISTRY}\nauth:\n  type: no_auth\n`)
    const { code, stderr } = await runInProcess(runServe, ['--config', config, '--port', '0', '--log-level', 'silent', '--online-store-max-bytes', '1000'])
    assert.equal(code, 2)
    assert.match(stderr, /^feast-authz serve: the registry's sample rows of project "driver_ranking" take [\d,]+ bytes in the online store, over its bound of 1,000 \(--online-store-max-bytes; [^)]*\): raise --online-store-max-bytes, or give fewer sample rows\n$/)
  })

  // Each kind of bad bound, for both flags: exit 2 before anything starts, naming the flag, what it takes and what was given.
  const refusesBound = async (given: string, shown: string): Promise<void> => {
    for (const [flag, unit, fallback] of [['online-store-max-bytes', 'bytes', 67108864], ['max-answered-values', 'values', 100000]] as const) {
      const { code, stderr } = await runInProcess(runServe, ['--config', 'feature_store.yaml', `--${flag}=${given}`])
      assert.equal(code, 2, `--${flag}=${given}`)
      assert.ok(stderr.startsWith(`feast-authz serve: --${flag} must be a positive whole number of ${unit} (default ${fallback}), got ${shown}\n`), stderr)
    }
  }

  test('a bound flag of 0 exits 2', async () => {
    await refusesBound('0', '"0"')
  })

  test('a negative bound flag exits 2', async () => {
    await refusesBound('-5', '"-5"')
  })

  test('a bound flag that is not a whole number exits 2, 1e6 included', async () => {
    await refusesBound('1.5', '"1.5"')
    await refusesBound('1e6', '"1e6"')
  })

  test('a bound flag given as words exits 2', async () => {
    await refusesBound('lots', '"lots"')
  })

  test('a bound flag beyond 2^53 − 1 exits 2: it would be no bound', async () => {
    await refusesBound('9007199254740992', '"9007199254740992"')
    await refusesBound('99999999999999999999', '"99999999999999999999"')
  })

  test('a token pasted as a bound flag is not echoed', async () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.do-not-print-me'
    await refusesBound(token, `a string of ${token.length} characters (not shown: it may be a token)`)
  })
})
