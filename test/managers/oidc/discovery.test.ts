import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { startApp, type TestApp } from '../../helpers/authz-app.ts'
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'

/** A discovery endpoint answering whatever document the test sets. */
let document: unknown = {}
let server: http.Server
let discoveryUrl: string
let provider: TestProvider

before(async () => {
  // The provider is started here, not by the OIDC-app fixture: the servers read discovery documents this file serves itself.
  provider = await startOidcProvider()
  server = http.createServer((_request, response) => {
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify(document))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  discoveryUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/openid-configuration`
})
after(async () => {
  await new Promise((resolve) => server.close(resolve))
  await provider.close()
})

async function statusWith (doc: unknown): Promise<{ status: number, code: unknown, logs: string[] }> {
  document = doc
  const app: TestApp = await startApp({ auth: { type: 'oidc', client_id: 'feast', auth_discovery_url: discoveryUrl } })
  try {
    const token = await provider.issue({ preferred_username: 'alice' })
    const response = await app.call('/whoami', `Bearer ${token}`)
    return { status: response.status, code: response.body.code, logs: app.logs.raw }
  } finally {
    await app.close()
  }
}

describe('a broken discovery document is a provider fault, never a 401', () => {
  for (const [label, jwksUri] of [['no scheme or host', 'http://'], ['an unparsable host', 'http://[bad'], ['another scheme', 'ftp://127.0.0.1/jwks'], ['a number', 42]] as const) {
    test(`a jwks_uri that is ${label} gives 503 and a logged error`, async () => {
      const { status, code, logs } = await statusWith({ issuer: 'x', jwks_uri: jwksUri })
      assert.equal(status, 503)
      assert.equal(code, 'provider_unavailable')
      assert.ok(logs.some((line) => line.includes('no http(s) jwks_uri')), 'the reason is logged')
    })
  }

  test('a discovery document that is a list gives 503', async () => {
    const { status } = await statusWith([{ jwks_uri: 'http://127.0.0.1/jwks' }])
    assert.equal(status, 503)
  })

  test('a valid document pointing at the real key set authenticates', async () => {
    const { status } = await statusWith({ issuer: provider.issuer, jwks_uri: provider.jwksUri })
    assert.equal(status, 200)
  })
})
