import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ApiServerFailure, apiTargetOf, createFailureReporter, createOutOfTimeReporter, describeFailure } from '../../../src/managers/kubernetes/api-failure.ts'
import { ApiStatusError } from '../../../src/managers/kubernetes/api-request.ts'
import { kubernetesClient } from '../../../src/managers/kubernetes/client-library.ts'
import { captureLogs } from '../../helpers/logs.ts'

// The instance feast-authz loads (under tsx, a static import would be a second copy of the package).
const REVIEW = { action: 'TokenReview', permission: 'create tokenreviews.authentication.k8s.io' }
const TARGET = { server: 'https://kube.example.com:6443', timeoutMs: 5000, caller: 'the kubeconfig user alice (context dev)', source: 'kubeconfig' } as const

describe('API failures', () => {
  test('every failure becomes a 503 cluster_unavailable', () => {
    const report = createFailureReporter(captureLogs().logger, TARGET)
    for (const error of [new ApiStatusError(500, undefined), new ApiStatusError(403, undefined), Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })]) {
      const failure = report(error, REVIEW)
      assert.equal(failure.code, 'cluster_unavailable')
      assert.equal(failure.status, 503)
    }
  })

  test('the log never carries the server\'s message, which may quote the request (a TokenReview holds its token)', () => {
    const { logger, lines } = captureLogs()
    createFailureReporter(logger, TARGET)(new ApiStatusError(500, 'body: {"spec":{"token":"secret-token"}}'), REVIEW)
    assert.equal(lines.length, 1)
    assert.doesNotMatch(JSON.stringify(lines), /secret-token/)
  })

  test('repeated failures of one kind are logged once per interval, then with the count suppressed', () => {
    let time = 0
    const { logger, lines } = captureLogs()
    const report = createFailureReporter(logger, TARGET, { intervalMs: 10_000, now: () => time })
    for (let i = 0; i < 3; i++) report(new ApiStatusError(500, undefined), REVIEW)
    assert.equal(lines.length, 1)
    report(new ApiStatusError(403, undefined), REVIEW) // another kind: logged at once
    assert.equal(lines.length, 2)
    time += 10_001
    report(new ApiStatusError(500, undefined), REVIEW)
    assert.equal(lines.length, 3)
    assert.equal(lines[2]?.suppressed, 2)
  })

  test('describeFailure names timeouts and network errors without their messages', () => {
    assert.equal(describeFailure(Object.assign(new Error('x'), { name: 'AbortError' })).text, 'timed out')
    assert.equal(describeFailure(Object.assign(new Error('x'), { code: 'ECONNRESET' })).text, 'unreachable (ECONNRESET)')
    assert.deepEqual(describeFailure(new ApiStatusError(403, undefined)), { status: 403, text: 'HTTP 403 (forbidden)', kind: 'forbidden' })
  })

  test('describeFailure tells a certificate signed by no trusted CA from other TLS failures', () => {
    assert.deepEqual(describeFailure(Object.assign(new Error('x'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' })), { status: undefined, text: 'TLS certificate not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)', kind: 'untrusted-certificate' })
    assert.deepEqual(describeFailure(Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' })), { status: undefined, text: 'TLS failed (ERR_TLS_CERT_ALTNAME_INVALID)', kind: 'tls' })
  })

  test('the cause of the 503 names the call, the API server and how it failed', () => {
    const failure = createFailureReporter(captureLogs().logger, TARGET)(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), REVIEW)
    assert.ok(failure.cause instanceof ApiServerFailure)
    assert.equal(failure.cause.message, 'TokenReview at https://kube.example.com:6443: unreachable (ECONNREFUSED)')
    assert.deepEqual({ target: failure.cause.target, kind: failure.cause.failure.kind }, { target: TARGET, kind: 'network' })
  })

  test('the cause of a 403 names the caller and the permission it lacks', () => {
    const failure = createFailureReporter(captureLogs().logger, TARGET)(new ApiStatusError(403, undefined), REVIEW)
    assert.equal((failure.cause as Error).message, 'TokenReview at https://kube.example.com:6443: HTTP 403 (forbidden): the kubeconfig user alice (context dev) lacks the permission create tokenreviews.authentication.k8s.io')
  })

  test('the log line of a 403 names the caller that lacks the permission', () => {
    const { logger, lines } = captureLogs()
    createFailureReporter(logger, TARGET)(new ApiStatusError(403, undefined), REVIEW)
    assert.equal(lines[0]?.msg, 'the Kubernetes API server refused TokenReview: the kubeconfig user alice (context dev) lacks the permission create tokenreviews.authentication.k8s.io (see docs/kubernetes.md)')
  })

  test('the log line of a 401 names whose credentials were rejected', () => {
    const { logger, lines } = captureLogs()
    createFailureReporter(logger, TARGET)(new ApiStatusError(401, undefined), REVIEW)
    assert.equal(lines[0]?.msg, 'the Kubernetes API server rejected the credentials of the kubeconfig user alice (context dev) during TokenReview: they expired, were revoked, or are for another cluster')
  })

  test('a request out of time names the call it was waiting for', () => {
    const failure = createOutOfTimeReporter(captureLogs().logger, TARGET)({ action: 'list RoleBindings and Roles in namespace feast', permission: 'list' })
    assert.equal((failure.cause as Error).message, 'list RoleBindings and Roles in namespace feast at https://kube.example.com:6443: no answer within requestTimeoutMs (5000 ms) for this request')
    assert.equal((failure.cause as ApiServerFailure).failure.kind, 'timeout')
  })

  test('the API server is named without the user, password, query or trailing slash the kubeconfig gives it', () => {
    const kubeConfig = new (kubernetesClient().KubeConfig)()
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://admin:s3cret@kube.example.com:6443/?token=abc', skipTLSVerify: false }],
      users: [{ name: 'u', token: 'user-token' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x'
    })
    assert.deepEqual(apiTargetOf({ kubeConfig, source: 'kubeconfig' }, 1234), { server: 'https://kube.example.com:6443', timeoutMs: 1234, caller: 'the kubeconfig user u (context x)', source: 'kubeconfig' })
  })

  test('a path after the API server\'s host, as proxies to a cluster use, is kept', () => {
    const kubeConfig = new (kubernetesClient().KubeConfig)()
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://rancher.example.com/k8s/clusters/c-1', skipTLSVerify: false }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x'
    })
    assert.equal(apiTargetOf({ kubeConfig, source: 'kubeconfig' }, 5000).server, 'https://rancher.example.com/k8s/clusters/c-1')
  })
})

