import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createFailureReporter, describeFailure } from '../../../src/managers/kubernetes/api-failure.ts'
import { kubernetesClient } from '../../../src/managers/kubernetes/client-library.ts'
import { captureLogs } from '../../helpers/logs.ts'

// The instance feast-authz loads (under tsx, a static import would be a second copy of the package).
const { ApiException } = kubernetesClient()
const REVIEW = { action: 'TokenReview', permission: 'create tokenreviews.authentication.k8s.io' }

describe('API failures', () => {
  test('every failure becomes a 503 cluster_unavailable', () => {
    const report = createFailureReporter(captureLogs().logger)
    for (const error of [new ApiException(500, 'boom', '{}', {}), new ApiException(403, 'no', '{}', {}), Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })]) {
      const failure = report(error, REVIEW)
      assert.equal(failure.code, 'cluster_unavailable')
      assert.equal(failure.status, 503)
    }
  })

  test('the log never carries the exception message, which embeds response bodies', () => {
    const { logger, lines } = captureLogs()
    createFailureReporter(logger)(new ApiException(500, 'body: {"spec":{"token":"secret-token"}}', '{"spec":{"token":"secret-token"}}', {}), REVIEW)
    assert.equal(lines.length, 1)
    assert.doesNotMatch(JSON.stringify(lines), /secret-token/)
  })

  test('repeated failures of one kind are logged once per interval, then with the count suppressed', () => {
    let time = 0
    const { logger, lines } = captureLogs()
    const report = createFailureReporter(logger, { intervalMs: 10_000, now: () => time })
    for (let i = 0; i < 3; i++) report(new ApiException(500, 'x', '', {}), REVIEW)
    assert.equal(lines.length, 1)
    report(new ApiException(403, 'x', '', {}), REVIEW) // another kind: logged at once
    assert.equal(lines.length, 2)
    time += 10_001
    report(new ApiException(500, 'x', '', {}), REVIEW)
    assert.equal(lines.length, 3)
    assert.equal(lines[2]?.suppressed, 2)
  })

  test('describeFailure names timeouts and network errors without their messages', () => {
    assert.equal(describeFailure(Object.assign(new Error('x'), { name: 'AbortError' })).text, 'timed out')
    assert.equal(describeFailure(Object.assign(new Error('x'), { code: 'ECONNRESET' })).text, 'unreachable (ECONNRESET)')
    assert.deepEqual(describeFailure(new ApiException(403, 'x', '', {})), { status: 403, text: 'HTTP 403 (forbidden)' })
  })
})
