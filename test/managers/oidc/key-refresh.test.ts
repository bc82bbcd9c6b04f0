/**
 * The key set's schedule (src/managers/oidc/key-set.ts) against a real OpenID provider, on a
 * fake clock: nothing here depends on how fast the machine is. Fetches are counted at the
 * provider and awaited through the `feast-authz:jwks-fetch` diagnostics channel.
 *
 * Lifespan 10 s and timeout 5 s: the refresh runs ahead by min(10 / 5, 5) = 2 s, from 8 s on
 * (more for a provider slower than 1 s: twice its answer time, at most 5 s).
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import https from 'node:https'
import { after, afterEach, before, describe, test } from 'node:test'
import { errors } from 'jose'
import { AuthError } from '../../../src/base/errors.ts'
import { createKeySet, type KeySet } from '../../../src/managers/oidc/key-set.ts'
import { jwksFetchChannel, type JwksFetchEvent } from '../../../src/base/observability/channels.ts'
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'
import { expectError } from '../../helpers/errors.ts'

let provider: TestProvider
const agents = { http: new http.Agent({ keepAlive: false }), https: new https.Agent({ keepAlive: false }) }
// The provider is started here, not by the OIDC-app fixture: the key set on its own, no server.
before(async () => { provider = await startOidcProvider() })
after(async () => { await provider.close() })
afterEach(() => { provider.fault('jwks', null) })

const LIFESPAN = 10_000

function keySetOnClock (extra: { cooldownMs?: number, onRefreshError?: (error: Error) => void } = {}): { keySet: KeySet, clock: { t: number } } {
  const clock = { t: 1_000_000 }
  const keySet = createKeySet(provider.jwksUri, {
    agents,
    lifespanMs: LIFESPAN,
    timeoutMs: 5_000,
    cooldownMs: extra.cooldownMs ?? 30_000,
    failureBackoffMs: 1_000,
    now: () => clock.t,
    onRefreshError: extra.onRefreshError
  })
  return { keySet, clock }
}

/** Resolves with the outcome of the next key-set fetch. */
function nextFetch (): Promise<JwksFetchEvent> {
  return new Promise((resolve) => {
    const listener = (message: unknown): void => {
      jwksFetchChannel.unsubscribe(listener)
      resolve(message as JwksFetchEvent)
    }
    jwksFetchChannel.subscribe(listener)
  })
}

const header = (kid: string): { alg: string, kid: string } => ({ alg: provider.alg, kid })
const token = { payload: '', signature: '' }

describe('refresh ahead of expiry', () => {
  test('before the last fifth of the lifespan, using the keys fetches nothing', async () => {
    const { keySet, clock } = keySetOnClock()
    await keySet.reload()
    provider.resetStats()
    clock.t += 7_999
    assert.ok(keySet.preparedKeys() !== undefined)
    await keySet.resolve(header(provider.kid), token)
    assert.equal(provider.stats.jwks, 0)
  })

  test('in the last fifth, the first use starts one background fetch and gets the current keys at once', async () => {
    const { keySet, clock } = keySetOnClock()
    await keySet.reload()
    const before = keySet.preparedKeys()
    provider.resetStats()
    clock.t += 8_500
    const fetched = nextFetch()
    // Synchronous answers: nothing waited for the fetch that just started.
    assert.equal(keySet.preparedKeys(), before)
    for (let i = 0; i < 50; i++) assert.equal(keySet.preparedKeys(), before)
    assert.equal((await fetched).outcome, 'success')
    assert.equal(provider.stats.jwks, 1)
    // The new keys count from their own fetch: fresh for a whole lifespan again.
    clock.t += LIFESPAN - 1
    assert.ok(keySet.preparedKeys() !== undefined)
  })

  test('a key resolved by jose during the background fetch does not wait for it', async () => {
    const { keySet, clock } = keySetOnClock()
    await keySet.reload()
    provider.fault('jwks', { delayMs: 300 })
    clock.t += 9_000
    let done = false
    const fetched = nextFetch().then(() => { done = true })
    // The provider answers this fetch late; the lookup is served by the current keys meanwhile.
    await keySet.resolve(header(provider.kid), token)
    assert.equal(done, false)
    await fetched
  })

  test('a provider slower than a fifth of the lifespan is asked earlier: twice its last answer time ahead', async () => {
    const { keySet, clock } = keySetOnClock()
    provider.fault('jwks', { delayMs: 1_500 })
    await keySet.reload() // 1.5 s or more of real time: the refresh now runs 3 s or more ahead, from 7 s
    provider.fault('jwks', null)
    provider.resetStats()
    clock.t += 7_500
    keySet.preparedKeys()
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(provider.stats.jwks, 1)
    const { keySet: quick, clock: quickClock } = keySetOnClock()
    await quick.reload()
    provider.resetStats()
    quickClock.t += 7_500
    quick.preparedKeys()
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(provider.stats.jwks, 0, 'a provider answering at once is refreshed a fifth of the lifespan ahead only')
  })

  test('keys refreshed in the background keep tokens of a key rotated in meanwhile accepted', async () => {
    const { keySet, clock } = keySetOnClock()
    await keySet.reload()
    await provider.rotateKeys({ keepOld: true })
    clock.t += 8_500
    const fetched = nextFetch()
    keySet.preparedKeys()
    await fetched
    assert.ok(keySet.preparedKeys()?.has(provider.kid))
  })
})

