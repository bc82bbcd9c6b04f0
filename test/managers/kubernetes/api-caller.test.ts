/**
 * Who the API server sees making our calls, as the messages of a 401 or 403 name it: the pod's
 * service account in a cluster, the kubeconfig's user and context elsewhere. Never a credential.
 */
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { describeCaller } from '../../../src/managers/kubernetes/api-caller.ts'
import { kubernetesClient } from '../../../src/managers/kubernetes/client-library.ts'
import { detectClusterConnection } from '../../../src/managers/kubernetes/cluster-connection.ts'
import { serviceAccountJwt } from '../../helpers/fake-kube-api.ts'
import { fakePodDir } from '../../helpers/kubernetes.ts'

const root = mkdtempSync(join(tmpdir(), 'feast-authz-k8s-caller-'))
const IN_A_POD = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }

/** The caller of a pod whose mounted token is `token`. */
function podCaller (token: string): string {
  const connection = detectClusterConnection({ env: IN_A_POD, serviceAccountDir: fakePodDir(root, 'feast', { token }) })
  assert.equal(connection?.source, 'in-cluster')
  return describeCaller(connection)
}

function kubeconfigCaller (user: { name: string, token?: string } | undefined): string {
  const kubeConfig = new (kubernetesClient().KubeConfig)()
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://kube.example.com:6443', skipTLSVerify: false }],
    users: user === undefined ? [] : [user],
    contexts: [{ name: 'dev', cluster: 'c', ...(user === undefined ? {} : { user: user.name }) }],
    currentContext: 'dev'
  })
  return describeCaller({ kubeConfig, source: 'kubeconfig' })
}

describe('the caller of the API server', () => {
  test('in a pod is the service account its mounted token names', () => {
    assert.equal(podCaller(serviceAccountJwt('feast', 'feast-server')), 'the service account feast/feast-server')
  })

  test('in a pod whose token names no service account is the pod\'s service account', () => {
    assert.equal(podCaller('pod-token'), 'the pod\'s service account')
  })

  test('in a pod is never worded from a subject that is not a service account\'s DNS names', () => {
    const payload = Buffer.from(JSON.stringify({ sub: 'system:serviceaccount:feast:x\nforged line' })).toString('base64url')
    assert.equal(podCaller(`e30.${payload}.c2ln`), 'the pod\'s service account')
  })

  test('with a kubeconfig is its current user and context, without the user\'s token', () => {
    assert.equal(kubeconfigCaller({ name: 'alice@dev', token: 'secret-token' }), 'the kubeconfig user alice@dev (context dev)')
  })

  test('with a kubeconfig context that names no user says so', () => {
    assert.equal(kubeconfigCaller(undefined), 'the kubeconfig context dev, which names no user')
  })
})
