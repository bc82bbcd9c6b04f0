import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { kubernetesClient } from '../../../src/managers/kubernetes/client-library.ts'
import { apiTargetOf } from '../../../src/managers/kubernetes/api-failure.ts'
import { createRoleSource, type RoleSource } from '../../../src/managers/kubernetes/role-source.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { managerFor } from '../../helpers/kubernetes.ts'
import { captureLogs } from '../../helpers/logs.ts'
import { eventually } from '../../helpers/eventually.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const retainedHeap = (): number => { gc(); gc(); return process.memoryUsage().heapUsed }

const BINDINGS = 20_000
const ROLES = 50

describe('a namespace with 20,000 RoleBindings', () => {
  let api: FakeKubeApi
  let source: RoleSource
  let baseline: number
  let retainedBySource: number
  let retainedByFullObjects: number

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    for (let r = 0; r < ROLES; r++) api.putRole(feastRole('feast', `role-${r}`))
    for (let i = 0; i < BINDINGS; i++) {
      api.putRoleBinding(roleBinding('feast', `binding-${i}`, `role-${i % ROLES}`, [
        { kind: 'ServiceAccount', name: `sa-${i}`, namespace: `team-${i % 100}` },
        { kind: 'Group', name: `group-${i % 500}` }
      ]))
    }
    api.resetCalls()
    // client-node loads on first use (client-library.ts): load it now so that the library is not counted as the index.
    kubernetesClient()
    baseline = retainedHeap()
    const kubeConfig = api.kubeConfig()
    source = createRoleSource(kubeConfig, { logger: captureLogs().logger, namespace: 'feast', target: apiTargetOf({ kubeConfig, source: 'kubeconfig' }, 30_000) })
    source.start()
    await source.settled()
    await eventually(() => source.status().synced, 'the informers to sync', 60_000)
    retainedBySource = retainedHeap() - baseline
    // For comparison: the same bindings held as full objects, as an informer cache keeps them.
    const { RbacAuthorizationV1Api } = await import('@kubernetes/client-node')
    const beforeFull = retainedHeap()
    let full: unknown = await api.kubeConfig().makeApiClient(RbacAuthorizationV1Api).listNamespacedRoleBinding({ namespace: 'feast' })
    retainedByFullObjects = retainedHeap() - beforeFull
    assert.ok(full !== undefined)
    full = undefined
  })
  after(async () => {
    await source?.stop()
    await api?.close()
  })

  test('the list is read in pages of 500, so the time allowed grows with the namespace', () => {
    const pages = api.listQueries('rolebindings').filter((query) => query.limit !== undefined)
    assert.ok(pages.length >= BINDINGS / 500, `${pages.length} pages`)
    assert.ok(pages.every((query) => query.limit === '500'))
    assert.ok(pages.slice(1).every((query) => typeof query.continue === 'string' && query.continue !== ''))
  })

  test('the index keeps a slim copy: it retains under half the memory the full objects take', () => {
    assert.equal(source.status().bindings, BINDINGS)
    assert.ok(retainedBySource * 2 < retainedByFullObjects, `the role source retains ${retainedBySource} bytes, the full objects ${retainedByFullObjects} bytes`)
  })

  test('the first lookup after sync does no index work: no rebuild, no stall', () => {
    const view = source.viewNow()
    assert.ok(view !== undefined, 'synced: answers without I/O')
    const work = source.index.work
    assert.deepEqual(view.rolesFor({ username: 'system:serviceaccount:team-7:sa-7', groups: [] }), ['role-7'])
    assert.deepEqual(view.rolesFor({ username: 'nobody', groups: ['group-3'] }), ['role-3'])
    assert.equal(source.index.work, work)
  })

  test('one new binding costs index work for its own subjects only, not a rebuild of 20,000', async () => {
    const work = source.index.work
    api.putRoleBinding(roleBinding('feast', 'one-more', 'role-1', [{ kind: 'User', name: 'late-user' }]))
    await eventually(() => source.viewNow()?.rolesFor({ username: 'late-user', groups: [] }).includes('role-1') === true, 'the event to reach the index')
    assert.equal(source.index.work - work, 1)
  })
})

describe('TokenReview connections', () => {
  let api: FakeKubeApi
  before(async () => { api = await startFakeKubeApi({ namespace: 'feast' }) })
  after(async () => { await api?.close() })

  test('1,000 distinct tokens reviewed use a handful of TLS connections, not one each', async () => {
    const manager = managerFor(api)
    try {
      await manager.warmUp?.()
      await eventually(() => api.openWatches() === 2, 'the watches to open')
      api.resetCalls()
      for (let batch = 0; batch < 20; batch++) {
        await Promise.all(Array.from({ length: 50 }, async (_, i) => {
          const token = jwsToken(`distinct-${batch}-${i}`)
          api.addToken(token, serviceAccountIdentity('apps', `sa-${batch}-${i}`))
          await manager.authenticate(token)
        }))
      }
      assert.equal(api.calls.tokenReviews, 1000)
      assert.ok(api.calls.tlsHandshakes <= 8, `${api.calls.tlsHandshakes} TLS handshakes for 1,000 reviews`)
    } finally {
      await manager.close()
    }
  })
})
