/**
 * The attack-token corpus (fixtures/attack-tokens/recipes.json) against a real Fastify server
 * with the plugin in `oidc` mode, validating tokens of a real OpenID provider. Every token must
 * be answered 401 with a Bearer `invalid_token` challenge and a stable code — never 2xx, never 500 —
 * and no token may appear in the server's log.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { mintIntraToken } from '../../src/base/intra-token.ts'
import { buildAttackTokens, createCorpusKeys, publishCorpusKeys, RECIPES, trustedToken, type AttackTarget, type AttackToken, type CorpusKeys } from '../helpers/attack-tokens.ts'
import { startApp, type TestApp } from '../helpers/authz-app.ts'
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts'
import { DEFAULT_AUDIENCE, startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'

let provider: TestProvider
let proxy: FaultProxy
let app: TestApp
let keys: CorpusKeys
let target: AttackTarget
let tokens: AttackToken[]
let attackerServer: http.Server
let attackerHits = 0
const intraSecret = randomBytes(32)
const sentTokens: string[] = []

before(async () => {
  // The provider is started here, not by the OIDC-app fixture: the server reaches it through a proxy that publishes the corpus keys.
  provider = await startOidcProvider()
  keys = await createCorpusKeys()
  proxy = await startFaultProxy(provider.baseUrl)
  // The provider's key set, as the plugin sees it, also publishes the corpus's trusted RSA key
  // and an EC key: claim-level attacks then get past the signature check.
  proxy.set({ transform: (body) => publishCorpusKeys(body, keys) }, '/jwks')
  attackerServer = http.createServer((_req, res) => { attackerHits++; res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [keys.attacker.publicJwk] })) })
  await new Promise<void>((resolve) => attackerServer.listen(0, '127.0.0.1', resolve))
  const previous = process.env.INTRA_COMMUNICATION_BASE64
  process.env.INTRA_COMMUNICATION_BASE64 = intraSecret.toString('base64')
  try {
    app = await startApp({
      auth: {
        type: 'oidc',
        auth_discovery_url: `${proxy.url}/.well-known/openid-configuration`,
        client_id: provider.clientId,
        audience: DEFAULT_AUDIENCE,
        issuer: provider.issuer
      }
    })
  } finally {
    if (previous === undefined) delete process.env.INTRA_COMMUNICATION_BASE64
    else process.env.INTRA_COMMUNICATION_BASE64 = previous
  }
  target = {
    issuer: provider.issuer,
    audience: DEFAULT_AUDIENCE,
    providerKid: provider.kid,
    providerPublicPem: await provider.publicKeyPem(),
    providerPublicJwk: provider.publicJwk,
    intraSecretB64: intraSecret.toString('base64'),
    attackerJwksUrl: `http://127.0.0.1:${(attackerServer.address() as AddressInfo).port}/jwks.json`
  }
  tokens = buildAttackTokens(target, keys)
})

after(async () => {
  await app?.close()
  await proxy?.close()
  await provider?.close()
  attackerServer?.closeAllConnections()
  await new Promise<void>((resolve) => attackerServer?.close(() => { resolve() }) ?? resolve())
})

async function send (token: string): ReturnType<TestApp['call']> {
  sentTokens.push(token)
  return await app.call('/whoami', `Bearer ${token}`)
}

describe('the controls: tokens that must pass do pass', () => {
  test('a token issued by the provider is accepted', async () => {
    const response = await send(await provider.issue({ preferred_username: 'alice' }))
    assert.equal(response.status, 200)
    assert.equal((response.body.principal as { username: string }).username, 'alice')
  })

  test('a valid token signed by the extra key the provider publishes is accepted (claim attacks reach the claim checks)', async () => {
    const response = await send(trustedToken(target, keys))
    assert.equal(response.status, 200)
    assert.equal((response.body.principal as { username: string }).username, 'mallory')
  })

  test('a genuine intra-server token is accepted', async () => {
    const response = await send(await mintIntraToken(new Uint8Array(intraSecret)))
    assert.equal(response.status, 200)
    assert.equal((response.body.principal as { source: string }).source, 'intra')
  })
})

describe('every attack token is refused with 401', () => {
  for (const [index, recipe] of RECIPES.entries()) {
    test(`${recipe.group}: ${recipe.name} → 401 ${recipe.expect.join(' or ')}`, async () => {
      const attack = tokens[index]!
      const response = await send(attack.token)
      assert.equal(response.status, 401, `status ${response.status}, body ${JSON.stringify(response.body)}`)
      assert.ok(recipe.expect.includes(String(response.body.code)), `code ${String(response.body.code)}, expected ${recipe.expect.join(' or ')}`)
      assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer realm="feast", error="invalid_token", error_description="[\x20-\x21\x23-\x5b\x5d-\x7e]*"$/)
      assert.equal(response.body.statusCode, 401)
    })
  }
})

describe('what the attacks leave behind', () => {
  test('no attack made the server fetch a URL named in a token (jku, x5u)', () => {
    assert.equal(attackerHits, 0)
  })

  test('no token sent appears in the server log, whole or as its signature', () => {
    const log = app.logs.raw.join('')
    assert.ok(app.logs.raw.length > 0)
    for (const token of sentTokens) {
      assert.equal(log.includes(token), false, 'a whole token is in the log')
      const signature = token.split('.')[2] ?? ''
      if (signature.length >= 16) assert.equal(log.includes(signature), false, 'a token signature is in the log')
    }
  })
})
