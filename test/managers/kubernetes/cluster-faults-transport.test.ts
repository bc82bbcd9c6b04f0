/**
 * API-server faults below HTTP, injected by a TCP proxy between the Kubernetes manager and the
 * fake API server (HTTPS): a TLS handshake that never completes and a connection cut during the
 * handshake. test/managers/kubernetes/cluster-failures.test.ts covers the HTTP-level faults (403, 500,
 * 410, slow answers, a stopped server); here the request timeout must also bound the handshake.
 */
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { KubeConfig } from '@kubernetes/client-node'
import { pino } from 'pino'
import { createKubernetesManager } from '../../../src/managers/kubernetes/kubernetes-manager.ts'
import type { AuthManager } from '../../../src/managers/types.ts'
import { assertUnavailable, startApp, type TestApp, type TestResponse } from '../../helpers/authz-app.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { startTcpFaultProxy, type TcpFaultProxy } from '../../helpers/fault-proxy.ts'

const REQUEST_TIMEOUT_MS = 500
/** Slack for a loaded 2-core machine. */
const MARGIN_MS = 2000

const assertClusterUnavailable = (response: TestResponse): void => { assertUnavailable(response, 'cluster_unavailable') }

describe('API-server faults below HTTP', () => {
  let api: FakeKubeApi
  let proxy: TcpFaultProxy
  let manager: AuthManager
  let app: TestApp

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    for (const name of ['alice', 'bob', 'carol', 'dave']) api.addToken(jwsToken(`${name}-token`), serviceAccountIdentity('apps', name))
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'readers', 'reader', ['alice', 'bob', 'carol', 'dave'].map((name) => ({ kind: 'ServiceAccount' as const, name, namespace: 'apps' }))))
    const upstream = new URL(api.url)
    proxy = await startTcpFaultProxy({ host: upstream.hostname, port: Number(upstream.port) })
    const path = join(api.dir, 'kubeconfig-through-proxy')
    await writeFile(path, (await readFile(api.kubeconfigPath, 'utf8')).replace(`server: ${api.url}`, `server: https://${proxy.hostPort}`))
    const kubeConfig = new KubeConfig()
    kubeConfig.loadFromFile(path)
    manager = createKubernetesManager({ type: 'kubernetes', token_review_cache_ttl_seconds: 60 }, {
      logger: pino({ level: 'silent' }),
      connection: { kubeConfig, source: 'kubeconfig', description: 'fake API server through a TCP proxy' },
      serviceAccountDir: join(tmpdir(), 'feast-authz-no-pod'),
      env: {},
      tuning: { requestTimeoutMs: REQUEST_TIMEOUT_MS, failureCacheMs: 0 }
    })
    app = await startApp({ auth: { type: 'kubernetes' }, plugin: { manager } })
    const deadline = Date.now() + 10_000
    while (!manager.health().ready && Date.now() < deadline) await sleep(20)
    assert.ok(manager.health().ready, 'the RoleBinding informer synced through the proxy')
    assert.equal((await app.call('/whoami', `Bearer ${jwsToken('alice-token')}`)).status, 200)
  })
  after(async () => {
    await app?.close()
    await proxy?.close()
    await api?.close()
  })

  test('a TLS handshake that never completes gives 503 within the request timeout, while a token reviewed before is still served', async () => {
    proxy.set('hang')
    proxy.cutOpen() // reused keep-alive connections to the API server are cut too
    try {
      const started = Date.now()
      assertClusterUnavailable(await app.call('/whoami', `Bearer ${jwsToken('bob-token')}`))
      assert.ok(Date.now() - started < REQUEST_TIMEOUT_MS + MARGIN_MS, `the request took ${Date.now() - started} ms`)
      const cached = await app.call('/whoami', `Bearer ${jwsToken('alice-token')}`)
      assert.equal(cached.status, 200)
      assert.deepEqual((cached.body.principal as { roles: string[] }).roles, ['reader'])
    } finally {
      proxy.set('pass')
    }
  })

  test('once connections complete again, the same token is accepted without a restart', async () => {
    let response = await app.call('/whoami', `Bearer ${jwsToken('bob-token')}`)
    for (let i = 0; response.status !== 200 && i < 100; i++) {
      await sleep(50)
      response = await app.call('/whoami', `Bearer ${jwsToken('bob-token')}`)
    }
    assert.equal(response.status, 200)
  })

  test('a connection cut during the TLS handshake gives 503, never 401', async () => {
    proxy.set({ abruptCloseAfterBytes: 100 })
    proxy.cutOpen() // reused keep-alive connections to the API server are cut too
    try {
      assertClusterUnavailable(await app.call('/whoami', `Bearer ${jwsToken('carol-token')}`))
    } finally {
      proxy.set('pass')
    }
  })

  test('a refused connection gives 503, never 401', async () => {
    proxy.set('refuse')
    proxy.cutOpen() // reused keep-alive connections to the API server are cut too
    try {
      assertClusterUnavailable(await app.call('/whoami', `Bearer ${jwsToken('dave-token')}`))
    } finally {
      proxy.set('pass')
    }
  })
})
