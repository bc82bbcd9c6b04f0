/**
 * The returning variant of a manager's `authenticate` (src/managers/returned-refusals.ts): the
 * same verdicts, with the refusals decided without I/O returned instead of thrown.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { loadAuthConfig, type OidcServerConfig } from '../../src/config/auth-config.ts'
import { AuthError } from '../../src/base/errors.ts'
import { silentLogger } from '../../src/base/logging.ts'
import { createOidcManager } from '../../src/managers/oidc/oidc-manager.ts'
import { offerReturnedRefusals, returnedRefusalsOf } from '../../src/managers/returned-refusals.ts'
import type { AuthManager } from '../../src/managers/types.ts'
import { rawToken, startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { stubManager } from '../helpers/stub-manager.ts'

let provider: TestProvider
before(async () => { provider = await startOidcProvider() })
after(async () => { await provider.close() })

function oidcManager (): AuthManager {
  const config = loadAuthConfig({ auth: { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId } }).auth as OidcServerConfig
  return createOidcManager(config, { logger: silentLogger })
}

/** What `authenticate` throws for `token` (its code), or 'accepted'. */
async function thrownCode (manager: AuthManager, token: string): Promise<string> {
  try {
    await manager.authenticate(token)
    return 'accepted'
  } catch (error) {
    assert.ok(error instanceof AuthError, String(error))
    return error.code
  }
}

describe('returned refusals of the OIDC manager', () => {
  test('return, without throwing, the refusal authenticate throws for a bad signature, an unknown key and a malformed token', async () => {
    const manager = oidcManager()
    try {
      await manager.warmUp()
      const refusing = returnedRefusalsOf(manager)
      assert.ok(refusing !== undefined, 'the OIDC manager offers a returning variant')
      const valid = await provider.sign({ preferred_username: 'alice' })
      const [header, payload, signature] = valid.split('.') as [string, string, string]
      const tampered = `${header}.${payload}.${signature.slice(0, -4)}${signature.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`
      const unknownKid = `${rawToken({ alg: 'RS256', kid: 'not-a-key-of-the-provider' })}.${payload}.${signature}`
      // Spend the unknown-kid refetch, so that the next unknown kid is refused without I/O.
      await thrownCode(manager, unknownKid)
      for (const [token, code] of [[tampered, 'invalid_signature'], [unknownKid, 'unknown_key'], ['not.a-jws', 'malformed_token']] as const) {
        let outcome: unknown
        assert.doesNotThrow(() => { outcome = refusing(token) }, `${code}: returned, not thrown`)
        assert.ok(outcome instanceof AuthError, `${code}: an AuthError, got ${String(outcome)}`)
        assert.equal(outcome.code, code)
        assert.equal(await thrownCode(manager, token), code, `${code}: authenticate throws the same refusal`)
      }
      const principal = await refusing(valid)
      assert.ok(!(principal instanceof AuthError))
      assert.equal(principal.username, 'alice')
    } finally {
      await manager.close()
    }
  })
})

describe('offering returned refusals', () => {
  test('a manager that offers none has none, and a wrapper spreading one does not inherit its offer', () => {
    const plain = stubManager({})
    assert.equal(returnedRefusalsOf(plain), undefined)
    const offering = offerReturnedRefusals(stubManager({}), () => new AuthError('invalid_signature', 'no'))
    assert.ok(returnedRefusalsOf(offering) !== undefined)
    assert.equal(returnedRefusalsOf({ ...offering }), undefined)
  })
})
