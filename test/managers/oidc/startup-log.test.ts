import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { loadAuthConfig } from '../../../src/config/auth-config.ts'
import { createAuthManager } from '../../../src/managers/create-manager.ts'
import { NO_POD } from '../../helpers/kubernetes.ts'
import { serviceAccountJwt } from '../../helpers/fake-kube-api.ts'
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'
import { captureLogs } from '../../helpers/logs.ts'

let provider: TestProvider
// The provider is started here, not by the OIDC-app fixture: managers on their own, no server.
before(async () => { provider = await startOidcProvider() })
after(async () => { await provider.close() })

function startManager (
  extra: Record<string, string> = {}
): { lines: Array<Record<string, unknown>>, close: () => Promise<void>, authenticate: (token: string) => Promise<unknown> } {
  const { logger, lines } = captureLogs()
  const { auth } = loadAuthConfig({ project: 'p', auth: { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId, ...extra } })
  const manager = createAuthManager(auth, { logger, kubernetes: { env: {}, serviceAccountDir: NO_POD } })
  return { lines, close: async () => { await manager.close() }, authenticate: async (token) => await manager.authenticate(token) }
}

const INFO = 30
const DEBUG = 20

describe('what an OIDC server says at startup', () => {
  test('one info line when neither audience nor issuer is checked: what that accepts and how to set them', async () => {
    const { lines, close } = startManager()
    await close()
    const said = lines.filter((line) => /not checked/.test(String(line.msg)))
    assert.equal(said.length, 1)
    assert.equal(said[0]?.level, INFO)
    assert.match(String(said[0]?.msg), /audience and issuer not checked: any unexpired token signed by the provider's keys is accepted, whichever client it was issued for; set auth\.audience and auth\.issuer in feature_store\.yaml/)
  })

  test('names only the one left unchecked', async () => {
    const { lines, close } = startManager({ audience: 'feast' })
    await close()
    const said = lines.filter((line) => /not checked/.test(String(line.msg)))
    assert.deepEqual(said.map((line) => line.unchecked), [['issuer']])
  })

  test('no such line when both are set', async () => {
    const { lines, close } = startManager({ audience: 'feast', issuer: 'https://idp.example.com' })
    await close()
    assert.equal(lines.filter((line) => /not checked/.test(String(line.msg))).length, 0)
  })

  test('no cluster connection is a debug line only, until a service-account token arrives (then one info line)', async () => {
    const { lines, authenticate, close } = startManager()
    try {
      const startup = lines.filter((line) => /cluster connection/.test(String(line.msg)))
      assert.deepEqual(startup.map((line) => line.level), [DEBUG])
      for (let i = 0; i < 2; i++) await assert.rejects(authenticate(serviceAccountJwt('apps', 'alice')), { code: 'token_review_rejected' })
      const refusals = lines.filter((line) => /was refused: this OIDC server has no cluster connection/.test(String(line.msg)))
      assert.deepEqual(refusals.map((line) => line.level), [INFO])
    } finally {
      await close()
    }
  })
})
