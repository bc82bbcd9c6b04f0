import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createCliLogger } from '../../src/cli/cli-logger.ts'
import type { CliIo } from '../../src/cli/io.ts'

function capture (): { io: CliIo, stderr: () => string } {
  let stderr = ''
  return { io: { stdout: () => {}, stderr: (text) => { stderr += text }, env: {} }, stderr: () => stderr }
}

describe('the one-shot commands\' logger', () => {
  test('writes a warning at once, as one human line', () => {
    const { io, stderr } = capture()
    createCliLogger(io, 'inspect').logger.warn({ field: 'x' }, 'verify_ssl is false')
    assert.equal(stderr(), 'feast-authz inspect: warning: verify_ssl is false\n')
  })

  test('holds an error back until release, then writes it', () => {
    const { io, stderr } = capture()
    const logs = createCliLogger(io, 'inspect')
    logs.logger.error({ err: new Error('HTTP 403') }, 'the informer was refused')
    assert.equal(stderr(), '')
    logs.release()
    assert.equal(stderr(), 'feast-authz inspect: error: the informer was refused (HTTP 403)\n')
  })

  test('drops the errors held back on discard, since the verdict reports them', () => {
    const { io, stderr } = capture()
    const logs = createCliLogger(io, 'check')
    logs.logger.error('OIDC discovery failed')
    logs.discard()
    logs.release()
    assert.equal(stderr(), '')
  })

  test('writes errors at once when verbose', () => {
    const { io, stderr } = capture()
    createCliLogger(io, 'check', true).logger.error('OIDC discovery failed')
    assert.match(stderr(), /^feast-authz check: error: OIDC discovery failed\n/)
  })
})
