/**
 * Key rotation with the plugin's *default* key-set tuning (test/managers/oidc/key-rotation.test.ts
 * shortens the unknown-kid cooldown to 50 ms; production does not). Spec 5.2.9: a token
 * presenting an unknown key id makes the server refetch, "so new keys are accepted at once".
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import feastAuthz from '../../../src/adapters/fastify.ts'
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'

let provider: TestProvider
let app: FastifyInstance
let url: string

before(async () => {
  provider = await startOidcProvider()
  app = Fastify()
  await app.register(feastAuthz, { config: { project: 'demo', auth: { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId } } })
  app.get('/whoami', async (request) => ({ username: request.principal?.username }))
  url = await app.listen({ host: '127.0.0.1', port: 0 })
})
after(async () => {
  await app?.close()
  await provider?.close()
})

async function status (token: string): Promise<number> {
  const response = await fetch(`${url}/whoami`, { headers: { authorization: `Bearer ${token}` } })
  await response.text()
  return response.status
}

test('a key the provider rotates in just after the server fetched its keys is accepted at once, with default settings', async () => {
  assert.equal(await status(await provider.issue({ preferred_username: 'before' })), 200)
  await provider.rotateKeys({ keepOld: true })
  const fresh = await provider.issue({ preferred_username: 'after' })
  assert.equal(await status(fresh), 200, 'a valid token of the new key was refused: the unknown-kid cooldown counts from the last routine fetch')
})
