/**
 * The API server answered, and refused us: a 401 to our own credentials or a 403 for a missing
 * permission. The caller still gets a 503 with Retry-After (fail closed), whose message says what
 * happened rather than "could not be reached", and the log names whom the API server refused: the
 * pod's service account, or the kubeconfig's user and context.
 */
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { detectClusterConnection } from '../../../src/managers/kubernetes/cluster-connection.ts'
import { startApp, type TestApp } from '../../helpers/authz-app.ts'
import { jwsToken, serviceAccountIdentity, serviceAccountJwt, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { fakePodDir, managerFor, NO_POD, startClusterWithAliceReader } from '../../helpers/kubernetes.ts'
import { captureLogs } from '../../helpers/logs.ts'

const FAST = { requestTimeoutMs: 1500, informer: { restartBackoffMs: { initial: 50, max: 200 } } }

describe('when the API server refuses us', () => {
  let api: FakeKubeApi
  const apps: TestApp[] = []

  before(async () => { api = await startClusterWithAliceReader() })
  after(async () => {
    for (const app of apps) await app.close()
    await api?.close()
  })

  /** A server on a kubeconfig whose credential is `token` (default: the service's own). */
  async function serverWith (token?: string): Promise<TestApp> {
    const kubeconfig = token === undefined ? api.kubeconfigPath : await api.writeKubeconfig({ name: `kubeconfig-${apps.length}`, token })
    const connection = detectClusterConnection({ env: { KUBECONFIG: kubeconfig }, useHomeConfig: false, serviceAccountDir: NO_POD })
    const app = await startApp({ auth: { type: 'kubernetes' }, plugin: { manager: managerFor(api, { connection, tuning: FAST }) } })
    apps.push(app)
    return app
  }

  test('a 403 on TokenReview answers 503 with Retry-After, saying a permission was refused', async () => {
    const app = await serverWith()
    api.revoke('create', 'tokenreviews')
    const response = await app.call('/whoami', `Bearer ${jwsToken('alice-token')}`).finally(() => { api.grant('create', 'tokenreviews') })
    assert.deepEqual({ status: response.status, code: response.body.code, message: response.body.message },
      { status: 503, code: 'cluster_unavailable', message: 'the Kubernetes API server refused feast-authz a permission it needs' })
    assert.ok(Number(response.headers.get('retry-after')) > 0, 'a Retry-After header')
  })

  test('a 401 to our own credentials answers 503, never 401, saying they were rejected', async () => {
    const app = await serverWith('a-stale-token')
    const response = await app.call('/whoami', `Bearer ${jwsToken('alice-token')}`)
    assert.deepEqual({ status: response.status, message: response.body.message, challenge: response.headers.get('www-authenticate') },
      { status: 503, message: 'the Kubernetes API server rejected the credentials feast-authz uses', challenge: null })
  })

  test('with a kubeconfig, the informer\'s refusal names its user and context', async () => {
    const { logger, lines } = captureLogs()
    api.revoke('list', 'rolebindings')
    const manager = managerFor(api, { logger, tuning: FAST })
    try {
      await manager.warmUp()
      const refusal = lines.find((line) => line.status === 403)
      assert.equal(refusal?.msg, 'the RoleBinding and Role informer was refused: the kubeconfig user feast-service (context fake) lacks the permission ' +
        'get, list and watch rolebindings and roles (rbac.authorization.k8s.io) in namespace feast (see docs/kubernetes.md)')
    } finally {
      await manager.close()
      api.grant('list', 'rolebindings', 'feast')
    }
  })

  test('in a pod, a refused TokenReview names the pod\'s service account', async () => {
    // The pod's token is a service account the API server knows but granted nothing: its TokenReview is a 403.
    const podToken = serviceAccountJwt('feast', 'feast-server')
    api.addToken(podToken, serviceAccountIdentity('feast', 'feast-server'))
    const pod = fakePodDir(mkdtempSync(join(tmpdir(), 'feast-authz-refused-')), 'feast', { token: podToken, caPem: api.caPem })
    const connection = detectClusterConnection({ env: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: new URL(api.url).port }, serviceAccountDir: pod })
    assert.equal(connection?.source, 'in-cluster')
    const { logger, lines } = captureLogs()
    const manager = managerFor(api, { logger, connection, serviceAccountDir: pod, tuning: FAST })
    try {
      await assert.rejects(async () => await manager.authenticate(jwsToken('alice-token')), { code: 'cluster_unavailable', status: 503 })
      const refusal = lines.find((line) => line.status === 403 && /TokenReview/.test(line.msg))
      assert.match(String(refusal?.msg), /^the Kubernetes API server refused TokenReview: the service account feast\/feast-server lacks the permission create tokenreviews/)
    } finally {
      await manager.close()
    }
  })
})
