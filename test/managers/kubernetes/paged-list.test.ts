import assert from 'node:assert/strict'
import { after, afterEach, before, describe, test } from 'node:test'
import { AuthError } from '../../../src/base/errors.ts'
import { ApiStatusError, callApi } from '../../../src/managers/kubernetes/api-request.ts'
import { listAllPages, type PageFetcher } from '../../../src/managers/kubernetes/paged-list.ts'
import { readListPage, ROLE_BINDINGS, type RoleBindingObject } from '../../../src/managers/kubernetes/rbac-objects.ts'
import { jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { managerFor } from '../../helpers/kubernetes.ts'
import { captureLogs } from '../../helpers/logs.ts'
import { eventually } from '../../helpers/eventually.ts'
import { expectError } from '../../helpers/errors.ts'

describe('paged lists against an API server that compacts between pages', () => {
  let api: FakeKubeApi
  let fetchPage: PageFetcher<RoleBindingObject>
  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    for (let i = 0; i < 5; i++) api.putRoleBinding(roleBinding('feast', `binding-${i}`, 'reader', [{ kind: 'User', name: `user-${i}` }]))
    const kubeConfig = api.kubeConfig()
    fetchPage = async (limit, token) => readListPage(await callApi(kubeConfig, {
      path: '/apis/rbac.authorization.k8s.io/v1/namespaces/feast/rolebindings',
      query: { limit, continue: token },
      timeoutMs: 5000,
      maxBytes: 1024 * 1024
    }), ROLE_BINDINGS, 'feast')
  })
  after(async () => { await api?.close() })

  test('an expired continue token starts the list over, consistently, never continuing with the inconsistent token the 410 offers', async () => {
    let pages = 0
    const compactingOnce: PageFetcher<RoleBindingObject> = async (limit, token) => {
      const page = await fetchPage(limit, token, undefined)
      if (++pages === 1) {
        api.compact()
        api.putRoleBinding(roleBinding('feast', 'binding-late', 'reader', [{ kind: 'User', name: 'late' }]))
      }
      return page
    }
    api.resetCalls()
    const { items, resourceVersion } = await listAllPages(compactingOnce, (binding) => binding.metadata.name, { pageSize: 2, maxItems: 100 })
    assert.deepEqual(items, ['binding-0', 'binding-1', 'binding-2', 'binding-3', 'binding-4', 'binding-late'])
    const queries = api.listQueries('rolebindings')
    assert.equal(queries[1]?.continue !== undefined, true, 'the second page was asked with the first page\'s token')
    assert.equal(queries[2]?.continue, undefined, 'then the list started over')
    assert.equal(resourceVersion, (await fetchPage(500, undefined, undefined)).resourceVersion, 'at the version of its new first page')
  })

  test('a second expired continue token in a row fails the list with the 410', async () => {
    const compactingAlways: PageFetcher<RoleBindingObject> = async (limit, token) => {
      const page = await fetchPage(limit, token, undefined)
      api.compact()
      return page
    }
    const listing = listAllPages(compactingAlways, (binding) => binding.metadata.name, { pageSize: 2, maxItems: 100 })
    await expectError(listing, { type: ApiStatusError, statusCode: 410 })
  })
})