// The public message of each way a call fails: it says what happened, so that a 403 never reads as an outage of the network.
const messages: ReadonlyArray<[string, unknown, string]> = [
  ['a refused connection', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'the Kubernetes API server could not be reached'],
  ['a timeout', Object.assign(new Error('x'), { name: 'AbortError' }), 'the Kubernetes API server did not answer in time'],
  ['a certificate signed by no trusted CA', Object.assign(new Error('x'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }), 'the certificate of the Kubernetes API server is not trusted'],
  ['another TLS failure', Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }), 'the TLS connection to the Kubernetes API server failed'],
  ['a 401', new ApiStatusError(401, undefined), 'the Kubernetes API server rejected the credentials feast-authz uses'],
  ['a 403', new ApiStatusError(403, undefined), 'the Kubernetes API server refused feast-authz a permission it needs'],
  ['a 500', new ApiStatusError(500, undefined), 'the Kubernetes API server answered with an error'],
  ['an answer that cannot be read', new SyntaxError('Unexpected token < in JSON'), 'the Kubernetes API server gave no usable answer']
]

describe('the message of the 503', () => {
  for (const [situation, error, message] of messages) {
    test(`after ${situation} says "${message}"`, () => {
      const failure = createFailureReporter(captureLogs().logger, TARGET)(error, REVIEW)
      const answer = { status: failure.status, retryAfter: failure.retryAfterSeconds !== undefined, message: failure.message }
      assert.deepEqual(answer, { status: 503, retryAfter: true, message })
    })
  }

  test('of a request out of time says the API server did not answer in time', () => {
    assert.equal(createOutOfTimeReporter(captureLogs().logger, TARGET)(REVIEW).message, 'the Kubernetes API server did not answer in time')
  })

  test('names neither the API server, nor the caller, nor the permission: it goes to whoever sent the request', () => {
    const failure = createFailureReporter(captureLogs().logger, TARGET)(new ApiStatusError(403, undefined), REVIEW)
    assert.doesNotMatch(failure.message, /kube\.example\.com|alice|tokenreviews/)
  })
})
