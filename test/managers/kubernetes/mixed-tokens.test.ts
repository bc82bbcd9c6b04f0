import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { loadAuthConfig } from '../../../src/config/auth-config.ts'
import { createAuthManager } from '../../../src/managers/create-manager.ts'
import type { KubernetesTuning } from '../../../src/managers/kubernetes/kubernetes-manager.ts'
import { serviceAccountTokensForOidc } from '../../../src/managers/kubernetes/service-account-tokens.ts'
import type { AuthManager } from '../../../src/managers/types.ts'
import { groupBasedPolicy, namespaceBasedPolicy, policyGrants, roleBasedPolicy } from '../../../src/permissions/policy.ts'
import type { Principal } from '../../../src/base/principal.ts'
import { startApp, type TestApp } from '../../helpers/authz-app.ts'
import { serviceAccountIdentity, serviceAccountJwt, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'
import { NO_POD } from '../../helpers/kubernetes.ts'
import { captureLogs } from '../../helpers/logs.ts'

function oidcManager (provider: TestProvider, kubernetes: NonNullable<Parameters<typeof createAuthManager>[1]['kubernetes']>): AuthManager {
  const { auth } = loadAuthConfig({ project: 'test', auth: { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId } })
  return createAuthManager(auth, { logger: captureLogs().logger, kubernetes })
}

describe('mixed tokens under auth.type oidc on a cluster', () => {
  let provider: TestProvider
  let api: FakeKubeApi
  let app: TestApp
  const saToken = serviceAccountJwt('apps', 'alice')

  before(async () => {
    // The provider is started here, not by the OIDC-app fixture: the server also holds a Kubernetes manager on the fake API server.
    provider = await startOidcProvider()
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.addToken(saToken, serviceAccountIdentity('apps', 'alice'))
    const manager = oidcManager(provider, { connection: { kubeConfig: api.kubeConfig(), source: 'kubeconfig', description: 'fake API server' } })
    app = await startApp({ auth: { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId }, plugin: { manager } })
  })
  after(async () => {
    await app?.close()
    await api?.close()
    await provider?.close()
  })

  test('a service-account token becomes a namespace-only principal through TokenReview, with no RBAC read', async () => {
    api.resetCalls()
    const response = await app.call('/whoami', `Bearer ${saToken}`)
    assert.equal(response.status, 200)
    assert.deepEqual(response.body.principal, { username: 'system:serviceaccount:apps:alice', roles: [], groups: [], namespaces: ['apps'], source: 'kubernetes' })
    assert.equal(api.calls.tokenReviews, 1)
    assert.equal(api.calls.roleBindingLists + api.calls.roleBindingWatches, 0)
  })

  test('with tokenreviews/create as the only grant (every RBAC read forbidden), a new service-account token is still accepted', async () => {
    const token = serviceAccountJwt('apps', 'carol')
    api.addToken(token, serviceAccountIdentity('apps', 'carol'))
    for (const verb of ['get', 'list', 'watch'] as const) for (const resource of ['rolebindings', 'roles'] as const) api.revoke(verb, resource)
    api.resetCalls()
    try {
      const response = await app.call('/whoami', `Bearer ${token}`)
      assert.equal(response.status, 200)
      assert.deepEqual(response.body.principal, { username: 'system:serviceaccount:apps:carol', roles: [], groups: [], namespaces: ['apps'], source: 'kubernetes' })
      const { roleBindingLists, roleBindingWatches, roleLists, roleWatches, gets } = api.calls
      assert.equal(roleBindingLists + roleBindingWatches + roleLists + roleWatches + gets, 0, 'an RBAC read, which this grant forbids')
    } finally {
      for (const verb of ['get', 'list', 'watch'] as const) for (const resource of ['rolebindings', 'roles'] as const) api.grant(verb, resource, 'feast')
    }
  })

  test('a NamespaceBasedPolicy passes for the service-account token, role and group policies do not', async () => {
    const principal = (await app.call('/whoami', `Bearer ${saToken}`)).body.principal as Principal
    assert.equal(policyGrants(namespaceBasedPolicy(['apps']), principal), true)
    assert.equal(policyGrants(roleBasedPolicy(['reader']), principal), false)
    assert.equal(policyGrants(groupBasedPolicy(['system:serviceaccounts']), principal), false)
  })

  test('the service-account token is reviewed once and then served from the cache', async () => {
    api.resetCalls()
    for (let i = 0; i < 20; i++) assert.equal((await app.call('/whoami', `Bearer ${saToken}`)).status, 200)
    assert.equal(api.calls.tokenReviews, 0)
  })

  test('an OIDC user token on the same server keeps its roles and groups, without a TokenReview', async () => {
    const token = await provider.issue({ preferred_username: 'bob', groups: ['eng'], resource_access: { [provider.clientId]: { roles: ['reader'] } } })
    api.resetCalls()
    const response = await app.call('/whoami', `Bearer ${token}`)
    assert.equal(response.status, 200)
    const principal = response.body.principal as Principal
    assert.deepEqual(principal, { username: 'bob', roles: ['reader'], groups: ['eng'], namespaces: [], source: 'oidc' })
    assert.equal(policyGrants(roleBasedPolicy(['reader']), principal), true)
    assert.equal(policyGrants(groupBasedPolicy(['eng']), principal), true)
    assert.equal(policyGrants(namespaceBasedPolicy(['apps']), principal), false)
    assert.equal(api.calls.tokenReviews, 0)
  })

  for (const [name, signed] of [
    ['a token the provider signed that carries a kubernetes.io claim goes to TokenReview, not to the OIDC path',
      async () => await provider.sign({ preferred_username: 'mallory', 'kubernetes.io': { namespace: 'apps' } })],
    ['the claim is found in a verified payload even when its name is written with JSON escapes',
      async () => await provider.signRaw(`{"preferred_username":"mallory","exp":${Math.floor(Date.now() / 1000) + 300},"kubernetes\\u002eio":{"namespace":"apps"}}`)]
  ] as const) {
    test(name, async () => {
      const token = await signed()
      api.resetCalls()
      const response = await app.call('/whoami', `Bearer ${token}`)
      assert.equal(response.status, 401)
      assert.equal(response.body.code, 'token_review_rejected')
      assert.equal(api.calls.tokenReviews, 1)
    })
  }

  test('a service-account token the cluster does not authenticate is a 401', async () => {
    const response = await app.call('/whoami', `Bearer ${serviceAccountJwt('apps', 'stranger')}`)
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'token_review_rejected')
  })

  test('a service-account token while the API server is down is a 503', async () => {
    const token = serviceAccountJwt('apps', 'late')
    api.addToken(token, serviceAccountIdentity('apps', 'late'))
    api.setFault('tokenreviews', { status: 500 })
    try {
      assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 503)
    } finally {
      api.setFault('tokenreviews', undefined)
    }
  })
})

