import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AuthManager } from '../../../src/managers/types.ts'
import { startApp, type TestApp } from '../../helpers/authz-app.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, serviceAccountJwt, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { createKubernetesManager } from '../../../src/managers/kubernetes/kubernetes-manager.ts'
import { NO_POD, KUBERNETES_CONFIG as CONFIG, managerFor } from '../../helpers/kubernetes.ts'
import { captureLogs } from '../../helpers/logs.ts'
import { eventually } from '../../helpers/eventually.ts'

describe('kubernetes auth through the Fastify plugin', () => {
  let api: FakeKubeApi
  let manager: AuthManager
  let app: TestApp

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.addToken(jwsToken('alice-token'), serviceAccountIdentity('apps', 'alice'))
    api.addToken(jwsToken('human-token'), { username: 'jane@example.com', groups: ['data-science', 'system:authenticated'] })
    api.addToken(jwsToken('carol-token'), serviceAccountIdentity('apps', 'carol'))
    api.addToken(jwsToken('dave-token'), serviceAccountIdentity('batch', 'dave'))
    for (const role of ['reader', 'writer', 'auditor']) api.putRole(feastRole('feast', role))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    api.putRoleBinding(roleBinding('feast', 'jane-writer', 'writer', [{ kind: 'User', name: 'jane@example.com' }]))
    api.putRoleBinding(roleBinding('feast', 'ds-reader', 'reader', [{ kind: 'Group', name: 'data-science' }]))
    // A marked Role `admin` in both namespaces: only the namespace of the binding can keep carol from it.
    for (const namespace of ['feast', 'elsewhere']) api.putRole(feastRole(namespace, 'admin'))
    api.putRoleBinding(roleBinding('elsewhere', 'carol-admin', 'admin', [{ kind: 'ServiceAccount', name: 'carol', namespace: 'apps' }]))
    manager = managerFor(api)
    app = await startApp({ auth: { type: 'kubernetes' }, plugin: { manager } })
    await eventually(() => manager.health().ready, 'the RoleBinding informer to sync')
  })
  after(async () => {
    await app?.close()
    await api?.close()
  })

  test('a service account of another namespace bound in the service namespace gets its Role', async () => {
    const response = await app.call('/whoami', `Bearer ${jwsToken('alice-token')}`)
    assert.equal(response.status, 200)
    assert.deepEqual(response.body.principal, {
      username: 'system:serviceaccount:apps:alice',
      roles: ['reader'],
      groups: ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated'],
      namespaces: ['apps'],
      source: 'kubernetes'
    })
  })

  test('a user gets the Roles bound to its username and to its groups', async () => {
    const response = await app.call('/whoami', `Bearer ${jwsToken('human-token')}`)
    assert.equal(response.status, 200)
    assert.deepEqual((response.body.principal as { roles: string[] }).roles, ['reader', 'writer'])
    assert.deepEqual((response.body.principal as { namespaces: string[] }).namespaces, [])
  })

  test('a binding in another namespace gives no role', async () => {
    const response = await app.call('/whoami', `Bearer ${jwsToken('carol-token')}`)
    assert.equal(response.status, 200)
    assert.deepEqual((response.body.principal as { roles: string[] }).roles, [])
  })

  test('a forged unsigned token with a valid-looking sub is a 401 and gets no role', async () => {
    // Feast's Python server gives this token the roles of system:serviceaccount:apps:alice.
    const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
    const forged = `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'system:serviceaccount:apps:alice', 'kubernetes.io': { namespace: 'apps', serviceaccount: { name: 'alice' } }, exp: 4_102_444_800 })}.`
    api.resetCalls()
    const response = await app.call('/whoami', `Bearer ${forged}`)
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'token_review_rejected')
    assert.equal(api.calls.tokenReviews, 1)
    assert.equal(api.calls.roleBindingLists, 0)
  })

  test('a token the cluster does not know is a 401 with a Bearer challenge', async () => {
    const response = await app.call('/whoami', `Bearer ${serviceAccountJwt('apps', 'nobody')}`)
    assert.equal(response.status, 401)
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer realm="feast", error="invalid_token"/)
  })

  test('1,000 requests with one token make 1 TokenReview and no list call once synced', async () => {
    const token = jwsToken('thousand-token')
    api.addToken(token, serviceAccountIdentity('apps', 'alice'))
    api.resetCalls()
    for (let batch = 0; batch < 10; batch++) {
      const responses = await Promise.all(Array.from({ length: 100 }, async () => await app.call('/whoami', `Bearer ${token}`)))
      assert.ok(responses.every((response) => response.status === 200 && (response.body.principal as { roles: string[] }).roles[0] === 'reader'), 'every request answered with the reader role')
    }
    assert.equal(api.calls.tokenReviews, 1)
    assert.equal(api.calls.roleBindingLists, 0)
  })

  test('a binding added while running is reflected without a restart or a list call', async () => {
    const before = await app.call('/whoami', `Bearer ${jwsToken('dave-token')}`)
    assert.deepEqual((before.body.principal as { roles: string[] }).roles, [])
    api.resetCalls()
    api.putRoleBinding(roleBinding('feast', 'dave-writer', 'writer', [{ kind: 'ServiceAccount', name: 'dave', namespace: 'batch' }]))
    await eventually(async () => {
      const response = await app.call('/whoami', `Bearer ${jwsToken('dave-token')}`)
      return (response.body.principal as { roles: string[] }).roles.includes('writer')
    }, 'the new binding to take effect')
    assert.equal(api.calls.roleBindingLists, 0)
    assert.equal(api.calls.tokenReviews, 0)
  })

  test('a binding removed while running is reflected without a restart', async () => {
    api.putRoleBinding(roleBinding('feast', 'dave-temp', 'auditor', [{ kind: 'ServiceAccount', name: 'dave', namespace: 'batch' }]))
    await eventually(async () => ((await app.call('/whoami', `Bearer ${jwsToken('dave-token')}`)).body.principal as { roles: string[] }).roles.includes('auditor'), 'the binding to appear')
    api.deleteRoleBinding('feast', 'dave-temp')
    await eventually(async () => !((await app.call('/whoami', `Bearer ${jwsToken('dave-token')}`)).body.principal as { roles: string[] }).roles.includes('auditor'), 'the binding to disappear')
  })

  test('health reports the synced informer and the namespace', () => {
    const health = manager.health()
    assert.equal(health.ready, true)
    assert.equal(health.detail.namespace, 'feast')
    assert.equal(health.detail.namespaceSource, 'kubeconfig context')
  })
})

