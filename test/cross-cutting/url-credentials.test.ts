/**
 * Credentials inside URLs (`https://user:pass@host/...?secret=x`): configured discovery URLs,
 * and key-set / token-endpoint URLs handed over by discovery. Whatever fails, log lines and
 * error messages name the URL by origin and path only.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import express from 'express'
import { feastAuthzExpress } from '../../src/adapters/express.ts'
import { createIdpTokenSource } from '../../src/client/idp-token.ts'
import { startApp } from '../helpers/authz-app.ts'
import { runCli } from '../helpers/cli.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { captureLogs } from '../helpers/logs.ts'
import { closedPort, listenOnLoopback } from '../helpers/listen.ts'

const SECRETS = ['user:', 'hunter2', 'secret=x', 'tokenvalue']
const withCredentials = (base: string, path: string): string => `${base.replace('://', '://user:hunter2@')}${path}?secret=x&access_token=tokenvalue#tokenvalue`
const assertClean = (text: string): void => {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${JSON.stringify(secret)} appears in: ${text}`)
}

describe('URLs with credentials never reach a log line or an error message', () => {
  let provider: TestProvider
  let closedBase: string
  let dir: string

  before(async () => {
    // The provider is started here, not by the OIDC-app fixture: the servers name it by URLs carrying credentials.
    provider = await startOidcProvider()
    closedBase = `http://127.0.0.1:${await closedPort()}`
    dir = mkdtempSync(join(tmpdir(), 'feast-authz-url-credentials-'))
  })
  after(async () => {
    await provider?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  const unreachableDiscovery = (): string => withCredentials(closedBase, '/.well-known/openid-configuration')

  test('Fastify: an unreachable discovery URL with credentials is a 503, logged by origin and path', async () => {
    const app = await startApp({ auth: { type: 'oidc', client_id: 'feast', auth_discovery_url: unreachableDiscovery() } })
    try {
      const response = await app.call('/whoami', `Bearer ${await provider.issue({})}`)
      assert.equal(response.status, 503)
      const logs = app.logs.raw.join('')
      assert.ok(logs.includes(`${closedBase}/.well-known/openid-configuration`), logs)
      assertClean(logs)
    } finally {
      await app.close()
    }
  })

  test('Express: the same, through the adapter\'s logger', async () => {
    const logs = captureLogs()
    const authz = feastAuthzExpress({ config: { project: 'p', auth: { type: 'oidc', client_id: 'feast', auth_discovery_url: unreachableDiscovery() } }, logger: logs.logger })
    const app = express()
    app.use(authz.authenticate)
    app.get('/whoami', (_req, res) => { res.json({}) })
    const { server, url } = await listenOnLoopback(app)
    try {
      const response = await fetch(`${url}/whoami`, { headers: { authorization: `Bearer ${await provider.issue({})}` } })
      assert.equal(response.status, 503)
      const text = JSON.stringify(logs.lines)
      assert.ok(text.includes('OIDC discovery failed'))
      assertClean(text)
    } finally {
      await new Promise((resolve) => server.close(resolve))
      await authz.close()
    }
  })

  test('inspect: the failure on stderr names the discovery URL by origin and path', async () => {
    const config = join(dir, 'feature_store.yaml')
    writeFileSync(config, `project: demo\nauth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: "${unreachableDiscovery()}"\n`)
    const { code, stderr } = await runCli(['inspect', '--config', config, '--token', await provider.issue({})])
    assert.equal(code, 3)
    assert.match(stderr, /provider_unavailable/)
    assert.ok(stderr.includes(`${closedBase}/.well-known/openid-configuration`), stderr)
    assertClean(stderr)
  })

  test('a key-set URL with credentials handed over by discovery is logged by origin and path', async () => {
    provider.fault('discovery', { rewrite: (doc) => ({ ...doc, jwks_uri: withCredentials(closedBase, '/jwks') }) })
    const app = await startApp({ auth: { type: 'oidc', client_id: 'feast', auth_discovery_url: provider.discoveryUrl } })
    try {
      assert.equal((await app.call('/whoami', `Bearer ${await provider.issue({})}`)).status, 503)
      const logs = app.logs.raw.join('')
      assert.ok(logs.includes(`${closedBase}/jwks`), logs)
      assertClean(logs)
    } finally {
      provider.fault('discovery', null)
      await app.close()
    }
  })

  test('a token-endpoint URL with credentials handed over by discovery is named by origin and path in the client\'s error', async () => {
    provider.fault('discovery', { rewrite: (doc) => ({ ...doc, token_endpoint: withCredentials(closedBase, '/token') }) })
    const source = createIdpTokenSource({
      auth_discovery_url: provider.discoveryUrl,
      client_id: provider.clientId,
      client_secret: provider.clientSecret,
      verify_ssl: true,
      token_refresh_margin_seconds: 30
    })
    try {
      await assert.rejects(source.get(), (error: Error) => {
        assert.ok(error.message.includes(`${closedBase}/token`), error.message)
        assertClean(error.message)
        return true
      })
    } finally {
      provider.fault('discovery', null)
      source.close()
    }
  })
})
