import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AuthManager } from '../../../src/managers/types.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { managerFor } from '../../helpers/kubernetes.ts'
import { type LogLine, captureLogs } from '../../helpers/logs.ts'
import { eventually } from '../../helpers/eventually.ts'

const FAST = { requestTimeoutMs: 1500, informer: { restartBackoffMs: { initial: 50, max: 200 }, watchTimeoutSeconds: 30, staleAfterMs: 5000 } }

describe('watch errors a real API server sends', () => {
  let api: FakeKubeApi
  let manager: AuthManager
  let lines: LogLine[]

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.putRole(feastRole('feast', 'reader'))
    api.addToken(jwsToken('alice'), serviceAccountIdentity('apps', 'alice'))
    const captured = captureLogs()
    lines = captured.lines
    manager = managerFor(api, { logger: captured.logger, tuning: FAST })
    await manager.warmUp?.()
    await eventually(() => api.openWatches() === 2, 'both watches to open')
  })
  after(async () => {
    await manager?.close()
    await api?.close()
  })

  test('an ERROR event other than 410 restarts the informers, which then see later changes', async () => {
    const restarts = manager.health().detail.informerRestarts as number
    api.watchError(500)
    await eventually(() => (manager.health().detail.informerRestarts as number) > restarts && manager.health().ready, 'a restart and a new sync')
    assert.ok(lines.some((line) => /informer failed/.test(line.msg)))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    await eventually(async () => (await manager.authenticate(jwsToken('alice'))).roles.includes('reader'), 'the binding to be seen')
  })

  test('a 429 from API Priority and Fairness on the relist is retried with backoff until it passes', async () => {
    const restarts = manager.health().detail.informerRestarts as number
    api.setFault('rolebindings', { status: 429 })
    api.watchError(500)
    await eventually(() => lines.some((line) => line.status === 429), 'the 429 to be logged')
    assert.equal(manager.health().ready, false)
    api.setFault('rolebindings', undefined)
    await eventually(() => manager.health().ready && (manager.health().detail.informerRestarts as number) > restarts, 'the informers to recover')
  })
})
