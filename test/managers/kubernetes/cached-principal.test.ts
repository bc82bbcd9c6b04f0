import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, test } from 'node:test'
import { createKubernetesManager } from '../../../src/managers/kubernetes/kubernetes-manager.ts'
import type { AuthManager } from '../../../src/managers/types.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, serviceAccountJwt, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { NO_POD, KUBERNETES_CONFIG as CONFIG, managerFor } from '../../helpers/kubernetes.ts'
import { captureLogs } from '../../helpers/logs.ts'
import { eventually } from '../../helpers/eventually.ts'

describe('authenticateCached in kubernetes mode', () => {
  let api: FakeKubeApi
  let manager: AuthManager
  let offsetMs = 0
  const roles = (token: string): readonly string[] | undefined => manager.authenticateCached?.(token)?.roles

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    // A clock the tests move forward to pass TTLs; the informer's watchdog (360 s) never trips.
    manager = managerFor(api, { tuning: { now: () => Date.now() + offsetMs } })
    await manager.warmUp()
    assert.equal(manager.health().ready, true)
  })
  beforeEach(() => { offsetMs = 0 })
  after(async () => {
    await manager?.close()
    await api?.close()
  })

  /** A token of service account `apps/<account>` that the manager has reviewed once. */
  const reviewed = async (account: string, token = jwsToken(`${account}-${Math.random()}`)): Promise<string> => {
    api.addToken(token, serviceAccountIdentity('apps', account))
    await manager.authenticate(token)
    return token
  }

  test('a reviewed token is answered synchronously with the same principal and no API call', async () => {
    const token = await reviewed('alice')
    const first = await manager.authenticate(token)
    api.resetCalls()
    const cached = manager.authenticateCached?.(token)
    assert.ok(cached !== undefined && !(cached instanceof Promise), 'a principal, not a promise')
    assert.equal(cached, first)
    assert.equal(manager.authenticateCached?.(token), first)
    assert.deepEqual(cached.roles, ['reader'])
    assert.equal(api.calls.tokenReviews + api.calls.roleBindingLists, 0)
  })

  test('a token never reviewed is left to authenticate', () => {
    assert.equal(manager.authenticateCached?.(jwsToken('never-seen')), undefined)
  })

  test('a rejected token is never answered from the cache', async () => {
    const token = jwsToken('unknown-to-the-cluster')
    await assert.rejects(async () => await manager.authenticate(token), { code: 'token_review_rejected' })
    assert.equal(manager.authenticateCached?.(token), undefined)
  })

  test('a binding added or removed changes the cached principal without a new review', async () => {
    const token = await reviewed('bob')
    assert.deepEqual(roles(token), [])
    api.resetCalls()
    api.putRole(feastRole('feast', 'writer'))
    api.putRoleBinding(roleBinding('feast', 'bob-writer', 'writer', [{ kind: 'ServiceAccount', name: 'bob', namespace: 'apps' }]))
    await eventually(() => roles(token)?.includes('writer') === true, 'the new binding in the cached principal')
    api.deleteRoleBinding('feast', 'bob-writer')
    await eventually(() => roles(token)?.length === 0, 'the removed binding to leave the cached principal')
    assert.equal(api.calls.tokenReviews + api.calls.roleBindingLists, 0)
  })

  test('the review TTL ends what the cache vouches for, and the next request reviews again', async () => {
    const token = await reviewed('alice')
    offsetMs = 59_000
    assert.deepEqual(roles(token), ['reader'])
    offsetMs = 60_001
    assert.equal(manager.authenticateCached?.(token), undefined)
    api.resetCalls()
    await manager.authenticate(token)
    assert.equal(api.calls.tokenReviews, 1)
  })

  test('the token\'s exp ends what the cache vouches for when it comes first', async () => {
    const token = await reviewed('carol', serviceAccountJwt('apps', 'carol', { exp: Math.floor(Date.now() / 1000) + 10 }))
    assert.equal(manager.authenticateCached?.(token)?.username, 'system:serviceaccount:apps:carol')
    offsetMs = 11_000
    assert.equal(manager.authenticateCached?.(token), undefined)
  })

  test('a non-JWS token is never answered from the cache', () => {
    assert.equal(manager.authenticateCached?.('not-a-jwt'), undefined)
  })
})

describe('authenticateCached before the informer has synced', () => {
  test('leaves the request to authenticate, which lists the bindings', async () => {
    const api = await startFakeKubeApi({ namespace: 'feast' })
    try {
      api.setFault('rolebindings', { status: 500 })
      api.addToken(jwsToken('dave'), serviceAccountIdentity('apps', 'dave'))
      const manager = createKubernetesManager(CONFIG, {
        logger: captureLogs().logger,
        connection: { kubeConfig: api.kubeConfig(), source: 'kubeconfig', description: 'fake API server' },
        serviceAccountDir: NO_POD,
        env: {},
        tuning: { informer: { restartBackoffMs: { initial: 5000, max: 5000 } } }
      })
      try {
        await assert.rejects(async () => await manager.authenticate(jwsToken('dave')), { code: 'cluster_unavailable' })
        // The review is cached, but the roles cannot be known without the bindings.
        assert.equal(manager.authenticateCached?.(jwsToken('dave')), undefined)
        api.setFault('rolebindings', undefined)
        assert.deepEqual((await manager.authenticate(jwsToken('dave'))).roles, [])
      } finally {
        await manager.close()
      }
    } finally {
      await api.close()
    }
  })
})
