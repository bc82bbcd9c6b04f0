import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { oidcAuth, startApp, type TestApp } from '../../helpers/authz-app.ts'
import { type TestProvider } from '../../helpers/oidc-provider.ts'
import { useOidcApp } from '../../helpers/oidc-app.ts'

// Access-token shapes of common identity providers, issued as real JWTs by a real provider
// and sent to a real server: each must yield exactly the principal Feast would build.

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47'
const ENTRA_V1_ISSUER = `https://sts.windows.net/${TENANT}/`

describe('token shapes of identity providers', () => {
  const app = useOidcApp()

  const principalOf = async (claims: Record<string, unknown>): Promise<unknown> => {
    const response = await app.call('/whoami', `Bearer ${await app.provider.issue(claims)}`)
    assert.equal(response.status, 200, JSON.stringify(response.body))
    return response.body.principal
  }

  test('a Keycloak user token gives preferred_username, the client roles merged with top-level roles, and group paths verbatim', async () => {
    const principal = await principalOf({
      preferred_username: 'alice',
      azp: app.provider.clientId,
      typ: 'Bearer',
      realm_access: { roles: ['offline_access', 'uma_authorization'] },
      resource_access: { [app.provider.clientId]: { roles: ['reader', 'writer'] }, account: { roles: ['manage-account'] } },
      roles: ['writer', 'auditor'],
      groups: ['/data-science/feast', '/admins'],
      scope: 'openid profile email'
    })
    assert.deepEqual(principal, {
      username: 'alice',
      roles: ['reader', 'writer', 'auditor'],
      groups: ['/data-science/feast', '/admins'],
      namespaces: [],
      source: 'oidc'
    })
  })

  test('Keycloak realm roles and the roles of other clients are not read', async () => {
    const principal = await principalOf({
      preferred_username: 'bob',
      realm_access: { roles: ['admin'] },
      resource_access: { 'other-client': { roles: ['admin'] } }
    }) as { roles: string[] }
    assert.deepEqual(principal.roles, [])
  })

  test('an Entra ID v2 user token gives preferred_username, app roles and GUID groups', async () => {
    const principal = await principalOf({
      ver: '2.0',
      preferred_username: 'alice@contoso.com',
      name: 'Alice',
      oid: '00000000-0000-0000-66f3-3332eca7ea81',
      tid: TENANT,
      azp: '6e74172b-be56-4843-9ff4-e66a39bb12e3',
      roles: ['Feast.Reader'],
      groups: ['a3b2c1d0-1111-2222-3333-444455556666', '0f9e8d7c-aaaa-bbbb-cccc-ddddeeeeffff']
    })
    assert.deepEqual(principal, {
      username: 'alice@contoso.com',
      roles: ['Feast.Reader'],
      groups: ['a3b2c1d0-1111-2222-3333-444455556666', '0f9e8d7c-aaaa-bbbb-cccc-ddddeeeeffff'],
      namespaces: [],
      source: 'oidc'
    })
  })

  test('an Entra ID user token without preferred_username falls back to upn before azp', async () => {
    const principal = await principalOf({
      upn: 'carol@contoso.com',
      azp: '6e74172b-be56-4843-9ff4-e66a39bb12e3',
      sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ'
    }) as { username: string }
    assert.equal(principal.username, 'carol@contoso.com')
  })

  test('an Okta access token (no preferred_username, no azp) gives sub as the username and its groups', async () => {
    const principal = await principalOf({
      ver: 1,
      uid: '00uid4BxXw6I6TV4m0g3',
      cid: '0oa1example',
      sub: 'alice@example.com',
      scp: ['openid', 'feast.read'],
      groups: ['Everyone', 'feast-admins']
    })
    assert.deepEqual(principal, {
      username: 'alice@example.com',
      roles: [],
      groups: ['Everyone', 'feast-admins'],
      namespaces: [],
      source: 'oidc'
    })
  })

  test('an Auth0 access token authenticates as its azp, and namespaced claims are not roles or groups', async () => {
    const principal = await principalOf({
      sub: 'auth0|64b7e0c2f1a2',
      azp: 'bA1cD2eF3gH4iJ5k',
      scope: 'read:features',
      permissions: ['read:features'],
      'https://feast.example.com/roles': ['admin'],
      'https://feast.example.com/groups': ['ops']
    })
    assert.deepEqual(principal, { username: 'bA1cD2eF3gH4iJ5k', roles: [], groups: [], namespaces: [], source: 'oidc' })
  })

  test('a Dex token gives preferred_username and its groups', async () => {
    const principal = await principalOf({
      sub: 'CiQwOGE4Njg0Yi1kYjg4LTRiNzMtOTBhOS0zY2QxNjYxZjU0NjYSBWxvY2Fs',
      azp: 'example-app',
      email: 'kilgore@kilgore.trout',
      email_verified: true,
      name: 'Kilgore Trout',
      preferred_username: 'kilgore',
      groups: ['authors', 'trout-fans'],
      federated_claims: { connector_id: 'local', user_id: '08a8684b' }
    })
    assert.deepEqual(principal, { username: 'kilgore', roles: [], groups: ['authors', 'trout-fans'], namespaces: [], source: 'oidc' })
  })

  test('null and non-string username claims are skipped, not trusted and not fatal', async () => {
    const principal = await principalOf({ preferred_username: null, upn: 42, azp: ['x'], appid: { id: 'y' }, sub: 'the-subject' }) as { username: string }
    assert.equal(principal.username, 'the-subject')
  })

  test('roles and groups keep their first-seen order without duplicates, and non-string entries are dropped', async () => {
    const principal = await principalOf({
      preferred_username: 'dave',
      resource_access: { [app.provider.clientId]: { roles: ['b', 1, null, 'a', 'b'] } },
      roles: ['a', 'c', { name: 'x' }, 'b', ''],
      groups: ['g1', 7, 'g1', 'g2', null]
    })
    assert.deepEqual(principal, { username: 'dave', roles: ['b', 'a', 'c'], groups: ['g1', 'g2'], namespaces: [], source: 'oidc' })
  })

  test('roles and groups claims of the wrong type give no roles or groups', async () => {
    const principal = await principalOf({
      preferred_username: 'erin',
      resource_access: { [app.provider.clientId]: { roles: 'admin' } },
      roles: 'admin',
      groups: 'admins'
    })
    assert.deepEqual(principal, { username: 'erin', roles: [], groups: [], namespaces: [], source: 'oidc' })
  })

  test('role names keep their case', async () => {
    const principal = await principalOf({ preferred_username: 'frank', roles: ['Admin', 'admin'] }) as { roles: string[] }
    assert.deepEqual(principal.roles, ['Admin', 'admin'])
  })

  test('a token with no username claim at all is rejected with 401 missing_username', async () => {
    const response = await app.call('/whoami', `Bearer ${await app.provider.issue({ sub: undefined, roles: ['admin'] })}`)
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'missing_username')
  })

  test('a token from the password grant carries the user\'s claims', async () => {
    app.provider.addUser('grace', 'pw-grace', { preferred_username: 'grace', groups: ['eng'], roles: ['reader'] })
    const response = await app.call('/whoami', `Bearer ${await app.provider.issueForUser('grace')}`)
    assert.equal(response.status, 200)
    assert.deepEqual(response.body.principal, { username: 'grace', roles: ['reader'], groups: ['eng'], namespaces: [], source: 'oidc' })
  })
})

