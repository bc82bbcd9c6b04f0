import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { oidcAuth, startApp, type TestApp } from '../../helpers/authz-app.ts'
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'

// A provider behind HTTPS with a self-signed certificate (generated per run, SAN IP:127.0.0.1).

describe('HTTPS provider with a self-signed certificate', () => {
  let provider: TestProvider
  let token: string
  const apps: TestApp[] = []
  const start = async (extra: Record<string, unknown>): Promise<TestApp> => {
    const app = await startApp({ auth: oidcAuth(provider, extra) })
    apps.push(app)
    return app
  }

  before(async () => {
    // The provider is started here, not by the OIDC-app fixture: one HTTPS provider shared by servers with different TLS settings.
    provider = await startOidcProvider({ https: true, alg: 'ES256' })
    token = await provider.issue({ preferred_username: 'alice', roles: ['reader'] })
  })
  after(async () => {
    await Promise.all(apps.map(async (app) => { await app.close() }))
    await provider?.close()
  })

  test('the provider really is HTTPS', () => {
    assert.match(provider.discoveryUrl, /^https:\/\/127\.0\.0\.1:\d+\//)
  })

  test('with TLS verification on (the default), requests get 503 with Retry-After and the log says why', async () => {
    const app = await start({})
    const response = await app.call('/whoami', `Bearer ${token}`)
    assert.equal(response.status, 503)
    assert.equal(response.body.code, 'provider_unavailable')
    assert.match(response.headers.get('retry-after') ?? '', /^\d+$/)
    const line = app.logs.raw.find((entry) => entry.includes('OIDC discovery failed'))
    assert.ok(line !== undefined, 'a log line reports the discovery failure')
    assert.match(line, /SELF_SIGNED|UNABLE_TO_VERIFY|CERT/)
    assert.match(line, /ca_cert_path/)
  })

  test('with verify_ssl: false, tokens are validated, and a startup warning says TLS is not verified', async () => {
    const app = await start({ verify_ssl: false })
    const response = await app.call('/whoami', `Bearer ${token}`)
    assert.equal(response.status, 200)
    assert.deepEqual(response.body.principal, { username: 'alice', roles: ['reader'], groups: [], namespaces: [], source: 'oidc' })
    assert.ok(app.logs.raw.some((line) => line.includes('"level":40') && line.includes('verify_ssl is false')))
  })

  test('with ca_cert_path naming the provider\'s certificate, tokens are validated with verification on', async () => {
    const app = await start({ ca_cert_path: provider.caCertPath })
    const response = await app.call('/whoami', `Bearer ${token}`)
    assert.equal(response.status, 200)
    assert.equal((response.body.principal as { username: string }).username, 'alice')
  })

  test('verify_ssl: false does not let a bad token through', async () => {
    const app = await start({ verify_ssl: false })
    const response = await app.call('/whoami', `Bearer ${await provider.sign({ preferred_username: 'alice' }, { noExp: true })}`)
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'missing_exp')
  })
})
