import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AuthManager } from '../../../src/managers/types.ts'
import { feastRole, jwsToken, roleBinding, rulelessRole, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { KUBERNETES_CONFIG, managerFor } from '../../helpers/kubernetes.ts'
import { type LogLine, captureLogs } from '../../helpers/logs.ts'
import { eventually } from '../../helpers/eventually.ts'

const rolesOf = async (manager: AuthManager, token: string): Promise<string[]> => (await manager.authenticate(token)).roles as string[]

describe('Feast roles are Roles with the marker rule', () => {
  let api: FakeKubeApi
  let manager: AuthManager
  let lines: LogLine[]

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.putRole(feastRole('feast', 'reader'))
    api.putRole(rulelessRole('feast', 'admin-made'))
    api.putRole({ metadata: { name: 'configmap-editor', namespace: 'feast' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['update'] }] })
    for (const name of ['alice', 'mallory', 'eve', 'trent', 'victor']) api.addToken(jwsToken(name), serviceAccountIdentity('apps', name))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    // A namespace admin's self-made grant: Kubernetes let them bind a Role without rules.
    api.putRoleBinding(roleBinding('feast', 'mallory-self', 'admin-made', [{ kind: 'ServiceAccount', name: 'mallory', namespace: 'apps' }]))
    api.putRoleBinding(roleBinding('feast', 'eve-ghost', 'no-such-role', [{ kind: 'ServiceAccount', name: 'eve', namespace: 'apps' }]))
    api.putRoleBinding(roleBinding('feast', 'trent-cm', 'configmap-editor', [{ kind: 'ServiceAccount', name: 'trent', namespace: 'apps' }]))
    const captured = captureLogs()
    lines = captured.lines
    manager = managerFor(api, { logger: captured.logger })
    await manager.warmUp?.()
  })
  after(async () => {
    await manager?.close()
    await api?.close()
  })

  test('a binding to a Role holding the marker rule grants the role', async () => {
    assert.deepEqual(await rolesOf(manager, jwsToken('alice')), ['reader'])
  })

  test('a namespace admin\'s self-made binding to a rule-less Role grants nothing by default', async () => {
    assert.deepEqual(await rolesOf(manager, jwsToken('mallory')), [])
  })

  test('a binding to a Role that does not exist grants nothing', async () => {
    assert.deepEqual(await rolesOf(manager, jwsToken('eve')), [])
  })

  test('a binding to a Role with other rules but no marker grants nothing', async () => {
    assert.deepEqual(await rolesOf(manager, jwsToken('trent')), [])
  })

  test('the server says once at startup that bindings refer to Roles without the marker', () => {
    const notices = lines.filter((line) => /without the Feast marker rule/.test(line.msg))
    assert.equal(notices.length, 1)
    assert.deepEqual(notices[0]!.roles, ['admin-made', 'configmap-editor'])
    assert.match(notices[0]!.msg, /allow_ruleless_roles/)
  })

  test('replacing a marked Role by a rule-less one of the same name revokes the role', async () => {
    api.putRole(feastRole('feast', 'swapped'))
    api.putRoleBinding(roleBinding('feast', 'victor-swapped', 'swapped', [{ kind: 'ServiceAccount', name: 'victor', namespace: 'apps' }]))
    await eventually(async () => (await rolesOf(manager, jwsToken('victor'))).includes('swapped'), 'the marked role to grant')
    api.deleteRole('feast', 'swapped')
    api.putRole(rulelessRole('feast', 'swapped'))
    await eventually(async () => (await rolesOf(manager, jwsToken('victor'))).length === 0, 'the rule-less replacement to grant nothing')
  })
})

