/**
 * Identity-provider faults injected by a proxy between the plugin and a real OpenID provider.
 * test/managers/oidc/provider-faults.test.ts covers the first fetch failing; this file covers a provider
 * that disappears at the TCP level, hangs under concurrent load, drips its answer, and breaks
 * *after* keys were fetched — when the keys already held must keep serving.
 *
 * Stale-if-error window: zero. Keys are used for `jwks_cache_lifespan_seconds` after a
 * successful fetch and never beyond it, even if the provider is failing then: the lifespan is
 * the documented bound on how long a revoked key keeps working (spec 5.2.9, 8).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { assertUnavailable, startApp, type TestApp } from '../../helpers/authz-app.ts'
import { startFaultProxy, type FaultMode, type FaultProxy } from '../../helpers/fault-proxy.ts'
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'
import { eventuallyStatus } from '../../helpers/eventually.ts'

/** Longer than the unknown-kid cooldown startApp configures (50 ms): an unknown kid then causes a refetch. */
const COOLDOWN_MS = 150
/** Slack on top of jwks_request_timeout_seconds for a loaded 2-core machine. */
const MARGIN_MS = 2000

let provider: TestProvider
let token: string
const proxies: FaultProxy[] = []
const apps: TestApp[] = []

async function serverBehindProxy (auth: Record<string, unknown> = {}): Promise<{ app: TestApp, proxy: FaultProxy }> {
  const proxy = await startFaultProxy(provider.baseUrl)
  proxies.push(proxy)
  const app = await startApp({ auth: { type: 'oidc', auth_discovery_url: `${proxy.url}/.well-known/openid-configuration`, client_id: provider.clientId, ...auth } })
  apps.push(app)
  return { app, proxy }
}

before(async () => {
  // The provider is started here, not by the OIDC-app fixture: the servers reach it through a fault proxy.
  provider = await startOidcProvider()
  token = await provider.issue({ preferred_username: 'alice' })
})
after(async () => {
  for (const app of apps) await app.close()
  for (const proxy of proxies) await proxy.close()
  await provider?.close()
})

describe('a provider that is down when the server starts', () => {
  test('the server starts, answers 503 with Retry-After, and recovers without a restart when the provider comes up', async () => {
    const proxy = await startFaultProxy(provider.baseUrl)
    proxies.push(proxy)
    proxy.set('refuse')
    const app = await startApp({ auth: { type: 'oidc', auth_discovery_url: `${proxy.url}/.well-known/openid-configuration`, client_id: provider.clientId } })
    apps.push(app)
    assert.equal((await app.call('/health')).status, 200)
    assertUnavailable(await app.call('/whoami', `Bearer ${token}`))
    assertUnavailable(await app.call('/whoami', `Bearer ${token}`))
    proxy.set('pass')
    const recovered = await eventuallyStatus(async () => await app.call('/whoami', `Bearer ${token}`), 200, 10_000)
    assert.equal(recovered.status, 200)
    assert.equal((recovered.body.principal as { username: string }).username, 'alice')
  })
})

describe('a provider that hangs', () => {
  test('concurrent requests are each answered 503 within jwks_request_timeout_seconds + margin, through one key-set fetch', async () => {
    const { app, proxy } = await serverBehindProxy({ jwks_request_timeout_seconds: 0.5 })
    proxy.set('hang', '/jwks')
    const started = Date.now()
    const timings = await Promise.all(Array.from({ length: 12 }, async () => {
      const response = await app.call('/whoami', `Bearer ${token}`)
      return { response, ms: Date.now() - started }
    }))
    for (const { response, ms } of timings) {
      assertUnavailable(response)
      assert.ok(ms < 500 + MARGIN_MS, `a request took ${ms} ms`)
    }
    assert.equal(proxy.count('/jwks'), 1)
    proxy.set('pass', '/jwks')
    assert.equal((await eventuallyStatus(async () => await app.call('/whoami', `Bearer ${token}`), 200, 10_000)).status, 200)
  })

  test('a key set dripped slower than the timeout is cut off: the timeout covers the body, not only the headers', async () => {
    const { app, proxy } = await serverBehindProxy({ jwks_request_timeout_seconds: 0.5 })
    proxy.set({ dripMs: 100 }, '/jwks')
    const started = Date.now()
    assertUnavailable(await app.call('/whoami', `Bearer ${token}`))
    assert.ok(Date.now() - started < 500 + MARGIN_MS, `the request took ${Date.now() - started} ms`)
  })

  test('a discovery document that never comes gives 503 within the timeout too', async () => {
    const { app, proxy } = await serverBehindProxy({ jwks_request_timeout_seconds: 0.5 })
    proxy.set('hang', '/.well-known')
    const started = Date.now()
    assertUnavailable(await app.call('/whoami', `Bearer ${token}`))
    assert.ok(Date.now() - started < 500 + MARGIN_MS, `the request took ${Date.now() - started} ms`)
  })
})