describe('when the background refresh fails', () => {
  test('the current keys serve until their lifespan ends, and not a millisecond longer', async () => {
    const failures: Error[] = []
    const { keySet, clock } = keySetOnClock({ onRefreshError: (error) => { failures.push(error) } })
    await keySet.reload()
    const key = keySet.preparedKeys()!.get(provider.kid)![0]!
    provider.fault('jwks', 'status500')
    clock.t += 8_500
    const fetched = nextFetch()
    assert.ok(keySet.preparedKeys() !== undefined)
    assert.equal((await fetched).outcome, 'error')
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(failures.length, 1)
    clock.t += 1_499 // 9,999 ms after the fetch
    assert.ok(keySet.preparedKeys() !== undefined)
    assert.equal(keySet.isCurrent(key), true)
    clock.t += 1 // 10,000 ms: the lifespan is over
    assert.equal(keySet.preparedKeys(), undefined)
    assert.equal(keySet.isCurrent(key), false)
    assert.equal(keySet.fresh(), false)
  })

  test('past the lifespan, a lookup waits for a fetch and fails closed with a 503 when it fails', async () => {
    const { keySet, clock } = keySetOnClock()
    await keySet.reload()
    provider.fault('jwks', 'status500')
    clock.t += LIFESPAN
    await expectError(keySet.resolve(header(provider.kid), token), { type: AuthError, status: 503, code: 'provider_unavailable' })
  })

  test('a failed refresh is retried after the failure back-off, not by every use', async () => {
    const { keySet, clock } = keySetOnClock()
    await keySet.reload()
    provider.fault('jwks', 'status500')
    provider.resetStats()
    clock.t += 8_200
    const fetched = nextFetch()
    for (let i = 0; i < 100; i++) keySet.preparedKeys()
    await fetched
    clock.t += 500 // within the 1 s back-off
    for (let i = 0; i < 100; i++) keySet.preparedKeys()
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(provider.stats.jwks, 1)
    provider.fault('jwks', null)
    clock.t += 600 // back-off over, still within the lifespan
    const retried = nextFetch()
    keySet.preparedKeys()
    assert.equal((await retried).outcome, 'success')
    assert.equal(provider.stats.jwks, 2)
  })
})

describe('unknown kids', () => {
  test('an unknown kid refetches at once, then not again while the cooldown runs', async () => {
    const { keySet, clock } = keySetOnClock({ cooldownMs: 30_000 })
    await keySet.reload()
    provider.resetStats()
    assert.equal(keySet.refusesUnknownKid(), false)
    await assert.rejects(keySet.resolve(header('no-such-kid'), token), errors.JWKSNoMatchingKey)
    assert.equal(provider.stats.jwks, 1)
    assert.equal(keySet.refusesUnknownKid(), true)
    await assert.rejects(keySet.resolve(header('another-unknown-kid'), token), errors.JWKSNoMatchingKey)
    assert.equal(provider.stats.jwks, 1)
    clock.t += 30_000
    assert.equal(keySet.refusesUnknownKid(), false)
  })

  test('a key rotated in is found by the refetch its first token causes', async () => {
    const { keySet } = keySetOnClock()
    await keySet.reload()
    await provider.rotateKeys({ keepOld: true })
    await keySet.resolve(header(provider.kid), token)
    assert.ok(keySet.preparedKeys()?.has(provider.kid))
  })
})
