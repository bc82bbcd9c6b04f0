/**
 * `npm start`: the demo runs end to end (real OpenID provider, reference server), prints a table,
 * every line it prints pastes into a shell (curl, inspect, check), and it stops with npm.
 */
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { closedPort } from '../../helpers/listen.ts'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, test } from 'node:test'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

describe('the demo (npm start)', () => {
  test('prints tokens, curl lines and what each user gets on each route, then exits 0 with --once', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'demo/start.ts', '--once'], { cwd: ROOT, timeout: 60_000 })
    assert.match(stdout, /^export READER_TOKEN=ey[\w-]+\.[\w-]+\.[\w-]+ {2}# reader$/m)
    assert.match(stdout, /^export WRITER_TOKEN=ey[\w-]+\.[\w-]+\.[\w-]+ {2}# writer$/m)
    assert.match(stdout, /^curl -s -w '\\n' http:\/\/127\.0\.0\.1:\d+\/push -H "Authorization: Bearer \$WRITER_TOKEN"/m)
    const table = Object.fromEntries(stdout.split('\n')
      .map((line) => /^#\s+(GET|POST)\s+(\S+)\s+(.*)$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [`${match[1]} ${match[2]}`, (match[3] ?? '').replace(/\(\d+ views\)/g, '').trim().split(/\s+/)]))
    assert.deepEqual(table, {
      // columns: no token, reader, writer, no roles
      'GET /health': ['200', '200', '200', '200'],
      'GET /api/v1/feature_views': ['401', '200', '200', '200'],
      'POST /get-online-features': ['401', '200', '200', '403'],
      'POST /push': ['401', '403', '200', '403'],
      'POST /write-to-online-store': ['401', '403', '200', '403'],
      'POST /materialize-incremental': ['401', '403', '200', '403']
    })
    assert.match(stdout, /GET\s+\/api\/v1\/feature_views\s+401\s+200 \(3 views\)\s+200 \(4 views\)\s+200 \(0 views\)/)
  })

  test('DEMO_PROVIDER_PORT pins the OpenID provider\'s port, so that a feature_store.yaml pointed at it outlives a restart', async () => {
    const port = await closedPort()
    const { stdout } = await runDemo({ DEMO_PROVIDER_PORT: String(port) })
    assert.match(stdout, new RegExp(`^# OpenID provider: http://127\\.0\\.0\\.1:${port}/\\.well-known/openid-configuration$`, 'm'))
  })

  test('a pinned port that is taken ends the demo with exit 1 and a line naming the variable, not a stack trace', async () => {
    const taken = await occupiedPort()
    try {
      for (const variable of ['DEMO_PORT', 'DEMO_PROVIDER_PORT']) {
        const { code, stderr } = await runDemo({ [variable]: String(taken.port) })
        assert.equal(code, 1, stderr)
        assert.ok(stderr.includes(`npm start: port ${taken.port} (${variable}) is in use: choose another, or unset ${variable} for any free port\n`), stderr)
        assert.doesNotMatch(stderr, /^\s+at /m, 'no stack trace')
      }
    } finally {
      await new Promise((resolve) => { taken.server.close(resolve) })
    }
  })

  test('a port variable that is no port number ends the demo with exit 2 before anything starts', async () => {
    const { code, stdout, stderr } = await runDemo({ DEMO_PORT: '80a' })
    assert.equal(code, 2)
    assert.equal(stdout, '')
    assert.equal(stderr, 'npm start: DEMO_PORT must be a port number from 0 to 65535 (0: any free port), got "80a"\n')
  })

  test('with --once it ends by saying that the lines it printed no longer work, and how to get a server that stays', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'demo/start.ts', '--once'], { cwd: ROOT, timeout: 60_000 })
    assert.match(stdout, /^# Stopped \(--once\): .* are gone, so the lines\n# above no longer work\. Run `npm start` \(without --once\) to try them; it serves until Ctrl-C\.\n$/m)
  })

  test('everything it prints, pasted into a shell, runs: the tokens are set, the curl lines get their answers, inspect prints the reader and check explains the denial; SIGTERM to npm stops the server and removes its scratch file', async (t) => {
    const npm = spawn('npm', ['start'], { cwd: ROOT, env: { ...process.env, DEMO_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] })
    t.after(() => { if (npm.exitCode === null) npm.kill('SIGTERM') })
    let stdout = ''
    npm.stdout.setEncoding('utf8')
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => { reject(new Error(`the demo did not start:\n${stdout}`)) }, 90_000)
      npm.stdout.on('data', (chunk: string) => {
        stdout += chunk
        if (stdout.includes('Serving until Ctrl-C')) { clearTimeout(timer); resolve() }
      })
      npm.on('exit', (code) => { clearTimeout(timer); reject(new Error(`npm start exited with ${String(code)}:\n${stdout}`)) })
    })
    // npm's own banner ("> feast-authz@0.1.0 start") is not the demo's.
    const printed = stdout.split('\n').filter((line) => !line.startsWith('> ')).join('\n')
    const url = /^# Feature server: +(http:\/\/127\.0\.0\.1:\d+)/m.exec(printed)?.[1]
    assert.ok(url !== undefined, printed)

    // Not `set -e`: the check line is a denial, exit 1, as its comment says.
    const script = `set -u\n${printed}\nprintf '\\nreader=%s\\n' "\${#READER_TOKEN}"\n`
    const { stdout: shell } = await promisify(execFile)('bash', ['-c', script], { cwd: ROOT, timeout: 60_000 })
    assert.match(shell, /^\{"featureViews":\[/m, 'the reader lists feature views, on a line of its own')
    assert.match(shell, /^\{"metadata".*"results":\[/m, 'the reader reads online features')
    assert.match(shell, /^\{.*"rows":1\}$/m, 'the writer pushes')
    assert.match(shell, /^\{"statusCode":403,"code":"permission_denied"/m, 'the reader may not push')
    assert.match(shell, /^reader=\d{3,}$/m, 'READER_TOKEN is set')
    assert.match(shell, /"username": "reader",\s+"roles": \[\s+"reader"\s+\]/, 'inspect prints the reader\'s principal')
    assert.match(shell, /"decision": "deny"/, 'check denies the reader WRITE_ONLINE')
    assert.match(shell, /"summary": "Permission write-feature-views denied \[WRITE_ONLINE\] on FeatureView:driver_hourly_stats: requires roles \[writer\]/, 'check says why')
    const scratch = /--config (\S+feature_store\.yaml) /.exec(printed)?.[1]
    assert.ok(scratch !== undefined && existsSync(scratch), printed)

    const exited = new Promise<number | null>((resolve) => { npm.on('exit', (code) => { resolve(code) }) })
    npm.kill('SIGTERM')
    await exited
    // The server (npm's grandchild) must be gone too, not orphaned and still serving.
    const deadline = Date.now() + 10_000
    let refused = false
    while (!refused && Date.now() < deadline) {
      refused = await fetch(`${url}/health`).then(() => false, () => true)
      if (!refused) await new Promise((resolve) => setTimeout(resolve, 200))
    }
    assert.ok(refused, `the server at ${url} still answers after npm was stopped`)
    while (existsSync(scratch) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200))
    assert.ok(!existsSync(scratch), `${scratch} is left behind`)
  })
})

/** The demo run with --once and `env` added to this process's environment; its exit code and both outputs. */
async function runDemo (env: Record<string, string>): Promise<{ code: number, stdout: string, stderr: string }> {
  return await new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'demo/start.ts', '--once'], { cwd: ROOT, timeout: 60_000, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr })
    })
  })
}

async function occupiedPort (): Promise<{ server: Server, port: number }> {
  const server = createServer()
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve) })
  return { server, port: (server.address() as { port: number }).port }
}
