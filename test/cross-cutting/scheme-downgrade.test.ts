/**
 * Scheme downgrade: an `https` discovery document (a real provider behind TLS) that names
 * plain-`http` URLs for its key set and token endpoint, as providers behind a TLS-terminating
 * proxy often publish by mistake. An attacker on the path to such a URL could serve its own
 * keys (and sign any identity) or read the client secret. Every surface must refuse: the
 * Fastify plugin and the Express adapter (503, never an allow), `inspect`, `serve`, the client
 * library and `feast-authz token` (no credentials posted).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http, { type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import express from 'express'
import { feastAuthzExpress, type FeastAuthzExpress } from '../../src/adapters/express.ts'
import { createIdpTokenSource } from '../../src/client/idp-token.ts'
import { TokenSourceError } from '../../src/client/errors.ts'
import { oidcAuth, startApp } from '../helpers/authz-app.ts'
import { listeningUrl, runCli, startCli } from '../helpers/cli.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { captureLogs } from '../helpers/logs.ts'
import { useOidcApp } from '../helpers/oidc-app.ts'
import { listenOnLoopback } from '../helpers/listen.ts'

const DOWNGRADE = /is https but names the plain-http jwks_uri http:\/\/127\.0\.0\.1:\d+\/jwks: .*publish https URLs/

describe('an https discovery document naming plain-http URLs', () => {
  let provider: TestProvider
  let plain: { url: string, requests: () => number, close: () => Promise<void> }
  let adminToken: string
  let dir: string
  let configPath: string

  before(async () => {
    // The provider is started here, not by the OIDC-app fixture: HTTPS with rewritten discovery documents, for servers, Express and the CLI alike.
    provider = await startOidcProvider({ https: true })
    // What an attacker on the clear-text path would answer: the provider's own public key (or
    // one of theirs) for the key set, and a token for whoever posts credentials.
    plain = await startPlainServer(provider)
    downgrade('jwks_uri', 'token_endpoint')
    adminToken = await provider.issue({ preferred_username: 'mallory', roles: ['admin'] })
    dir = mkdtempSync(join(tmpdir(), 'feast-authz-downgrade-'))
    configPath = join(dir, 'feature_store.yaml')
    writeFileSync(configPath, `project: demo\nauth:\n  type: oidc\n  client_id: ${provider.clientId}\n  auth_discovery_url: ${provider.discoveryUrl}\n  ca_cert_path: ${provider.caCertPath ?? ''}\n`)
  })

  // Rewrites the provider's discovery document so that `fields` name the plain-http server.
  const downgrade = (...fields: Array<'jwks_uri' | 'token_endpoint'>): void => {
    provider.fault('discovery', { rewrite: (doc) => ({ ...doc, ...Object.fromEntries(fields.map((field) => [field, `${plain.url}/${field === 'jwks_uri' ? 'jwks' : 'token'}`])) }) })
  }

  after(async () => {
    await plain?.close()
    await provider?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  test('Fastify: a token is a 503, never an allow; the log names the URL and the fix; no key is fetched in clear text', async () => {
    const app = await startApp({ auth: oidcAuth(provider, { ca_cert_path: provider.caCertPath }) })
    try {
      const response = await app.call('/whoami', `Bearer ${adminToken}`)
      assert.equal(response.status, 503)
      assert.equal(response.body.code, 'provider_unavailable')
      assert.ok(app.logs.raw.some((line) => line.includes('OIDC discovery failed') && DOWNGRADE.test(line)), app.logs.raw.join(''))
      assert.equal(plain.requests(), 0)
    } finally {
      await app.close()
    }
  })

  test('Express: a token is a 503, never an allow', async () => {
    const logs = captureLogs()
    const authz: FeastAuthzExpress = feastAuthzExpress({ config: { project: 'p', auth: oidcAuth(provider, { ca_cert_path: provider.caCertPath }) }, logger: logs.logger })
    const app = express()
    app.use(authz.authenticate)
    app.get('/whoami', (req, res) => { res.json({ username: req.principal?.username }) })
    const { server, url } = await listenOnLoopback(app)
    try {
      const response = await fetch(`${url}/whoami`, { headers: { authorization: `Bearer ${adminToken}` } })
      assert.equal(response.status, 503)
      assert.ok(logs.lines.some((line) => DOWNGRADE.test(String((line.err as { message?: string } | undefined)?.message))))
      assert.equal(plain.requests(), 0)
    } finally {
      await new Promise((resolve) => server.close(resolve))
      await authz.close()
    }
  })

  test('inspect: exits 3 ("could not decide") naming the URL', async () => {
    const { code, stdout, stderr } = await runCli(['inspect', '--config', configPath, '--token', adminToken])
    assert.equal(code, 3)
    assert.equal(stdout, '')
    assert.match(stderr, /could not decide: provider_unavailable/)
    assert.match(stderr, DOWNGRADE)
  })

  test('serve: a token is a 503 and the log names the URL', async () => {
    const run = startCli(['serve', '--config', configPath, '--port', '0', '--log-level', 'warn'])
    try {
      const url = await listeningUrl(run)
      const response = await fetch(`${url}/get-online-features`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: '{}' })
      assert.equal(response.status, 503)
    } finally {
      run.child.kill('SIGTERM')
    }
    const { stdout } = await run.exited
    assert.match(stdout, DOWNGRADE)
    assert.equal(plain.requests(), 0)
  })

  test('the client library refuses to post the client secret to the plain-http token endpoint', async () => {
    downgrade('token_endpoint')
    const source = createIdpTokenSource({
      auth_discovery_url: provider.discoveryUrl,
      client_id: provider.clientId,
      client_secret: provider.clientSecret,
      verify_ssl: true,
      ca_cert_path: provider.caCertPath,
      token_refresh_margin_seconds: 30
    })
    try {
      await assert.rejects(source.get(), (error: unknown) => error instanceof TokenSourceError && error.code === 'invalid_provider_response' &&
        /is https but names the plain-http token_endpoint http:\/\/127\.0\.0\.1:\d+\/token: the client secret/.test(error.message))
      assert.equal(source.requests(), 0)
      assert.equal(plain.requests(), 0)
    } finally {
      source.close()
    }
  })

  test('feast-authz token exits 1 without posting the secret', async () => {
    downgrade('token_endpoint')
    const config = join(dir, 'client.yaml')
    writeFileSync(config, `project: demo\nauth:\n  type: oidc\n  client_id: ${provider.clientId}\n  client_secret: ${provider.clientSecret}\n  auth_discovery_url: ${provider.discoveryUrl}\n  ca_cert_path: ${provider.caCertPath ?? ''}\n`)
    const { code, stdout, stderr } = await runCli(['token', '--config', config, '--service-account-token-file', '/nonexistent/sa-token'])
    assert.equal(code, 1)
    assert.equal(stdout, '')
    assert.match(stderr, /invalid_provider_response: .*plain-http token_endpoint http:\/\/127\.0\.0\.1:\d+\/token/)
    assert.ok(!stderr.includes(provider.clientSecret))
    assert.equal(plain.requests(), 0)
  })
})

describe('a plain-http discovery URL (an in-cluster provider)', () => {
  const app = useOidcApp()

  test('still works, and a provider on a loopback address is not warned about (its traffic never leaves the machine)', async () => {
    const token = await app.provider.issue({ preferred_username: 'ivy' })
    assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
    assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
    const warnings = app.logs.raw.filter((line) => line.includes('is plain http'))
    assert.equal(warnings.length, 0, app.logs.raw.join(''))
  })
})

describe('a plain-http discovery URL on this machine naming plain-http URLs on another host (a port-forward)', () => {
  // .invalid never resolves (RFC 2606): nothing is fetched there, but the warning comes before any attempt.
  const ELSEWHERE = /is on this machine but names the plain-http (jwks_uri|token_endpoint) http:\/\/idp\.invalid\/(jwks|token) on another host/
  let provider: TestProvider

  before(async () => {
    provider = await startOidcProvider()
    provider.fault('discovery', { rewrite: (doc) => ({ ...doc, jwks_uri: 'http://idp.invalid/jwks', token_endpoint: 'http://idp.invalid/token' }) })
  })
  after(async () => { await provider?.close() })

  test('the server warns once, naming the key set\'s URL, and still answers 503, never an allow', async () => {
    const app = await startApp({ auth: oidcAuth(provider) })
    try {
      const token = await provider.issue({ preferred_username: 'ivy' })
      assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 503)
      assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 503)
      const warnings = app.logs.raw.filter((line) => ELSEWHERE.test(line))
      assert.equal(warnings.length, 1, app.logs.raw.join(''))
      assert.match(warnings[0] ?? '', /jwks_uri/)
    } finally {
      await app.close()
    }
  })

  test('the client warns, naming the token endpoint, before it would post the secret there', async () => {
    const logs = captureLogs()
    const source = createIdpTokenSource({
      client_id: provider.clientId,
      client_secret: provider.clientSecret,
      auth_discovery_url: provider.discoveryUrl,
      verify_ssl: true,
      token_refresh_margin_seconds: 30
    }, { logger: logs.logger, failurePauseMs: 0 })
    try {
      await assert.rejects(source.get(), TokenSourceError)
    } finally {
      source.close()
    }
    const warnings = logs.lines.filter((line) => ELSEWHERE.test(String(line.msg)))
    assert.equal(warnings.length, 1, JSON.stringify(logs.lines))
    assert.match(String(warnings[0]?.msg), /token_endpoint .* the client secret/)
  })
})

async function startPlainServer (provider: TestProvider): Promise<{ url: string, requests: () => number, close: () => Promise<void> }> {
  let requests = 0
  const server: Server = http.createServer((req, res) => {
    requests++
    const body = req.url === '/jwks' ? { keys: [provider.publicJwk] } : { access_token: 'stolen', token_type: 'Bearer' }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: async () => { await new Promise((resolve) => server.close(resolve)) }
  }
}