describe('a provider that breaks after the keys were fetched', () => {
  // Each check of "the keys held keep serving" sends a token issued after the fault, signed by
  // the key held: a token sent before would be answered from the verified-token cache, which
  // proves nothing about the key set.
  async function assertHeldKeysServe (app: TestApp, attempts: number): Promise<void> {
    for (let i = 0; i < attempts; i++) {
      const fresh = await provider.issue({ preferred_username: `alice-${i}` })
      const response = await app.call('/whoami', `Bearer ${fresh}`)
      assert.equal(response.status, 200, `attempt ${i}: ${response.status} ${JSON.stringify(response.body)}`)
      assert.equal((response.body.principal as { username: string }).username, `alice-${i}`)
    }
  }

  const faults: Array<[string, FaultMode]> = [
    ['HTTP 500', 'status500'],
    ['an HTML page', 'html'],
    ['an empty body', 'empty'],
    ['malformed JSON', 'malformed-json'],
    ['a JSON document without keys', { status: 200, body: '{"error":"maintenance"}' }],
    ['a hang', 'hang'],
    ['an abruptly closed connection', 'abrupt-close'],
    ['a refused connection', 'refuse']
  ]
  for (const [name, fault] of faults) {
    test(`with ${name}: a token with an unknown kid gets 503, and new tokens of the keys held keep getting 200`, async () => {
      const { app, proxy } = await serverBehindProxy({ jwks_request_timeout_seconds: 0.5 })
      assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
      await sleep(COOLDOWN_MS)
      proxy.set(fault, fault === 'refuse' ? undefined : '/jwks')
      const unknownKid = await provider.sign({ preferred_username: 'mallory' }, { kid: 'not-a-provider-kid' })
      assertUnavailable(await app.call('/whoami', `Bearer ${unknownKid}`))
      await assertHeldKeysServe(app, 3)
      proxy.reset()
    })
  }

  test('with a key set lacking the kid asked for: that token gets 401 unknown_key, and the current key keeps serving', async () => {
    const { app, proxy } = await serverBehindProxy()
    assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
    await sleep(COOLDOWN_MS)
    const before = proxy.count('/jwks')
    const unknownKid = await provider.sign({ preferred_username: 'mallory' }, { kid: 'not-a-provider-kid' })
    const refused = await app.call('/whoami', `Bearer ${unknownKid}`)
    assert.equal(refused.status, 401)
    assert.equal(refused.body.code, 'unknown_key')
    assert.ok(proxy.count('/jwks') > before, 'the unknown kid caused a refetch')
    assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
  })

  test('with an empty key set ({"keys": []}): a token with an unknown kid gets 503, and the keys held keep serving within their lifespan', async () => {
    const { app, proxy } = await serverBehindProxy()
    assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
    await sleep(COOLDOWN_MS)
    proxy.set({ status: 200, body: '{"keys":[]}' }, '/jwks')
    const before = proxy.count('/jwks')
    const unknownKid = await provider.sign({ preferred_username: 'mallory' }, { kid: 'not-a-provider-kid' })
    // An empty set is a provider fault, not a rotation to no keys: 503, never 401.
    assertUnavailable(await app.call('/whoami', `Bearer ${unknownKid}`))
    assert.ok(proxy.count('/jwks') > before, 'the unknown kid caused a refetch, which got the empty set')
    await assertHeldKeysServe(app, 1)
  })

  test('past jwks_cache_lifespan_seconds a failing provider gives 503: no key is used beyond its lifespan (stale-if-error window 0)', async () => {
    const { app, proxy } = await serverBehindProxy({ jwks_cache_lifespan_seconds: 0.5 })
    assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
    proxy.set('status500', '/jwks')
    await sleep(700)
    assertUnavailable(await app.call('/whoami', `Bearer ${token}`))
    proxy.reset()
    assert.equal((await eventuallyStatus(async () => await app.call('/whoami', `Bearer ${token}`), 200, 10_000)).status, 200)
  })
})
