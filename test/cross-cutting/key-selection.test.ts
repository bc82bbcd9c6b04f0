/**
 * Issue 12, items 5-7, through every way in: a Fastify app with the plugin (warm and cold), an
 * Express app with the adapter, and `feast-authz inspect`, all validating tokens of a real
 * OpenID provider whose key set (as they see it, through a proxy) also holds weak keys.
 *
 * - a weak key in the provider's set: a token naming it is a 401 `unknown_key`, never a 500;
 * - a strong and a weak key under one `kid`: every server picks the strong one (one rule);
 * - another spelling of a token (the unused low bits of a segment's last character): 401.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import express from 'express'
import type { JWK } from 'jose'
import { feastAuthzExpress, type FeastAuthzExpress } from '../../src/adapters/express.ts'
import { mintIntraToken } from '../../src/base/intra-token.ts'
import { startApp, type TestApp } from '../helpers/authz-app.ts'
import { runCli } from '../helpers/cli.ts'
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts'
import { DEFAULT_AUDIENCE, startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { captureLogs } from '../helpers/logs.ts'
import { listenOnLoopback } from '../helpers/listen.ts'

const WEAK_KID = 'weak-1024'
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const dir = mkdtempSync(join(tmpdir(), 'feast-authz-key-selection-'))
const intraSecret = randomBytes(32)

let provider: TestProvider
let proxy: FaultProxy
let weak: { privateKey: KeyObject, jwk: JWK }
let sharedKidWeak: JWK
let warm: TestApp
let expressAuthz: FeastAuthzExpress
let expressServer: Server
let expressUrl: string
let configPath: string
const expressLogs = captureLogs()

function auth (): Record<string, unknown> {
  return { type: 'oidc', auth_discovery_url: `${proxy.url}/.well-known/openid-configuration`, client_id: provider.clientId, audience: DEFAULT_AUDIENCE, issuer: provider.issuer }
}

function weakToken (): string {
  const now = Math.floor(Date.now() / 1000)
  const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  const input = `${encode({ alg: 'RS256', kid: WEAK_KID, typ: 'JWT' })}.${encode({ iss: provider.issuer, aud: DEFAULT_AUDIENCE, sub: 'weakling', exp: now + 300, iat: now })}`
  return `${input}.${sign('sha256', Buffer.from(input), weak.privateKey).toString('base64url')}`
}

/** The same token, with the unused low bits of its last signature character set. */
function respelled (token: string): string {
  const tail = (token.length - token.lastIndexOf('.') - 1) % 4
  assert.ok(tail === 2 || tail === 3, 'the signature segment has unused bits')
  const last = ALPHABET.indexOf(token.at(-1)!)
  const spelled = token.slice(0, -1) + ALPHABET[last | (tail === 2 ? 0x0f : 0x03)]!
  assert.notEqual(spelled, token)
  return spelled
}

async function withIntraSecret<T> (action: () => Promise<T>): Promise<T> {
  const previous = process.env.INTRA_COMMUNICATION_BASE64
  process.env.INTRA_COMMUNICATION_BASE64 = intraSecret.toString('base64')
  try {
    return await action()
  } finally {
    if (previous === undefined) delete process.env.INTRA_COMMUNICATION_BASE64
    else process.env.INTRA_COMMUNICATION_BASE64 = previous
  }
}

before(async () => {
  // The provider is started here, not by the OIDC-app fixture: the servers reach it through a proxy that adds weak keys.
  provider = await startOidcProvider()
  const pair = generateKeyPairSync('rsa', { modulusLength: 1024 })
  weak = { privateKey: pair.privateKey, jwk: { ...pair.publicKey.export({ format: 'jwk' }), kid: WEAK_KID, alg: 'RS256', use: 'sig' } as JWK }
  // A second, weak key under the provider's own kid (item 6).
  sharedKidWeak = { ...generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }), kid: provider.kid, alg: 'RS256', use: 'sig' } as JWK
  proxy = await startFaultProxy(provider.baseUrl)
  proxy.set({ transform: (body) => JSON.stringify({ keys: [sharedKidWeak, ...(JSON.parse(body) as { keys: JWK[] }).keys, weak.jwk] }) }, '/jwks')
  warm = await withIntraSecret(async () => await startApp({ auth: auth() }))
  for (let i = 0; i < 200 && !warm.app.feastAuthz.health().ready; i++) await new Promise((resolve) => setTimeout(resolve, 25))
  assert.ok(warm.app.feastAuthz.health().ready, 'the warm server loaded its keys')

  expressAuthz = feastAuthzExpress({ config: { project: 'p', auth: auth() }, logger: expressLogs.logger })
  const app = express()
  app.use(expressAuthz.authenticate)
  app.get('/whoami', (req, res) => { res.json({ principal: { username: req.principal?.username } }) })
  ;({ server: expressServer, url: expressUrl } = await listenOnLoopback(app))

  configPath = join(dir, 'feature_store.yaml')
  writeFileSync(configPath, `project: demo\nauth:\n  type: oidc\n  client_id: ${provider.clientId}\n  audience: ${DEFAULT_AUDIENCE}\n  issuer: ${provider.issuer}\n  auth_discovery_url: ${proxy.url}/.well-known/openid-configuration\n`)
})

