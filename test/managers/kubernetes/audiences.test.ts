import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { AuthError } from '../../../src/base/errors.ts'
import { serviceAccountTokensForOidc } from '../../../src/managers/kubernetes/service-account-tokens.ts'
import { serviceAccountIdentity, serviceAccountJwt, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { KUBERNETES_CONFIG, managerFor } from '../../helpers/kubernetes.ts'
import { captureLogs } from '../../helpers/logs.ts'
import { expectError } from '../../helpers/errors.ts'

const AUDIENCE_WARNING = /no audience restriction/

describe('audience-bound service-account tokens', () => {
  let api: FakeKubeApi
  before(async () => { api = await startFakeKubeApi({ namespace: 'feast' }) })
  after(async () => { await api?.close() })

  const boundToken = (name: string, audience: string): string => {
    const token = serviceAccountJwt('apps', name, { aud: [audience] })
    api.addToken(token, serviceAccountIdentity('apps', name))
    return token
  }

  test('a token bound to the server\'s audience is accepted', async () => {
    const manager = managerFor(api, { config: { ...KUBERNETES_CONFIG, audiences: ['feast:feast:store'] } })
    try {
      const principal = await manager.authenticate(boundToken('own', 'feast:feast:store'))
      assert.equal(principal.username, 'system:serviceaccount:apps:own')
    } finally { await manager.close?.() }
  })

  test('a token for another audience is a 401', async () => {
    const manager = managerFor(api, { config: { ...KUBERNETES_CONFIG, audiences: ['feast:feast:store'] } })
    try {
      await expectError(async () => await manager.authenticate(boundToken('other', 'feast:other:store')), { type: AuthError, status: 401 })
    } finally { await manager.close?.() }
  })

  test('an API-server token (no audience of ours) is a 401 when audiences are set', async () => {
    const manager = managerFor(api, { config: { ...KUBERNETES_CONFIG, audiences: ['feast:feast:store'] } })
    const token = serviceAccountJwt('apps', 'plain')
    api.addToken(token, serviceAccountIdentity('apps', 'plain'))
    try {
      await expectError(async () => await manager.authenticate(token), { type: AuthError, status: 401 })
    } finally { await manager.close?.() }
  })

  test('an audience-unaware authenticator vouching for another audience (a 500 from the API server) is a 401, not an outage', async () => {
    const manager = managerFor(api, { config: { ...KUBERNETES_CONFIG, audiences: ['feast:feast:store'] } })
    const token = serviceAccountJwt('apps', 'webhook')
    api.addToken(token, { username: 'jane', webhookAudiences: ['elsewhere'] })
    try {
      await expectError(async () => await manager.authenticate(token), { type: AuthError, status: 401 })
    } finally { await manager.close?.() }
  })

  test('a server without audiences logs one startup warning saying what that allows', async () => {
    const { logger, lines } = captureLogs()
    const manager = managerFor(api, { logger })
    await manager.close?.()
    const warnings = lines.filter((line) => line.level === 40 && AUDIENCE_WARNING.test(line.msg))
    assert.equal(warnings.length, 1)
    assert.match(warnings[0]!.msg, /auth\.audiences.*replayed/)
  })

  test('a server with audiences logs no such warning', async () => {
    const { logger, lines } = captureLogs()
    const manager = managerFor(api, { logger, config: { ...KUBERNETES_CONFIG, audiences: ['feast'] } })
    await manager.close?.()
    assert.ok(!lines.some((line) => AUDIENCE_WARNING.test(line.msg)))
  })

  test('under oidc, service_account_audiences binds mixed service-account tokens the same way', async () => {
    const { logger } = captureLogs()
    const verify = serviceAccountTokensForOidc({ logger, audiences: ['feast:feast:store'], connection: { kubeConfig: api.kubeConfig(), source: 'kubeconfig', description: 'fake' } })
    assert.equal((await verify(boundToken('mixed-own', 'feast:feast:store'))).username, 'system:serviceaccount:apps:mixed-own')
    await expectError(verify(boundToken('mixed-other', 'elsewhere')), { type: AuthError, status: 401 })
  })
})
