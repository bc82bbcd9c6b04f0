import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createAuthFetch, type AuthFetch } from '../../src/client/auth-fetch.ts'
import { loadClientAuthConfig } from '../../src/client/validate.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { startProtectedApp, type ProtectedApp } from '../helpers/protected-app.ts'
import { startTokenEndpointStub, type TokenEndpointStub } from '../helpers/token-endpoint-stub.ts'

describe('a client configured like a user against a real server and provider', () => {
  let idp: TestProvider
  let server: ProtectedApp
  let stub: TokenEndpointStub

  before(async () => {
    // The provider is started here, not by the OIDC-app fixture: the client library against the protected app and a token-endpoint stub.
    idp = await startOidcProvider({
      users: {
        reader: { password: 'reader-pw', claims: { preferred_username: 'reader' } },
        nobody: { password: 'nobody-pw', claims: { preferred_username: 'nobody' } }
      }
    })
    // Roles per user through the provider's claims: `reader` holds the role, `nobody` does not.
    idp.users.reader!.claims.resource_access = { [idp.clientId]: { roles: ['reader'] } }
    server = await startProtectedApp({ type: 'oidc', auth_discovery_url: idp.discoveryUrl, client_id: idp.clientId })
    stub = await startTokenEndpointStub([])
  })
  after(async () => {
    await server?.close()
    await stub?.close()
    await idp?.close()
  })

  const clients: AuthFetch[] = []
  after(() => { for (const client of clients) client.provider.close() })
  const clientFetch = (auth: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): AuthFetch => {
    const client = createAuthFetch(loadClientAuthConfig({ project: 'test', auth: { type: 'oidc', ...auth } }), { env, serviceAccountTokenPath: '/nonexistent/token' })
    clients.push(client)
    return client
  }

  const passwordGrant = (username: string, password: string): Record<string, unknown> =>
    ({ auth_discovery_url: idp.discoveryUrl, client_id: idp.clientId, client_secret: idp.clientSecret, username, password })

  it('gets 200 on a protected route when its user holds the role', async () => {
    const response = await clientFetch(passwordGrant('reader', 'reader-pw'))(`${server.url}/features/driver`)
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), { features: ['trips_today'] })
  })

  it('gets 403 on the same route when its user lacks the role', async () => {
    const authFetch = clientFetch(passwordGrant('nobody', 'nobody-pw'))
    assert.equal((await authFetch(`${server.url}/features/driver`)).status, 403)
    const whoami = await (await authFetch(`${server.url}/whoami`)).json() as { principal: { username: string } }
    assert.equal(whoami.principal.username, 'nobody')
  })

  it('is identified as the application with the client-credentials grant', async () => {
    const response = await clientFetch({ auth_discovery_url: idp.discoveryUrl, client_id: idp.clientId, client_secret: idp.clientSecret })(`${server.url}/whoami`)
    assert.equal(response.status, 200)
    assert.equal(((await response.json()) as { principal: { source: string } }).principal.source, 'oidc')
  })

  it('gets 401 with a token the provider never issued', async () => {
    assert.equal((await clientFetch({ token: 'not.a.token' })(`${server.url}/whoami`)).status, 401)
  })

  it('sends the token found in the variable named by token_env_var', async () => {
    const token = await idp.issue({ preferred_username: 'env-user', resource_access: { [idp.clientId]: { roles: ['reader'] } } })
    assert.equal((await clientFetch({ token_env_var: 'MY_FEAST_TOKEN' }, { MY_FEAST_TOKEN: token })(`${server.url}/features/driver`)).status, 200)
  })

  it('recovers from a token the server refuses: drops it, fetches a fresh one and retries once', async () => {
    const good = await idp.issue({ preferred_username: 'retry-user' })
    stub.replies = [{ status: 200, body: { access_token: 'rejected.by.server', expires_in: 3600 } }, { status: 200, body: { access_token: good, expires_in: 3600 } }]
    const authFetch = clientFetch({ auth_discovery_url: stub.discoveryUrl, client_id: 'app', client_secret: 'app-secret' })
    const before = stub.forms.length
    const response = await authFetch(`${server.url}/whoami`)
    assert.equal(response.status, 200)
    assert.equal(stub.forms.length - before, 2)
    // The fresh token is now the cached one: no further token request.
    assert.equal((await authFetch(`${server.url}/whoami`)).status, 200)
    assert.equal(stub.forms.length - before, 2)
  })

  it('gives up after one retry when the fresh token is refused too', async () => {
    stub.replies = [{ status: 200, body: { access_token: 'bad.one.x', expires_in: 3600 } }, { status: 200, body: { access_token: 'bad.two.x', expires_in: 3600 } }, { status: 200, body: { access_token: 'bad.three.x', expires_in: 3600 } }]
    const before = stub.forms.length
    const response = await clientFetch({ auth_discovery_url: stub.discoveryUrl, client_id: 'app', client_secret: 'app-secret' })(`${server.url}/whoami`)
    assert.equal(response.status, 401)
    assert.equal(stub.forms.length - before, 2)
  })
})