after(async () => {
  await warm?.close()
  await new Promise((resolve) => expressServer?.close(resolve))
  await expressAuthz?.close()
  await proxy?.close()
  await provider?.close()
  rmSync(dir, { recursive: true, force: true })
})

interface Verdicts { warm: string, cold: string, express: string, inspect: string }

/** The token through the warm Fastify app, a fresh (cold) one, the Express app and `inspect`: status and code of each. */
async function everywhere (token: string): Promise<Verdicts> {
  const describe = (status: number, body: Record<string, unknown>): string => status === 200 ? '200' : `${status} ${String(body.code)}`
  const warmResponse = await warm.call('/whoami', `Bearer ${token}`)
  const cold = await startApp({ auth: auth() })
  let coldVerdict: string
  try {
    const response = await cold.call('/whoami', `Bearer ${token}`)
    coldVerdict = describe(response.status, response.body)
  } finally {
    await cold.close()
  }
  const expressResponse = await fetch(`${expressUrl}/whoami`, { headers: { authorization: `Bearer ${token}` } })
  const expressBody = await expressResponse.json() as Record<string, unknown>
  const { code, stderr } = await runCli(['inspect', '--config', configPath, '--token', token])
  const inspect = code === 0 ? '200' : code === 1 ? `401 ${/token rejected: (\w+):/.exec(stderr)?.[1] ?? stderr}` : `exit ${String(code)}: ${stderr}`
  return { warm: describe(warmResponse.status, warmResponse.body), cold: coldVerdict, express: describe(expressResponse.status, expressBody), inspect }
}

const all = (verdict: string): Verdicts => ({ warm: verdict, cold: verdict, express: verdict, inspect: verdict })

describe('a weak key in the provider\'s key set (issue 12, item 5)', () => {
  test('a token naming the weak key is a 401 unknown_key on every server and in inspect, never a 500', async () => {
    assert.deepEqual(await everywhere(weakToken()), all('401 unknown_key'))
  })

  test('the ignored key is logged once, with its kid and the reason, however often the set is fetched', async () => {
    const app = await startApp({ auth: { ...auth(), jwks_cache_lifespan_seconds: 1 } })
    try {
      const token = await provider.issue({ preferred_username: 'lena' })
      assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
      await new Promise((resolve) => setTimeout(resolve, 1100))
      assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
      const lines = app.logs.raw.filter((line) => line.includes('is not used') && line.includes(`"kid":"${WEAK_KID}"`))
      assert.equal(lines.length, 1, app.logs.raw.join(''))
      assert.match(lines[0]!, /RSA modulus has 1024 bits/)
      assert.match(lines[0]!, /"level":40/)
    } finally {
      await app.close()
    }
  })
})

describe('a strong and a weak key under one kid (issue 12, item 6)', () => {
  test('a provider token signed by the strong key is accepted by warm and cold servers and by inspect alike', async () => {
    assert.deepEqual(await everywhere(await provider.issue({ preferred_username: 'stan' })), all('200'))
  })

  test('a token under that kid with a signature of neither key is refused alike: 401 invalid_signature', async () => {
    const token = await provider.issue({ preferred_username: 'stan' })
    const [header, payload] = token.split('.') as [string, string, string]
    const forged = `${header}.${payload}.${Buffer.alloc(256, 7).toString('base64url')}`
    assert.deepEqual(await everywhere(forged), all('401 invalid_signature'))
  })
})

describe('one token, one spelling (issue 12, item 7)', () => {
  test('a provider token respelled with the unused low bits of its signature set is a 401 malformed_token everywhere', async () => {
    const token = await provider.issue({ preferred_username: 'rhea' })
    assert.deepEqual(await everywhere(respelled(token)), all('401 malformed_token'))
  })

  test('the canonical spelling, sent just before or after, is accepted: only the spelling is refused', async () => {
    const token = await provider.issue({ preferred_username: 'rhea' })
    assert.equal((await warm.call('/whoami', `Bearer ${token}`)).status, 200)
    assert.equal((await warm.call('/whoami', `Bearer ${respelled(token)}`)).status, 401)
    assert.equal((await warm.call('/whoami', `Bearer ${token}`)).status, 200)
  })

  test('a respelled payload segment is refused as well', async () => {
    let token = await provider.issue({ preferred_username: 'ravi' })
    // Payloads are of any length; add claims until this one has unused bits to flip.
    for (let i = 0; (token.split('.')[1]!.length % 4) < 2 && i < 4; i++) token = await provider.issue({ preferred_username: 'ravi', pad: 'x'.repeat(i + 1) })
    const [header, payload, signature] = token.split('.') as [string, string, string]
    const tail = payload.length % 4
    const last = ALPHABET.indexOf(payload.at(-1)!)
    const spelled = `${header}.${payload.slice(0, -1)}${ALPHABET[last | (tail === 2 ? 0x0f : 0x03)]!}.${signature}`
    const response = await warm.call('/whoami', `Bearer ${spelled}`)
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'malformed_token')
  })

  test('an intra-server token respelled the same way is refused; the genuine one is accepted', async () => {
    const token = await mintIntraToken(new Uint8Array(intraSecret))
    assert.equal((await warm.call('/whoami', `Bearer ${token}`)).status, 200)
    const response = await warm.call('/whoami', `Bearer ${respelled(token)}`)
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'malformed_token')
  })
})