describe('allow_ruleless_roles: compatibility with Roles made by Feast\'s operator', () => {
  let api: FakeKubeApi
  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.putRole(rulelessRole('feast', 'feast-reader'))
    api.putRole({ metadata: { name: 'configmap-editor', namespace: 'feast' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['update'] }] })
    api.addToken(jwsToken('legacy'), serviceAccountIdentity('apps', 'legacy'))
    api.putRoleBinding(roleBinding('feast', 'legacy-reader', 'feast-reader', [{ kind: 'ServiceAccount', name: 'legacy', namespace: 'apps' }]))
    api.putRoleBinding(roleBinding('feast', 'legacy-cm', 'configmap-editor', [{ kind: 'ServiceAccount', name: 'legacy', namespace: 'apps' }]))
  })
  after(async () => { await api?.close() })

  test('with the setting, a rule-less Role grants, a Role with other rules still does not, and a warning says what that allows', async () => {
    const { logger, lines } = captureLogs()
    const manager = managerFor(api, { logger, config: { ...KUBERNETES_CONFIG, allow_ruleless_roles: true } })
    try {
      await manager.warmUp?.()
      assert.deepEqual(await rolesOf(manager, jwsToken('legacy')), ['feast-reader'])
      assert.equal(lines.filter((line) => /allow_ruleless_roles is true: anyone who may create RoleBindings/.test(line.msg)).length, 1)
    } finally {
      await manager.close()
    }
  })
})

describe('cluster_roles: RoleBindings to allowlisted ClusterRoles', () => {
  let api: FakeKubeApi
  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.addToken(jwsToken('viewer'), serviceAccountIdentity('apps', 'viewer'))
    api.putRoleBinding(roleBinding('feast', 'viewer-feast', 'feast-viewer', [{ kind: 'ServiceAccount', name: 'viewer', namespace: 'apps' }], 'ClusterRole'))
    api.putRoleBinding(roleBinding('feast', 'viewer-edit', 'edit', [{ kind: 'ServiceAccount', name: 'viewer', namespace: 'apps' }], 'ClusterRole'))
  })
  after(async () => { await api?.close() })

  test('only a ClusterRole named in cluster_roles grants its Feast role; edit never does', async () => {
    const manager = managerFor(api, { config: { ...KUBERNETES_CONFIG, cluster_roles: ['feast-viewer'] } })
    try {
      assert.deepEqual(await rolesOf(manager, jwsToken('viewer')), ['feast-viewer'])
    } finally {
      await manager.close()
    }
  })

  test('without cluster_roles, no ClusterRole binding grants anything', async () => {
    const manager = managerFor(api)
    try {
      assert.deepEqual(await rolesOf(manager, jwsToken('viewer')), [])
    } finally {
      await manager.close()
    }
  })
})

describe('accept_opaque_tokens', () => {
  let api: FakeKubeApi
  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.addToken('sha256~openshift-style-token', serviceAccountIdentity('apps', 'openshift'))
  })
  after(async () => { await api?.close() })

  test('with the setting, an opaque token goes to TokenReview and authenticates', async () => {
    const manager = managerFor(api, { config: { ...KUBERNETES_CONFIG, accept_opaque_tokens: true } })
    try {
      assert.equal((await manager.authenticate('sha256~openshift-style-token')).username, 'system:serviceaccount:apps:openshift')
    } finally {
      await manager.close()
    }
  })

  test('with the setting, an unknown opaque token is a 401 remembered by the rejection cache (one review for two tries)', async () => {
    const manager = managerFor(api, { config: { ...KUBERNETES_CONFIG, accept_opaque_tokens: true } })
    try {
      api.resetCalls()
      for (let i = 0; i < 2; i++) await assert.rejects(async () => await manager.authenticate('k8s-aws-v1.unknown'), { status: 401 })
      assert.equal(api.calls.tokenReviews, 1)
    } finally {
      await manager.close()
    }
  })

  test('with the setting, the review cap still turns a flood of new opaque tokens away with 503', async () => {
    api.setFault('tokenreviews', { delayMs: 300 })
    const manager = managerFor(api, { config: { ...KUBERNETES_CONFIG, accept_opaque_tokens: true }, tuning: { maxConcurrentReviews: 2 } })
    try {
      const results = await Promise.allSettled(Array.from({ length: 5 }, async (_, i) => await manager.authenticate(`opaque-flood-${i}`)))
      const statuses = results.map((result) => result.status === 'rejected' ? (result.reason as { status: number }).status : 200)
      assert.equal(statuses.filter((status) => status === 503).length, 3)
    } finally {
      api.setFault('tokenreviews', undefined)
      await manager.close()
    }
  })

  test('with the setting, a token an Authorization header could not carry (empty, spaces) is a 401 malformed_token and costs no review', async () => {
    // A real API server answers an empty token with a 400 (which would be a 503), and reviews
    // only what precedes a space: 'good-token junk' would pass as 'good-token'.
    const manager = managerFor(api, { config: { ...KUBERNETES_CONFIG, accept_opaque_tokens: true } })
    try {
      api.resetCalls()
      for (const token of ['', ' ', 'sha256~openshift-style-token trailing', ' sha256~openshift-style-token', 'sha256~openshift-style-token\n']) {
        await assert.rejects(async () => await manager.authenticate(token), { code: 'malformed_token', status: 401 }, JSON.stringify(token))
      }
      assert.equal(api.calls.tokenReviews, 0)
    } finally {
      await manager.close()
    }
  })

  test('without the setting, an opaque token is a 401 malformed_token and costs no review', async () => {
    const manager = managerFor(api)
    try {
      api.resetCalls()
      await assert.rejects(async () => await manager.authenticate('sha256~openshift-style-token'), { code: 'malformed_token', status: 401 })
      assert.equal(api.calls.tokenReviews, 0)
    } finally {
      await manager.close()
    }
  })
})