describe('kubernetes auth with audiences', () => {
  let api: FakeKubeApi
  let manager: AuthManager

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.addToken(jwsToken('for-feast'), serviceAccountIdentity('apps', 'alice', ['feast']))
    api.addToken(jwsToken('for-api-server'), serviceAccountIdentity('apps', 'alice'))
    manager = managerFor(api, { config: { ...CONFIG, audiences: ['feast'] } })
  })
  after(async () => {
    await manager?.close()
    await api?.close()
  })

  test('a token issued for a configured audience is accepted', async () => {
    assert.equal((await manager.authenticate(jwsToken('for-feast'))).username, 'system:serviceaccount:apps:alice')
  })

  test('a token issued for the API server is refused when audiences are configured', async () => {
    await assert.rejects(async () => await manager.authenticate(jwsToken('for-api-server')), { code: 'token_review_rejected', status: 401 })
  })
})

describe('kubernetes manager lifecycle', () => {
  test('close() stops the informer: no watch stays open on the API server', async () => {
    const api = await startFakeKubeApi()
    try {
      const manager = managerFor(api)
      await manager.warmUp()
      assert.equal(manager.health().ready, true)
      await eventually(() => api.openWatches() === 2, 'a watch of RoleBindings and one of Roles')
      await manager.close()
      await eventually(() => api.openWatches() === 0, 'the watch to close')
    } finally {
      await api.close()
    }
  })

  test('close() right after the first request (informer still listing) leaves no watch behind', async () => {
    const api = await startFakeKubeApi()
    try {
      api.addToken(jwsToken('t'), serviceAccountIdentity('apps', 'alice'))
      const manager = managerFor(api)
      await manager.authenticate(jwsToken('t'))
      await manager.close()
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.equal(api.openWatches(), 0)
    } finally {
      await api.close()
    }
  })

  test('the watch asks for bookmarks and a server-side timeout, and bookmarks keep the watchdog quiet', async () => {
    const api = await startFakeKubeApi({ bookmarkIntervalMs: 100 })
    try {
      const manager = managerFor(api, { tuning: { informer: { watchTimeoutSeconds: 120, staleAfterMs: 400 } } })
      await manager.warmUp()
      await eventually(() => api.lastWatchQuery('rolebindings') !== undefined, 'the watch to start')
      const query = api.lastWatchQuery('rolebindings')
      assert.equal(query?.allowWatchBookmarks, 'true')
      assert.equal(query?.timeoutSeconds, '120')
      assert.match(query?.resourceVersion ?? '', /^\d+$/)
      await new Promise((resolve) => setTimeout(resolve, 1200))
      assert.equal(manager.health().detail.informerRestarts, 0)
      assert.equal(api.calls.roleBindingWatches, 1)
      await manager.close()
    } finally {
      await api.close()
    }
  })

  test('by default the watch asks the server to end it every minute, a sign of life the watchdog hears even where nothing changes', async () => {
    const api = await startFakeKubeApi()
    try {
      const manager = managerFor(api)
      await manager.warmUp()
      await eventually(() => api.lastWatchQuery('rolebindings') !== undefined && api.lastWatchQuery('roles') !== undefined, 'both watches to start')
      assert.equal(api.lastWatchQuery('rolebindings')?.timeoutSeconds, '60')
      assert.equal(api.lastWatchQuery('roles')?.timeoutSeconds, '60')
      await manager.close()
    } finally {
      await api.close()
    }
  })

  test('a watch the server ends at its timeout resumes from the bookmark sent before it, with no relist, and sees later changes', async () => {
    const api = await startFakeKubeApi()
    try {
      api.putRole(feastRole('feast', 'reader'))
      api.addToken(jwsToken('resumed'), serviceAccountIdentity('apps', 'resumed'))
      const manager = managerFor(api, { tuning: { informer: { watchTimeoutSeconds: 3 } } })
      await manager.warmUp()
      const listedAt = Number(api.lastWatchQuery('rolebindings')?.resourceVersion)
      await eventually(() => api.calls.roleBindingWatches >= 2, 'the server to end the first watch and the informer to watch again', 10_000)
      assert.ok(Number(api.lastWatchQuery('rolebindings')?.resourceVersion) > listedAt, 'resumed from the pre-timeout bookmark, past the list\'s version')
      assert.equal(api.calls.roleBindingLists, 1, 'no relist')
      api.putRoleBinding(roleBinding('feast', 'resumed-reader', 'reader', [{ kind: 'ServiceAccount', name: 'resumed', namespace: 'apps' }]))
      await eventually(async () => (await manager.authenticate(jwsToken('resumed'))).roles.includes('reader'), 'the binding to be seen')
      assert.equal(manager.health().detail.informerRestarts, 0)
      await manager.close()
    } finally {
      await api.close()
    }
  })

  test('a RoleBinding to a ClusterRole grants nothing and is explained once in the log', async () => {
    const api = await startFakeKubeApi()
    try {
      api.putRoleBinding(roleBinding('feast', 'viewers', 'view', [{ kind: 'Group', name: 'eng' }], 'ClusterRole'))
      api.addToken(jwsToken('eng-token'), { username: 'eve', groups: ['eng'] })
      const { logger, lines } = captureLogs()
      const manager = managerFor(api, { logger })
      await manager.warmUp()
      assert.deepEqual((await manager.authenticate(jwsToken('eng-token'))).roles, [])
      assert.deepEqual((await manager.authenticate(jwsToken('eng-token'))).roles, [])
      assert.equal(lines.filter((line) => /ClusterRoles not listed in auth\.cluster_roles/.test(line.msg)).length, 1)
      await manager.close()
    } finally {
      await api.close()
    }
  })

  test('without a cluster connection, kubernetes mode refuses to start with an error that says where it looked and what to set', () => {
    assert.throws(() => createKubernetesManager(CONFIG, { logger: captureLogs().logger, serviceAccountDir: NO_POD, env: { HOME: NO_POD } }), {
      name: 'ConfigError',
      message: 'auth.type: auth type kubernetes needs a cluster connection: none found (no in-cluster service account, no KUBECONFIG, no ~/.kube/config); ' +
        'run it in a pod, or set KUBECONFIG to a kubeconfig of the cluster whose service-account tokens it reviews (docs/kubernetes.md#how-the-service-reaches-the-cluster)'
    })
  })

  test('the startup log says which namespace source was used', async () => {
    const api = await startFakeKubeApi({ namespace: null })
    try {
      const { logger, lines } = captureLogs()
      const manager = createKubernetesManager(CONFIG, { logger, connection: { kubeConfig: api.kubeConfig(), source: 'kubeconfig', description: 'fake' }, serviceAccountDir: NO_POD, env: { POD_NAMESPACE: 'from-env' } })
      await manager.close()
      assert.ok(lines.some((line) => line.namespace === 'from-env' && line.namespaceSource === 'POD_NAMESPACE' && /namespace from-env/.test(line.msg)), 'a startup line naming the namespace and its source')
    } finally {
      await api.close()
    }
  })
})
