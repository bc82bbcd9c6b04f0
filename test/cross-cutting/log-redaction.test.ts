/**
 * Tokens in query strings (`GET /anything?access_token=<jwt>`) are refused, and must not reach
 * the logs either: a Fastify app set up as the README says, and `feast-authz serve`. (The
 * getting-started programs, Fastify and Express, are checked in test/cross-cutting/docs/getting-started.test.ts.)
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import Fastify from 'fastify'
import feastAuthz, { feastAuthzLoggerOptions } from '../../src/index.ts'
import { listeningUrl, startCli } from '../helpers/cli.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { REPO } from '../helpers/markdown.ts'

describe('tokens in query strings never reach the logs', () => {
  let provider: TestProvider
  let token: string
  let dir: string
  let configPath: string
  const leaks = (logs: string): string[] => [token, token.split('.')[2] as string].filter((part) => logs.includes(part))

  before(async () => {
    // The provider is started here, not by the OIDC-app fixture: the server is built with the README's logger setup, as written.
    provider = await startOidcProvider()
    token = await provider.issue({ preferred_username: 'quentin', roles: ['admin'] })
    dir = mkdtempSync(join(tmpdir(), 'feast-authz-log-redaction-'))
    configPath = join(dir, 'feature_store.yaml')
    writeFileSync(configPath, `project: demo\nauth:\n  type: oidc\n  client_id: ${provider.clientId}\n  auth_discovery_url: ${provider.discoveryUrl}\n`)
  })
  after(async () => {
    await provider?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  test('a Fastify app with the README\'s logger setup: refused, unknown routes included, and not logged', async () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8')
    const setup = /const app = Fastify\(\{ logger: (.+) \}\)\n/.exec(readme)?.[1]
    assert.equal(setup, "{ level: 'info', ...feastAuthzLoggerOptions }", 'the README sets its logger up differently: update this test to build the same app')
    const lines: string[] = []
    const app = Fastify({ logger: { level: 'info', ...feastAuthzLoggerOptions, stream: { write: (line: string) => { lines.push(line) } } } })
    await app.register(feastAuthz, { config: configPath })
    app.get('/whoami', async (request) => request.principal)
    const url = await app.listen({ host: '127.0.0.1', port: 0 })
    try {
      assert.equal((await fetch(`${url}/whoami?access_token=${token}`)).status, 401)
      assert.equal((await fetch(`${url}/nowhere?access_token=${token}`, { headers: { authorization: `Bearer ${token}` } })).status, 404)
      assert.equal((await fetch(`${url}/whoami?project=demo&id_token=${token}`, { headers: { authorization: `Bearer ${token}` } })).status, 200)
    } finally {
      await app.close()
    }
    const logs = lines.join('')
    assert.match(logs, /"url":"\/whoami\?access_token=\[redacted\]"/)
    assert.match(logs, /Route GET:\/nowhere\?access_token=\[redacted\] not found/)
    assert.match(logs, /project=demo&id_token=\[redacted\]/)
    assert.deepEqual(leaks(logs), [])
  })

  test('feast-authz serve: refused and not logged, at debug level too', async () => {
    const run = startCli(['serve', '--config', configPath, '--port', '0', '--log-level', 'debug'])
    try {
      const url = await listeningUrl(run)
      assert.equal((await fetch(`${url}/get-online-features?access_token=${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 401)
      assert.equal((await fetch(`${url}/nowhere?access_token=${token}`, { headers: { authorization: `Bearer ${token}` } })).status, 404)
    } finally {
      run.child.kill('SIGTERM')
    }
    const { stdout, stderr } = await run.exited
    assert.match(stdout, /access_token=\[redacted\]/)
    assert.deepEqual(leaks(stdout + stderr), [])
  })
})