describe('outage_grace_seconds', () => {
  test('the last synced roles keep serving during an outage for the configured grace, then requests get 503', async () => {
    const api = await startFakeKubeApi({ namespace: 'feast' })
    let offsetMs = 0
    const now = (): number => Date.now() + offsetMs
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    api.addToken(jwsToken('alice'), serviceAccountIdentity('apps', 'alice'))
    const manager = managerFor(api, {
      config: { ...KUBERNETES_CONFIG, outage_grace_seconds: 5 },
      tuning: { now, requestTimeoutMs: 1000, informer: { restartBackoffMs: { initial: 60_000, max: 60_000 } } }
    })
    try {
      await manager.warmUp?.()
      assert.deepEqual((await manager.authenticate(jwsToken('alice'))).roles, ['reader'])
      await api.stop()
      await eventually(() => !manager.health().ready, 'the informer to lose sync')
      offsetMs = 4000
      assert.deepEqual(manager.authenticateCached?.(jwsToken('alice'))?.roles, ['reader'], 'within the grace period')
      offsetMs = 6000
      assert.equal(manager.authenticateCached?.(jwsToken('alice')), undefined, 'after the grace period')
      await assert.rejects(async () => await manager.authenticate(jwsToken('alice')), { status: 503 })
    } finally {
      await manager.close()
      await api.close()
    }
  })

  test('a watch that went silent has spent its grace by the time the watchdog notices, so the old roles stop serving at once', async () => {
    const api = await startFakeKubeApi({ namespace: 'feast', bookmarkIntervalMs: 100 })
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    api.addToken(jwsToken('alice'), serviceAccountIdentity('apps', 'alice'))
    const { logger, lines } = captureLogs()
    const manager = managerFor(api, {
      logger,
      config: { ...KUBERNETES_CONFIG, outage_grace_seconds: 1 },
      tuning: { requestTimeoutMs: 1000, informer: { staleAfterMs: 1500, restartBackoffMs: { initial: 60_000, max: 60_000 } } }
    })
    try {
      await manager.warmUp?.()
      assert.deepEqual((await manager.authenticate(jwsToken('alice'))).roles, ['reader'])
      const watches = api.calls.roleBindingWatches
      api.setFault('rolebindings', 'stall')
      api.compact() // the next watch is the silent one
      await eventually(() => api.calls.roleBindingWatches > watches, 'the silent watch to open')
      // Meanwhile the binding goes, and the API server becomes unreachable for the relist.
      api.setFault('rolebindings', { status: 503 })
      await eventually(() => lines.some((entry) => /no sign of life/.test(entry.msg)), 'the watchdog to notice', 10_000)
      assert.equal(manager.authenticateCached?.(jwsToken('alice')), undefined, 'silent for longer than the grace: no roles from the stalled view')
      await assert.rejects(async () => await manager.authenticate(jwsToken('alice')), { status: 503 })
    } finally {
      await manager.close()
      await api.close()
    }
  })
})