describe('Entra ID v1 app-only tokens (issuer https://sts.windows.net/<tenant>/)', () => {
  // oidc-provider accepts an issuer identifier unrelated to where it listens and still
  // serves discovery and JWKS from the loopback address, so the tokens are real.
  const app = useOidcApp({ provider: { issuer: ENTRA_V1_ISSUER } })
  let provider: TestProvider
  let withV1Issuer: TestApp
  let withV2Issuer: TestApp

  const appOnlyClaims = {
    aud: 'api://feast',
    appid: '2f3a9c4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
    appidacr: '1',
    idp: ENTRA_V1_ISSUER,
    oid: '9a8b7c6d-0000-4000-8000-123456789abc',
    sub: '9a8b7c6d-0000-4000-8000-123456789abc',
    tid: TENANT,
    ver: '1.0',
    roles: ['Feast.Writer', 'Feast.Reader']
  }

  // Two more servers on the same provider, checking the issuer.
  before(async () => {
    provider = app.provider
    withV1Issuer = await startApp({ auth: oidcAuth(provider, { issuer: ENTRA_V1_ISSUER, audience: 'api://feast' }) })
    withV2Issuer = await startApp({ auth: oidcAuth(provider, { issuer: `https://login.microsoftonline.com/${TENANT}/v2.0` }) })
  })
  after(async () => {
    await Promise.all([withV1Issuer?.close(), withV2Issuer?.close()])
  })

  test('the provider really issues tokens with the sts.windows.net issuer', async () => {
    const token = await provider.issue(appOnlyClaims)
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss: string }
    assert.equal(payload.iss, ENTRA_V1_ISSUER)
  })

  test('an app-only token authenticates as its appid with its top-level app roles', async () => {
    const response = await app.call('/whoami', `Bearer ${await provider.issue(appOnlyClaims)}`)
    assert.equal(response.status, 200)
    assert.deepEqual(response.body.principal, {
      username: '2f3a9c4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
      roles: ['Feast.Writer', 'Feast.Reader'],
      groups: [],
      namespaces: [],
      source: 'oidc'
    })
  })

  test('with issuer and audience set to the values inside the token, the token is accepted', async () => {
    const response = await withV1Issuer.call('/whoami', `Bearer ${await provider.issue(appOnlyClaims, { audience: 'api://feast' })}`)
    assert.equal(response.status, 200)
  })

  test('with issuer set to the v2 endpoint of the same tenant, v1 tokens are rejected as issuer_mismatch', async () => {
    const response = await withV2Issuer.call('/whoami', `Bearer ${await provider.issue(appOnlyClaims)}`)
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'issuer_mismatch')
  })
})
