import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createAuthFetch, type AuthFetch } from '../../../src/client/auth-fetch.ts'
import { mintIntraToken } from '../../../src/base/intra-token.ts'
import { createAuthManager } from '../../../src/managers/create-manager.ts'
import { AuthError } from '../../../src/base/errors.ts'
import type { AuthManager } from '../../../src/managers/types.ts'
import { silentLogger } from '../../../src/base/logging.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { startProtectedApp, type ProtectedApp } from '../../helpers/protected-app.ts'

const secretText = randomBytes(32).toString('base64')

describe('intra identity and clients on a kubernetes-auth server', () => {
  let api: FakeKubeApi
  let manager: AuthManager
  let server: ProtectedApp
  const clients: AuthFetch[] = []

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.addToken(jwsToken('alice-token'), serviceAccountIdentity('apps', 'alice'))
    api.addToken(jwsToken('bob-token'), serviceAccountIdentity('apps', 'bob'))
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    manager = createAuthManager({ type: 'kubernetes', token_review_cache_ttl_seconds: 60 }, {
      logger: silentLogger,
      kubernetes: { connection: { kubeConfig: api.kubeConfig(), source: 'kubeconfig', description: 'fake API server' }, serviceAccountDir: join(tmpdir(), 'feast-authz-no-pod'), env: {} }
    })
    // Built without INTRA_COMMUNICATION_BASE64; the intra cases below build their own manager with it set.
    server = await startProtectedApp({ type: 'kubernetes' }, { manager })
  })
  after(async () => {
    for (const client of clients) client.provider.close()
    await server?.close()
    await api?.close()
  })

  const clientFetch = (env: NodeJS.ProcessEnv): AuthFetch => {
    const client = createAuthFetch({ type: 'kubernetes', token_review_cache_ttl_seconds: 60 }, { env, serviceAccountTokenPath: '/nonexistent/token' })
    clients.push(client)
    return client
  }

  it('a client outside the cluster with LOCAL_K8S_TOKEN of a service account bound to the role gets 200', async () => {
    assert.equal((await clientFetch({ LOCAL_K8S_TOKEN: jwsToken('alice-token') })(`${server.url}/features/driver`)).status, 200)
  })

  it('a client whose service account lacks the role gets 403', async () => {
    assert.equal((await clientFetch({ LOCAL_K8S_TOKEN: jwsToken('bob-token') })(`${server.url}/features/driver`)).status, 403)
  })

  it('a client with a token the cluster does not know gets 401', async () => {
    assert.equal((await clientFetch({ LOCAL_K8S_TOKEN: jwsToken('unknown-token') })(`${server.url}/features/driver`)).status, 401)
  })

  describe('with INTRA_COMMUNICATION_BASE64 set on the server', () => {
    let intraManager: AuthManager
    before(() => {
      process.env.INTRA_COMMUNICATION_BASE64 = secretText
      intraManager = createAuthManager({ type: 'kubernetes', token_review_cache_ttl_seconds: 60 }, {
        logger: silentLogger,
        kubernetes: { connection: { kubeConfig: api.kubeConfig(), source: 'kubeconfig', description: 'fake API server' }, serviceAccountDir: join(tmpdir(), 'feast-authz-no-pod'), env: {} }
      })
    })
    after(async () => {
      delete process.env.INTRA_COMMUNICATION_BASE64
      await intraManager?.close()
    })

    it('grants the intra principal to a signed intra token without asking the cluster', async () => {
      const reviews = api.calls.tokenReviews
      const principal = await intraManager.authenticate(await mintIntraToken(new Uint8Array(Buffer.from(secretText, 'base64'))))
      assert.equal(principal.source, 'intra')
      assert.equal(api.calls.tokenReviews, reviews)
    })

    it("rejects Feast's unsigned kubernetes intra token (sub \":::<secret>\") as an ordinary bad token", async () => {
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')
      const payload = Buffer.from(JSON.stringify({ sub: `:::${secretText}` })).toString('base64url')
      await assert.rejects(async () => await intraManager.authenticate(`${header}.${payload}.`), (error: unknown) => {
        assert.ok(error instanceof AuthError)
        assert.equal(error.status, 401)
        return true
      })
    })

    it('still authenticates service-account tokens through the cluster', async () => {
      assert.equal((await intraManager.authenticate(jwsToken('alice-token'))).source, 'kubernetes')
    })
  })
})