describe('paging that a broken API server would never end', () => {
  let api: FakeKubeApi
  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.addToken(jwsToken('pager'), serviceAccountIdentity('apps', 'pager'))
    for (let i = 0; i < 3; i++) api.putRoleBinding(roleBinding('feast', `binding-${i}`, 'reader', [{ kind: 'User', name: `user-${i}` }]))
  })
  afterEach(() => { api.setFault('rolebindings', undefined) })
  after(async () => { await api?.close() })

  const SMALL = { requestTimeoutMs: 2000, informer: { pageSize: 2, maxObjects: 10, restartBackoffMs: { initial: 60_000, max: 60_000 } } }

  for (const endless of ['same', 'new'] as const) {
    test(`a continue token that is ${endless === 'same' ? 'the same for ever' : 'new for ever'} ends the list within its bound: 503 for a request`, async () => {
      api.setFault('rolebindings', { endlessContinue: endless })
      api.resetCalls()
      const manager = managerFor(api, { oneShot: true, tuning: SMALL })
      try {
        await expectError(async () => await manager.authenticate(jwsToken('pager')), { type: AuthError, code: 'cluster_unavailable', status: 503 })
        // At most the pages that hold maxObjects, and a few more a server may leave short.
        assert.ok(api.calls.roleBindingLists <= 10 / 2 + 10, `${api.calls.roleBindingLists} pages asked`)
      } finally {
        await manager.close()
      }
    })
  }

  test('an informer whose list never ends stops paging when its attempt fails, and asks again only after the backoff', async () => {
    api.setFault('rolebindings', { endlessContinue: 'new' })
    api.resetCalls()
    const { logger, lines } = captureLogs()
    const manager = managerFor(api, { logger, tuning: SMALL })
    try {
      await manager.warmUp?.()
      assert.equal(manager.health().ready, false)
      assert.ok(lines.some((line) => /^the list (did not end|holds more than 10 objects)/.test(String(line.reason))), 'the log says why the list failed')
      const asked = api.calls.roleBindingLists
      await new Promise((resolve) => setTimeout(resolve, 500))
      assert.equal(api.calls.roleBindingLists, asked, 'no page asked after the failure, within the backoff')
    } finally {
      await manager.close()
    }
  })

  test('closing a manager whose direct list never ends returns at once, and no page is asked after', async () => {
    api.setFault('rolebindings', { endlessContinue: 'new' })
    const manager = managerFor(api, { oneShot: true, tuning: { ...SMALL, requestTimeoutMs: 60_000, informer: { ...SMALL.informer, maxObjects: 1_000_000 } } })
    const refused = expectError(async () => await manager.authenticate(jwsToken('pager')), { type: AuthError, code: 'cluster_unavailable' })
    await eventually(() => api.calls.roleBindingLists > 3, 'the list to be under way')
    const closing = Date.now()
    await manager.close()
    assert.ok(Date.now() - closing < 2000, `close took ${Date.now() - closing} ms`)
    const asked = api.calls.roleBindingLists
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.ok(api.calls.roleBindingLists <= asked + 1, `${api.calls.roleBindingLists - asked} pages asked after close`)
    await refused
  })

  test('when the Role list fails, the RoleBinding list under way stops too instead of paging on unwatched', async () => {
    api.setFault('rolebindings', { endlessContinue: 'new' })
    api.setFault('roles', { status: 500 })
    const manager = managerFor(api, { oneShot: true, tuning: { ...SMALL, requestTimeoutMs: 60_000, informer: { ...SMALL.informer, maxObjects: 1_000_000 } } })
    try {
      await expectError(async () => await manager.authenticate(jwsToken('pager')), { type: AuthError, code: 'cluster_unavailable' })
      const asked = api.calls.roleBindingLists
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.ok(api.calls.roleBindingLists <= asked + 1, `${api.calls.roleBindingLists - asked} pages asked after the failure`)
    } finally {
      api.setFault('roles', undefined)
      await manager.close()
    }
  })

  test('closing the manager stops a list in progress: no page is asked after close', async () => {
    api.setFault('rolebindings', { endlessContinue: 'new' })
    const manager = managerFor(api, { tuning: { ...SMALL, informer: { ...SMALL.informer, maxObjects: 1_000_000 } } })
    manager.warmUp?.().catch(() => {})
    await eventually(() => api.calls.roleBindingLists > 3, 'the list to be under way')
    await manager.close()
    const asked = api.calls.roleBindingLists
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.ok(api.calls.roleBindingLists <= asked + 1, `${api.calls.roleBindingLists - asked} pages asked after close`)
  })
})
