import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { AuthError } from '../../../src/base/errors.ts'
import type { AuthManager } from '../../../src/managers/types.ts'
import { startApp, type TestApp } from '../../helpers/authz-app.ts'
import { jwsToken, roleBinding, serviceAccountIdentity, serviceAccountJwt, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { managerFor } from '../../helpers/kubernetes.ts'
import { captureLogs } from '../../helpers/logs.ts'
import { eventually } from '../../helpers/eventually.ts'

const totalCalls = (api: FakeKubeApi): number => api.calls.tokenReviews + api.calls.roleBindingLists + api.calls.roleBindingWatches

describe('tokens that are not JWTs', () => {
  let api: FakeKubeApi
  let manager: AuthManager
  let app: TestApp

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.addToken('opaque-but-known', serviceAccountIdentity('apps', 'alice'))
    manager = managerFor(api)
    app = await startApp({ auth: { type: 'kubernetes' }, plugin: { manager } })
    await eventually(() => manager.health().ready && api.openWatches() === 2, 'the informers to sync and watch')
  })
  after(async () => {
    await app?.close()
    await api?.close()
  })

  test('a token that is not a compact JWS is a 401 malformed_token and costs no API call', async () => {
    api.resetCalls()
    for (const token of ['opaque-but-known', 'a.b', 'a.b.c.d', 'eyJh+bGci.eyJzdWIi.sig', 'eyJhbGci.eyJzdWIi.sig=']) {
      const response = await app.call('/whoami', `Bearer ${token}`)
      assert.equal(response.status, 401, token)
      assert.equal(response.body.code, 'malformed_token', token)
    }
    assert.equal(totalCalls(api), 0)
  })
})

describe('a flood of rejected tokens', () => {
  let api: FakeKubeApi

  before(async () => { api = await startFakeKubeApi({ namespace: 'feast' }) })
  after(async () => { await api?.close() })

  test('does not evict the cached identities of good tokens', async () => {
    const manager = managerFor(api, { tuning: { maxCachedTokens: 10 } })
    try {
      const good = Array.from({ length: 10 }, (_, i) => jwsToken(`good-${i}`))
      for (const token of good) api.addToken(token, serviceAccountIdentity('apps', 'alice'))
      await manager.warmUp()
      for (const token of good) await manager.authenticate(token)
      for (let i = 0; i < 30; i++) await assert.rejects(async () => await manager.authenticate(jwsToken(`junk-${i}`)), { code: 'token_review_rejected' })
      api.resetCalls()
      for (const token of good) assert.equal((await manager.authenticate(token)).username, 'system:serviceaccount:apps:alice')
      assert.equal(api.calls.tokenReviews, 0)
    } finally {
      await manager.close()
    }
  })
})

describe('an API server slower than the token arrival rate', () => {
  let api: FakeKubeApi

  before(async () => { api = await startFakeKubeApi({ namespace: 'feast' }) })
  after(async () => { await api?.close() })

  test('above maxConcurrentReviews, a new token gets 503 cluster_unavailable with Retry-After at once', async () => {
    const { logger, lines } = captureLogs()
    const manager = managerFor(api, { tuning: { maxConcurrentReviews: 2 }, logger })
    try {
      const tokens = ['slow-1', 'slow-2', 'slow-3'].map((name) => serviceAccountJwt('apps', name))
      for (const token of tokens) api.addToken(token, serviceAccountIdentity('apps', 'alice'))
      await manager.warmUp()
      api.setFault('tokenreviews', { delayMs: 500 })
      api.resetCalls()
      const pending = [manager.authenticate(tokens[0]!), manager.authenticate(tokens[1]!), manager.authenticate(tokens[0]!)]
      await assert.rejects(async () => await manager.authenticate(tokens[2]!), (error: unknown) => {
        assert.ok(error instanceof AuthError)
        assert.equal(error.code, 'cluster_unavailable')
        assert.equal(error.status, 503)
        assert.ok((error.retryAfterSeconds ?? 0) > 0, 'a Retry-After')
        return true
      })
      assert.ok(lines.some((line) => line.level === 40 && /maxConcurrentReviews/.test(line.msg)), 'a warning that names the tuning option')
      await Promise.all(pending)
      assert.equal(api.calls.tokenReviews, 2)
      api.setFault('tokenreviews', undefined)
      assert.equal((await manager.authenticate(tokens[2]!)).username, 'system:serviceaccount:apps:alice')
    } finally {
      api.setFault('tokenreviews', undefined)
      await manager.close()
    }
  })
})

describe('review limits in the tuning options', () => {
  test('a maxConcurrentReviews below 1 is refused at startup with the option named', async () => {
    const api = await startFakeKubeApi({ namespace: 'feast' })
    try {
      assert.throws(() => managerFor(api, { tuning: { maxConcurrentReviews: 0 } }), {
        name: 'OptionError',
        option: 'kubernetes.tuning.maxConcurrentReviews',
        message: 'feast-authz: kubernetes.tuning.maxConcurrentReviews must be an integer from 1 to 1000000, got 0'
      })
      assert.throws(() => managerFor(api, { tuning: { maxCachedRejections: 1.5 } }), /kubernetes\.tuning\.maxCachedRejections must be an integer from 0 to 10000000, got 1\.5/)
    } finally {
      await api.close()
    }
  })
})

describe('the RoleBinding informer', () => {
  test('is not started by a malformed token', async () => {
    const api = await startFakeKubeApi({ namespace: 'feast' })
    try {
      api.putRoleBinding(roleBinding('feast', 'r', 'reader', [{ kind: 'User', name: 'u' }]))
      const manager = managerFor(api)
      await assert.rejects(async () => await manager.authenticate('not-a-jwt'), { code: 'malformed_token', status: 401 })
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.equal(totalCalls(api), 0)
      assert.equal(manager.health().ready, false)
      await manager.close()
      await eventually(() => api.openWatches() === 0, 'no watch')
    } finally {
      await api.close()
    }
  })
})
