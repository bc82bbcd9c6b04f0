/**
 * Key rotation with the plugin's *default* key-set tuning (test/managers/oidc/key-rotation.test.ts
 * shortens the unknown-kid cooldown to 50 ms; production does not). Spec 5.2.9: a token
 * presenting an unknown key id makes the server refetch, "so new keys are accepted at once".
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useOidcApp } from '../../helpers/oidc-app.ts'

// `oidc: {}` puts back the plugin's default key-set tuning in place of the fixture's short test cooldowns.
const app = useOidcApp({ plugin: { oidc: {} } })

async function status (token: string): Promise<number> {
  return (await app.call('/whoami', `Bearer ${token}`)).status
}

test('a key the provider rotates in just after the server fetched its keys is accepted at once, with default settings', async () => {
  assert.equal(await status(await app.provider.issue({ preferred_username: 'before' })), 200)
  await app.provider.rotateKeys({ keepOld: true })
  const fresh = await app.provider.issue({ preferred_username: 'after' })
  assert.equal(await status(fresh), 200, 'a valid token of the new key was refused: the unknown-kid cooldown counts from the last routine fetch')
})
