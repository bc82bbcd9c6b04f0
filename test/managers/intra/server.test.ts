import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { SignJWT } from 'jose'
import { ConfigError } from '../../../src/config/errors.ts'
import { mintIntraToken } from '../../../src/base/intra-token.ts'
import { rawToken, startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'
import { startProtectedApp, type ProtectedApp } from '../../helpers/protected-app.ts'

// The manager reads INTRA_COMMUNICATION_BASE64 when the server starts (node --test runs each file in its own process).
const secretText = randomBytes(32).toString('base64')
const secret = new Uint8Array(Buffer.from(secretText, 'base64'))

describe('a server with INTRA_COMMUNICATION_BASE64 set', () => {
  let provider: TestProvider
  let server: ProtectedApp
  let auth: Record<string, unknown>

  before(async () => {
    // The provider is started here, not by the OIDC-app fixture: the permission-protected app with intra tokens (startProtectedApp).
    provider = await startOidcProvider()
    auth = { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId }
    process.env.INTRA_COMMUNICATION_BASE64 = secretText
    server = await startProtectedApp(auth)
  })
  after(async () => {
    delete process.env.INTRA_COMMUNICATION_BASE64
    await server?.close()
    await provider?.close()
  })

  const get = async (path: string, token: string): Promise<{ status: number, body: Record<string, unknown> }> => {
    const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } })
    return { status: response.status, body: await response.json() as Record<string, unknown> }
  }

  it('grants the intra principal to a token signed with the shared secret', async () => {
    const { status, body } = await get('/whoami', await mintIntraToken(secret))
    assert.equal(status, 200)
    assert.deepEqual(body.principal, { username: 'feast-authz:intra-server', roles: [], groups: [], namespaces: [], source: 'intra' })
  })

  it('lets the intra principal through a permission check it has no role for', async () => {
    assert.equal((await get('/features/driver', await mintIntraToken(secret))).status, 200)
  })

  it('still authenticates provider tokens as before', async () => {
    const token = await provider.issue({ preferred_username: 'ann', resource_access: { [provider.clientId]: { roles: ['reader'] } } })
    const { status, body } = await get('/whoami', token)
    assert.equal(status, 200)
    assert.equal((body.principal as { source: string }).source, 'oidc')
  })

  it("rejects Feast's unsigned intra token carrying the secret as preferred_username with 401", async () => {
    const forged = rawToken({ alg: 'none', typ: 'JWT' }, { preferred_username: secretText }, '')
    const { status, body } = await get('/features/driver', forged)
    assert.equal(status, 401)
    assert.notEqual(body.code, undefined)
  })

  it('rejects an intra token signed with another secret with 401', async () => {
    assert.equal((await get('/whoami', await mintIntraToken(new Uint8Array(randomBytes(32))))).status, 401)
  })

  it('rejects an expired intra token with 401', async () => {
    const { status, body } = await get('/whoami', await mintIntraToken(secret, Date.now() - 120_000))
    assert.equal(status, 401)
    assert.equal(body.code, 'token_expired')
  })

  it('rejects an alg-none token with the intra typ with 401', async () => {
    const forged = rawToken({ alg: 'none', typ: 'feast-intra+jwt' }, { sub: 'feast-authz:intra-server', iss: 'feast-authz/intra', aud: 'feast-authz/intra', exp: Math.floor(Date.now() / 1000) + 60 }, '')
    assert.equal((await get('/whoami', forged)).status, 401)
  })

  it('rejects an intra-shaped token signed with the base64 text instead of the decoded secret with 401', async () => {
    const iat = Math.floor(Date.now() / 1000)
    const forged = await new SignJWT({ iss: 'feast-authz/intra', aud: 'feast-authz/intra', sub: 'feast-authz:intra-server', iat, exp: iat + 60 })
      .setProtectedHeader({ alg: 'HS256', typ: 'feast-intra+jwt' })
      .sign(new TextEncoder().encode(secretText))
    assert.equal((await get('/whoami', forged)).status, 401)
  })

  it('rejects a provider-signed token that claims the intra identity without the intra typ: it gets no intra rights', async () => {
    const token = await provider.issue({ sub: 'feast-authz:intra-server', preferred_username: 'feast-authz:intra-server' })
    const { status, body } = await get('/whoami', token)
    assert.equal(status, 200)
    assert.equal((body.principal as { source: string }).source, 'oidc')
    assert.equal((await get('/features/driver', token)).status, 403)
  })
})

describe('a server whose INTRA_COMMUNICATION_BASE64 is unusable', () => {
  let provider: TestProvider
  before(async () => { provider = await startOidcProvider() })
  after(async () => { delete process.env.INTRA_COMMUNICATION_BASE64; await provider?.close() })

  it("refuses to start with Feast's Helm chart default", async () => {
    process.env.INTRA_COMMUNICATION_BASE64 = Buffer.from('intra-server-communication').toString('base64')
    await assert.rejects(startProtectedApp({ type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId }), (error: unknown) => {
      assert.ok(error instanceof ConfigError)
      assert.match(error.message, /INTRA_COMMUNICATION_BASE64: is the publicly known default/)
      return true
    })
  })

  it('refuses to start with a secret shorter than 32 bytes', async () => {
    process.env.INTRA_COMMUNICATION_BASE64 = randomBytes(16).toString('base64')
    await assert.rejects(startProtectedApp({ type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId }), /at least 32 are required/)
  })
})
