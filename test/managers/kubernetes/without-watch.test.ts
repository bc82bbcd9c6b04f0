/**
 * The one-shot manager of `feast-authz inspect` and `check` (`createOneShotAuthManager`): the
 * roles come from direct lists, and nothing is left watching. Only that internal entry builds one.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { jwsToken, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { KUBERNETES_CONFIG, managerFor, NO_POD, startClusterWithAliceReader } from '../../helpers/kubernetes.ts'
import { createAuthManager, createOneShotAuthManager, type ManagerOptions } from '../../../src/managers/create-manager.ts'
import { captureLogs } from '../../helpers/logs.ts'

describe('a kubernetes manager without watches', () => {
  let api: FakeKubeApi

  before(async () => { api = await startClusterWithAliceReader() })
  after(async () => { await api?.close() })

  const optionsFor = (api: FakeKubeApi): ManagerOptions => ({
    logger: captureLogs().logger,
    kubernetes: { connection: { kubeConfig: api.kubeConfig(), source: 'kubeconfig', description: 'fake API server' }, serviceAccountDir: NO_POD, env: {} }
  })

  test('gives a token the roles bound to it, from one list of each kind and no watch', async () => {
    api.resetCalls()
    const manager = createOneShotAuthManager(KUBERNETES_CONFIG, optionsFor(api))
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
    const manager = managerFor(api, { logger, oneShot: true, tuning: { informer: { restartBackoffMs: { initial: 10, max: 10 } } } })
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

  test('is never what the public createAuthManager builds, whatever its options carry: that manager becomes ready', async () => {
    const options = optionsFor(api)
    const manager = createAuthManager(KUBERNETES_CONFIG, { ...options, kubernetes: { ...options.kubernetes, oneShot: true } as ManagerOptions['kubernetes'] })
    try {
      await manager.warmUp()
      assert.equal(manager.health().ready, true)
    } finally {
      await manager.close()
    }
  })
})
