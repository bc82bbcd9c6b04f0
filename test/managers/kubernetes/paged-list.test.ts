import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { V1RoleBinding } from '@kubernetes/client-node'
import { kubernetesClient } from '../../../src/managers/kubernetes/client-library.ts'
import { listAllPages, type PageFetcher } from '../../../src/managers/kubernetes/paged-list.ts'
import { roleBinding, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'

describe('paged lists against an API server that compacts between pages', () => {
  let api: FakeKubeApi
  let fetchPage: PageFetcher<V1RoleBinding>
  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    for (let i = 0; i < 5; i++) api.putRoleBinding(roleBinding('feast', `binding-${i}`, 'reader', [{ kind: 'User', name: `user-${i}` }]))
    const rbac = api.kubeConfig().makeApiClient(kubernetesClient().RbacAuthorizationV1Api)
    fetchPage = async (limit, token) => await rbac.listNamespacedRoleBinding({ namespace: 'feast', limit, ...(token === undefined ? {} : { _continue: token }) })
  })
  after(async () => { await api?.close() })

  test('an expired continue token starts the list over, consistently, never continuing with the inconsistent token the 410 offers', async () => {
    let pages = 0
    const compactingOnce: PageFetcher<V1RoleBinding> = async (limit, token) => {
      const page = await fetchPage(limit, token)
      if (++pages === 1) {
        api.compact()
        api.putRoleBinding(roleBinding('feast', 'binding-late', 'reader', [{ kind: 'User', name: 'late' }]))
      }
      return page
    }
    api.resetCalls()
    const { items, resourceVersion } = await listAllPages(compactingOnce, (binding) => binding.metadata?.name ?? '', 2)
    assert.deepEqual(items, ['binding-0', 'binding-1', 'binding-2', 'binding-3', 'binding-4', 'binding-late'])
    const queries = api.listQueries('rolebindings')
    assert.equal(queries[1]?.continue !== undefined, true, 'the second page was asked with the first page\'s token')
    assert.equal(queries[2]?.continue, undefined, 'then the list started over')
    assert.equal(resourceVersion, (await fetchPage(500, undefined)).metadata?.resourceVersion, 'at the version of its new first page')
  })

  test('a second expired continue token in a row fails the list with the 410', async () => {
    const compactingAlways: PageFetcher<V1RoleBinding> = async (limit, token) => {
      const page = await fetchPage(limit, token)
      api.compact()
      return page
    }
    await assert.rejects(listAllPages(compactingAlways, (binding) => binding.metadata?.name ?? '', 2), (error: unknown) => (error as { code?: unknown }).code === 410)
  })
})