describe('mixed tokens under auth.type oidc off a cluster', () => {
  let provider: TestProvider
  let manager: AuthManager

  before(async () => {
    provider = await startOidcProvider()
    manager = oidcManager(provider, { env: {}, serviceAccountDir: NO_POD })
  })
  after(async () => {
    await manager?.close()
    await provider?.close()
  })

  test('a service-account token is refused with a 401 that says there is no cluster connection', async () => {
    await assert.rejects(async () => await manager.authenticate(serviceAccountJwt('apps', 'alice')), (error: unknown) => {
      const { code, status, message } = error as { code: string, status: number, message: string }
      return code === 'token_review_rejected' && status === 401 && /no cluster connection/.test(message)
    })
  })

  test('OIDC tokens still work', async () => {
    const token = await provider.issue({ preferred_username: 'bob' })
    assert.equal((await manager.authenticate(token)).username, 'bob')
  })
})

describe('service-account tokens under auth.type oidc share the kubernetes tuning and guards', () => {
  let api: FakeKubeApi

  before(async () => { api = await startFakeKubeApi({ namespace: 'feast' }) })
  after(async () => { await api?.close() })

  const verifierFor = (tuning: KubernetesTuning): ((token: string) => Promise<Principal>) => serviceAccountTokensForOidc({
    logger: captureLogs().logger,
    connection: { kubeConfig: api.kubeConfig(), source: 'kubeconfig', description: 'fake API server' },
    tuning
  })

  test('beyond tuning.maxConcurrentReviews a new service-account token gets a 503', async () => {
    const verify = verifierFor({ maxConcurrentReviews: 1 })
    const [first, second] = [serviceAccountJwt('apps', 'one'), serviceAccountJwt('apps', 'two')]
    api.addToken(first, serviceAccountIdentity('apps', 'one'))
    api.addToken(second, serviceAccountIdentity('apps', 'two'))
    api.setFault('tokenreviews', { delayMs: 300 })
    try {
      const pending = verify(first)
      await assert.rejects(verify(second), { code: 'cluster_unavailable', status: 503 })
      assert.equal((await pending).username, 'system:serviceaccount:apps:one')
    } finally {
      api.setFault('tokenreviews', undefined)
    }
  })

  test('a token with a kubernetes.io claim that is not a canonical compact JWS is refused without a TokenReview', async () => {
    const verify = verifierFor({})
    const padded = `${serviceAccountJwt('apps', 'alice')}=`
    api.resetCalls()
    await assert.rejects(verify(padded), { code: 'malformed_token', status: 401 })
    assert.equal(api.calls.tokenReviews, 0)
  })

  test('a repeated service-account token resolves to the same principal object', async () => {
    const verify = verifierFor({})
    const token = serviceAccountJwt('apps', 'alice')
    api.addToken(token, serviceAccountIdentity('apps', 'alice'))
    assert.equal(await verify(token), await verify(token))
  })
})
