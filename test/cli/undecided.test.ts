import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AuthError } from '../../src/base/errors.ts'
import { reportUndecided } from '../../src/cli/undecided.ts'
import { createFailureReporter, createOutOfTimeReporter, type ApiTarget } from '../../src/managers/kubernetes/api-failure.ts'
import { ApiStatusError, UnusableAnswer } from '../../src/managers/kubernetes/api-request.ts'
import { captureLogs } from '../helpers/logs.ts'

// What the second line of a "could not decide" says for each way a call to the API server fails.
const TARGET = { server: 'https://kube.example.com:6443', timeoutMs: 2500, caller: 'the kubeconfig user alice (context dev)', source: 'kubeconfig' } as const
const IN_POD = { server: 'https://10.96.0.1:443', timeoutMs: 2500, caller: 'the service account feast/feast-server', source: 'in-cluster' } as const
const REVIEW = { action: 'TokenReview', permission: 'create tokenreviews.authentication.k8s.io' }

function hintFor (error: AuthError): string {
  let stderr = ''
  reportUndecided({ stdout: () => {}, stderr: (text) => { stderr += text }, env: {} }, 'inspect', error, { type: 'kubernetes', token_review_cache_ttl_seconds: 60 })
  return stderr.split('\n')[1] ?? ''
}

const report = (error: unknown, target: ApiTarget = TARGET): AuthError => createFailureReporter(captureLogs().logger, target)(error, REVIEW)

describe('the hint of a cluster that could not be used', () => {
  test('a timed-out call names the server and the time budget', () => {
    assert.equal(hintFor(report(Object.assign(new Error('x'), { name: 'AbortError' }))),
      '  https://kube.example.com:6443 did not answer within 2500 ms (requestTimeoutMs, the limit of each call and of a request\'s calls together): check that this machine can reach it (VPN, proxy, firewall) and that it is not overloaded; --debug shows the details')
  })

  test('a request out of time is a timeout too', () => {
    assert.match(hintFor(createOutOfTimeReporter(captureLogs().logger, TARGET)(REVIEW)), /^ {2}https:\/\/kube\.example\.com:6443 did not answer within 2500 ms/)
  })

  test('rejected credentials say whose need renewing', () => {
    assert.equal(hintFor(report(new ApiStatusError(401, undefined))),
      '  https://kube.example.com:6443 rejected the credentials of the kubeconfig user alice (context dev): they expired or are for another cluster; get fresh ones; --debug shows the details')
  })

  test('a refused permission says to whom to grant it', () => {
    assert.equal(hintFor(report(new ApiStatusError(403, undefined))),
      '  grant that permission to the kubeconfig user alice (context dev) on https://kube.example.com:6443 (docs/kubernetes.md#rbac-the-service-needs), or use credentials that have it; --debug shows the details')
  })

  test('a server error says to check the server\'s health', () => {
    assert.equal(hintFor(report(new ApiStatusError(500, undefined))),
      '  check that https://kube.example.com:6443 is healthy (it answered HTTP 500); each call to it times out after 2500 ms (requestTimeoutMs); --debug shows the details')
  })

  test('an answer that is not the Kubernetes API\'s says so, and where to look', () => {
    assert.equal(hintFor(report(new UnusableAnswer('the RoleBinding list\'s items are missing'))),
      '  https://kube.example.com:6443 answered, but not as the Kubernetes API does (the RoleBinding list\'s items are missing): check what answers at that address (a proxy, a load balancer, an aggregated API in the way); --debug shows the details')
  })

  test('a TLS failure other than an untrusted CA says to compare the kubeconfig with the certificate', () => {
    assert.equal(hintFor(report(Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }))),
      '  check that the server address and certificate-authority of the kubeconfig (KUBECONFIG, else ~/.kube/config) match the certificate of https://kube.example.com:6443 (host name, expiry); --debug shows the details')
  })

  test('in a pod, an unreachable server points at the pod\'s network, not at a kubeconfig it does not use', () => {
    assert.equal(hintFor(report(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), IN_POD)),
      '  check that this pod can reach https://10.96.0.1:443 (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT; network policies) and that the API server is up; each call to it times out after 2500 ms (requestTimeoutMs); --debug shows the details')
  })

  test('in a pod, an untrusted certificate points at the service account\'s ca.crt', () => {
    assert.match(hintFor(report(Object.assign(new Error('x'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }), IN_POD)), /^ {2}the certificate of https:\/\/10\.96\.0\.1:443 is signed by no CA in the ca\.crt mounted with the pod's service account/)
  })

  test('a cluster failure with no call behind it (reviews queued too long) names no connection settings', () => {
    const queued = new AuthError('cluster_unavailable', 'too many token reviews are waiting for the Kubernetes API server', { retryAfterSeconds: 1 })
    assert.equal(hintFor(queued), '  check that the Kubernetes API server is up and answering promptly, then try again; --debug shows the details')
  })

  test('in a pod, no hint names a kubeconfig', () => {
    for (const error of [Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }), Object.assign(new Error('x'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }), new ApiStatusError(403, undefined)]) {
      assert.doesNotMatch(hintFor(report(error, IN_POD)), /kubeconfig/i)
    }
  })
})
