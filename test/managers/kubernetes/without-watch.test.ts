/**
 * `tuning.informer.watch: false`, as the one-shot commands (`feast-authz inspect`, `check`) set it:
 * the roles come from direct lists, and nothing is left watching.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { jwsToken, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { managerFor, startClusterWithAliceReader } from '../../helpers/kubernetes.ts'
import { captureLogs } from '../../helpers/logs.ts'

describe('a kubernetes manager without watches', () => {
  let api: FakeKubeApi

  before(async () => { api = await startClusterWithAliceReader() })
  after(async () => { await api?.close() })

  test('gives a token the roles bound to it, from one list of each kind and no watch', async () => {
    api.resetCalls()
    const manager = managerFor(api, { tuning: { informer: { watch: false } } })
    try {
      await manager.warmUp()
      const principal = await manager.authenticate(jwsToken('alice-token'))
      assert.deepEqual(principal.roles, ['reader'])
      const { roleBindingLists, roleLists, roleBindingWatches, roleWatches } = api.calls
      assert.deepEqual([roleBindingLists, roleLists, roleBindingWatches, roleWatches], [1, 1, 0, 0])
    } finally {
      await manager.close()
    }
  })

  test('logs no informer restart when the API server refuses connections', async () => {
    const { logger, lines } = captureLogs()
    const manager = managerFor(api, { logger, tuning: { informer: { watch: false, restartBackoffMs: { initial: 10, max: 10 } } } })
    await api.stop()
    try {
      await assert.rejects(async () => await manager.authenticate(jwsToken('alice-token')), { code: 'cluster_unavailable' })
      // Time for an informer's first attempt to fail and be restarted, were there one.
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.deepEqual(lines.filter((line) => /informer/.test(line.msg)), [])
    } finally {
      await manager.close()
      await api.start()
    }
  })
})
