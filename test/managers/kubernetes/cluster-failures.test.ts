import assert from 'node:assert/strict'
import { after, afterEach, before, describe, test } from 'node:test'
import { detectClusterConnection } from '../../../src/managers/kubernetes/cluster-connection.ts'
import { createKubernetesManager, type KubernetesTuning } from '../../../src/managers/kubernetes/kubernetes-manager.ts'
import type { AuthManager } from '../../../src/managers/types.ts'
import { startApp, type TestApp } from '../../helpers/authz-app.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { NO_POD, KUBERNETES_CONFIG as CONFIG, managerFor } from '../../helpers/kubernetes.ts'
import { type LogLine, captureLogs } from '../../helpers/logs.ts'
import { eventually } from '../../helpers/eventually.ts'

// Short enough for quick tests, long enough for a loaded CI machine. The fake API server sends
// bookmarks every 200 ms, well inside staleAfterMs, so only a real stall trips the watchdog.
const FAST: KubernetesTuning = {
  requestTimeoutMs: 1500,
  informer: { restartBackoffMs: { initial: 50, max: 200 }, watchTimeoutSeconds: 30, staleAfterMs: 2500 }
}

const roles = (body: Record<string, unknown>): string[] => (body.principal as { roles: string[] }).roles

describe('when the API server fails', () => {
  let api: FakeKubeApi
  let manager: AuthManager
  let app: TestApp
  let lines: LogLine[]
  let tokens = 0
  /** A token the service has never seen, so it needs a TokenReview. */
  const freshToken = (): string => {
    const token = jwsToken(`fresh-${++tokens}`)
    api.addToken(token, serviceAccountIdentity('apps', 'alice'))
    return token
  }

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast', bookmarkIntervalMs: 200 })
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    const captured = captureLogs()
    lines = captured.lines
    manager = managerFor(api, { logger: captured.logger, tuning: FAST })
    app = await startApp({ auth: { type: 'kubernetes' }, plugin: { manager } })
    await eventually(() => manager.health().ready, 'the informer to sync')
  })
  afterEach(async () => {
    api.setFault('all', undefined)
    api.setFault('tokenreviews', undefined)
    api.setFault('rolebindings', undefined)
    await api.start()
    await eventually(() => manager.health().ready, 'the informer to recover')
  })
  after(async () => {
    await app?.close()
    await api?.close()
  })

  test('a stopped API server gives 503 to new tokens while cached tokens are still served', async () => {
    const cached = freshToken()
    assert.equal((await app.call('/whoami', `Bearer ${cached}`)).status, 200)
    const uncached = freshToken()
    await api.stop()

    const refused = await app.call('/whoami', `Bearer ${uncached}`)
    assert.equal(refused.status, 503)
    assert.equal(refused.body.code, 'cluster_unavailable')
    assert.ok(Number(refused.headers.get('retry-after')) > 0, 'a Retry-After header')
    assert.equal(refused.headers.get('www-authenticate'), null)

    const served = await app.call('/whoami', `Bearer ${cached}`)
    assert.equal(served.status, 200)
    assert.deepEqual(roles(served.body), ['reader'])
  })

  test('once the API server is back, the same new token is accepted (503s are not cached)', async () => {
    const token = freshToken()
    await api.stop()
    assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 503)
    await api.start()
    assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
  })

  test('a 403 on TokenReview is a 503 and the log names the missing permission', async () => {
    api.revoke('create', 'tokenreviews')
    const response = await app.call('/whoami', `Bearer ${freshToken()}`).finally(() => { api.grant('create', 'tokenreviews') })
    assert.equal(response.status, 503)
    assert.equal(response.body.code, 'cluster_unavailable')
    const line = lines.find((entry) => entry.status === 403 && typeof entry.missingPermission === 'string')
    assert.ok(line, 'expected a log line naming the missing permission')
    assert.match(line.missingPermission as string, /create tokenreviews\.authentication\.k8s\.io/)
    assert.equal(line.level, 50)
  })

  test('a 429 from API Priority and Fairness on TokenReview (plain text, not a Status) is a 503 logged as 429, and not remembered', async () => {
    const token = freshToken()
    api.setFault('tokenreviews', { status: 429 })
    const response = await app.call('/whoami', `Bearer ${token}`).finally(() => { api.setFault('tokenreviews', undefined) })
    assert.equal(response.status, 503)
    assert.equal(response.body.code, 'cluster_unavailable')
    assert.ok(Number(response.headers.get('retry-after')) > 0, 'a Retry-After header')
    assert.ok(lines.some((entry) => entry.status === 429 && entry.reason === 'HTTP 429'), 'a log line with the 429')
    assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
  })

  test('a 500 on TokenReview is a 503, never a 401', async () => {
    api.setFault('tokenreviews', { status: 500 })
    const response = await app.call('/whoami', `Bearer ${freshToken()}`)
    assert.equal(response.status, 503)
  })

  test('a reset connection is a 503', async () => {
    api.setFault('tokenreviews', 'reset')
    assert.equal((await app.call('/whoami', `Bearer ${freshToken()}`)).status, 503)
  })

  test('an API server that does not answer in time is a 503', async () => {
    api.setFault('tokenreviews', { delayMs: 3000 })
    const response = await app.call('/whoami', `Bearer ${freshToken()}`)
    assert.equal(response.status, 503)
    assert.ok(lines.some((entry) => entry.reason === 'timed out'), 'a log line saying the review timed out')
  })

  test('a 410 Gone on the watch costs one relist, not a restart', async () => {
    const restarts = manager.health().detail.informerRestarts
    api.resetCalls()
    api.compact()
    api.putRole(feastRole('feast', 'compacted'))
    api.putRoleBinding(roleBinding('feast', 'after-compaction', 'compacted', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    const token = freshToken()
    await eventually(async () => roles((await app.call('/whoami', `Bearer ${token}`)).body).includes('compacted'), 'the binding made after compaction')
    assert.equal(api.calls.roleBindingLists, 1)
    assert.equal(manager.health().detail.informerRestarts, restarts)
  })

  test('after an informer error it restarts with backoff and picks up bindings made meanwhile', async () => {
    const restarts = manager.health().detail.informerRestarts as number
    api.setFault('rolebindings', { status: 500 })
    api.compact() // ends the watch; the relist then fails with 500 and client-node's informer stops
    await eventually(() => !manager.health().ready, 'the informer to report lost sync')
    api.putRole(feastRole('feast', 'late'))
    api.putRoleBinding(roleBinding('feast', 'during-outage', 'late', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    api.setFault('rolebindings', undefined)
    await eventually(() => manager.health().ready, 'the informer to resync')
    assert.ok((manager.health().detail.informerRestarts as number) > restarts, 'the informer was restarted')
    assert.ok(roles((await app.call('/whoami', `Bearer ${freshToken()}`)).body).includes('late'))
  })

  test('a watch that gets no answer times out and the informer restarts', async () => {
    const restarts = manager.health().detail.informerRestarts as number
    api.setFault('rolebindings', 'hang')
    api.compact()
    await eventually(() => (manager.health().detail.informerRestarts as number) > restarts, 'a restart after the watch timed out')
    assert.ok(lines.some((entry) => entry.reason === 'timed out' && /RoleBinding and Role informer failed/.test(entry.msg)), 'a log line saying the watch timed out')
    api.setFault('rolebindings', undefined)
    await eventually(() => manager.health().ready, 'the informer to resync')
  })

  test('a watch the server ends at once, every time, is reconnected with backoff, not in a tight loop', async () => {
    api.setFault('rolebindings', 'flap')
    api.compact()
    api.resetCalls()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    // client-node alone reconnects immediately: hundreds of watches in 1.5 s.
    assert.ok(api.calls.roleBindingWatches <= 12, `${api.calls.roleBindingWatches} watch requests in 1.5 s`)
    assert.ok(api.calls.roleBindingWatches >= 2, 'the watch kept reconnecting')
  })

  test('a watch that goes silent is restarted by the watchdog', async () => {
    const restarts = manager.health().detail.informerRestarts as number
    api.setFault('rolebindings', 'stall')
    api.compact() // the next watch is the stalled one
    await eventually(() => lines.some((entry) => /no sign of life|did not sync in time/.test(entry.msg)), 'the watchdog to notice', 15_000)
    api.setFault('rolebindings', undefined)
    await eventually(() => manager.health().ready && (manager.health().detail.informerRestarts as number) > restarts, 'a restarted, synced informer', 15_000)
  })
})

describe('when RoleBindings cannot be read before the first sync', () => {
  let api: FakeKubeApi
  before(async () => { api = await startFakeKubeApi({ namespace: 'feast', bookmarkIntervalMs: 200 }) })
  after(async () => { await api?.close() })

  test('a 403 on the RoleBinding list is a 503 and the log names the missing permission', async () => {
    api.addToken(jwsToken('t'), serviceAccountIdentity('apps', 'alice'))
    api.revoke('list', 'rolebindings')
    const { logger, lines } = captureLogs()
    const manager = managerFor(api, { logger, tuning: FAST })
    try {
      await assert.rejects(async () => await manager.authenticate(jwsToken('t')), { code: 'cluster_unavailable', status: 503 })
      assert.ok(lines.some((entry) => entry.status === 403 && /list and watch rolebindings and roles \(rbac\.authorization\.k8s\.io\) in namespace feast/.test(String(entry.missingPermission))), 'a log line naming the RoleBinding permission')
    } finally {
      await manager.close()
      api.grant('list', 'rolebindings', 'feast')
    }
  })

  test('without watch (list allowed), roles still come from direct lists, the service never reports ready, and the log names the permission', async () => {
    api.addToken(jwsToken('t4'), serviceAccountIdentity('apps', 'alice'))
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    api.revoke('watch', 'rolebindings')
    const { logger, lines } = captureLogs()
    const manager = managerFor(api, { logger, tuning: FAST })
    try {
      assert.deepEqual((await manager.authenticate(jwsToken('t4'))).roles, ['reader'])
      await eventually(() => lines.some((entry) => entry.status === 403 && /watch rolebindings/.test(String(entry.missingPermission))), 'a log line naming the watch permission')
      assert.equal(manager.health().ready, false)
    } finally {
      await manager.close()
      api.grant('watch', 'rolebindings', 'feast')
    }
  })

  test('an API server that rejects the service\'s own credentials gives 503, and the log says so', async () => {
    api.setFault('rolebindings', undefined)
    api.addToken(jwsToken('t3'), serviceAccountIdentity('apps', 'alice'))
    const path = await api.writeKubeconfig({ name: 'wrong-credentials', token: 'not-the-service-token' })
    const { logger, lines } = captureLogs()
    const manager = createKubernetesManager(CONFIG, {
      logger,
      connection: detectClusterConnection({ env: { KUBECONFIG: path }, serviceAccountDir: NO_POD }),
      serviceAccountDir: NO_POD,
      env: {},
      tuning: FAST
    })
    try {
      await assert.rejects(async () => await manager.authenticate(jwsToken('t3')), { code: 'cluster_unavailable', status: 503 })
      assert.ok(lines.some((entry) => entry.status === 401 && /rejected the credentials of the kubeconfig user feast-service \(context fake\)/.test(entry.msg)), 'a log line blaming the service credentials')
    } finally {
      await manager.close()
    }
  })

  test('a review and first lists that each answer within requestTimeoutMs but not together are a 503 at the budget, and the work runs on for the next request', async () => {
    api.setFault('rolebindings', undefined)
    api.addToken(jwsToken('t5'), serviceAccountIdentity('apps', 'alice'))
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    // 1000 ms, then 1200 ms: each inside its own 1500 ms timeout; one after the other, 2200 ms.
    api.setFault('tokenreviews', { delayMs: 1000 })
    api.setFault('rolebindings', { delayMs: 1200 })
    const { logger, lines } = captureLogs()
    const manager = managerFor(api, { logger, tuning: FAST })
    try {
      const started = performance.now()
      await assert.rejects(async () => await manager.authenticate(jwsToken('t5')), { code: 'cluster_unavailable', status: 503 })
      assert.ok(performance.now() - started < 2100, 'answered at the budget, before the calls finished')
      assert.ok(lines.some((entry) => entry.reason === 'timed out' && /requestTimeoutMs \(1500 ms\)/.test(entry.msg)), 'a log line naming the budget')
      await eventually(async () => (await manager.authenticate(jwsToken('t5'))).roles.includes('reader'), 'the review and the lists, finished after the 503, to serve the same token')
    } finally {
      await manager.close()
      api.setFault('tokenreviews', undefined)
      api.setFault('rolebindings', undefined)
    }
  })

  test('before the first sync a direct list answers, so the first request already has its roles', async () => {
    api.setFault('rolebindings', undefined)
    api.addToken(jwsToken('t2'), serviceAccountIdentity('apps', 'alice'))
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    api.setFault('rolebindings', 'hang') // the informer's watch never gets an answer, so it never syncs
    const manager = managerFor(api, { tuning: FAST })
    try {
      assert.deepEqual((await manager.authenticate(jwsToken('t2'))).roles, ['reader'])
      assert.equal(manager.health().ready, false)
    } finally {
      await manager.close()
    }
  })
})
