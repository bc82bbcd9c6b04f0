import { createHash } from 'node:crypto'
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AuthError } from '../../../src/base/errors.ts'
import { createReviewCache, msUntilExpiry } from '../../../src/managers/kubernetes/review-cache.ts'

function jwtWithExp (exp: number): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  return `${part({ alg: 'RS256' })}.${part({ sub: 'x', exp })}.sig`
}

function clock (start = 1_000_000): { now: () => number, advance: (ms: number) => void } {
  let time = start
  return { now: () => time, advance: (ms) => { time += ms } }
}

describe('TokenReview cache', () => {
  test('a second lookup of the same token within the TTL does not review again', async () => {
    const cache = createReviewCache<string>({ ttlMs: 60_000, failureTtlMs: 1000, maxEntries: 10 })
    let reviews = 0
    const load = async (): Promise<string> => `identity-${++reviews}`
    assert.equal(await cache.get('token-a', load), 'identity-1')
    assert.equal(await cache.get('token-a', load), 'identity-1')
    assert.equal(reviews, 1)
  })

  test('an entry is reviewed again once the TTL has passed', async () => {
    const time = clock()
    const cache = createReviewCache<number>({ ttlMs: 60_000, failureTtlMs: 1000, maxEntries: 10, now: time.now })
    let reviews = 0
    const load = async (): Promise<number> => ++reviews
    await cache.get('t', load)
    time.advance(60_001)
    assert.equal(await cache.get('t', load), 2)
  })

  test('concurrent lookups of one token share one review', async () => {
    const cache = createReviewCache<string>({ ttlMs: 60_000, failureTtlMs: 1000, maxEntries: 10 })
    let reviews = 0
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => { release = resolve })
    const load = async (): Promise<string> => { reviews++; await gate; return 'id' }
    const lookups = Array.from({ length: 50 }, async () => await cache.get('same', load))
    release()
    assert.deepEqual(new Set(await Promise.all(lookups)), new Set(['id']))
    assert.equal(reviews, 1)
  })

  test('the token\'s exp shortens the TTL', async () => {
    const time = clock(1_000_000_000)
    const cache = createReviewCache<number>({ ttlMs: 60_000, failureTtlMs: 1000, maxEntries: 10, now: time.now })
    const token = jwtWithExp(1_000_000_000 / 1000 + 10) // expires in 10 s
    let reviews = 0
    const load = async (): Promise<number> => ++reviews
    await cache.get(token, load)
    time.advance(9_000)
    assert.equal(await cache.get(token, load), 1)
    time.advance(2_000)
    assert.equal(await cache.get(token, load), 2)
  })

  test('an exp far in the future never lengthens the TTL', async () => {
    const time = clock(1_000_000_000)
    const cache = createReviewCache<number>({ ttlMs: 60_000, failureTtlMs: 1000, maxEntries: 10, now: time.now })
    const token = jwtWithExp(1_000_000_000 / 1000 + 86_400)
    let reviews = 0
    const load = async (): Promise<number> => ++reviews
    await cache.get(token, load)
    time.advance(60_001)
    assert.equal(await cache.get(token, load), 2)
  })

  test('a rejection is remembered only for the short failure TTL', async () => {
    const time = clock()
    const cache = createReviewCache<string>({ ttlMs: 60_000, failureTtlMs: 1000, maxEntries: 10, now: time.now })
    let reviews = 0
    const load = async (): Promise<string> => { reviews++; throw new AuthError('token_review_rejected', 'no') }
    await assert.rejects(cache.get('bad', load), { code: 'token_review_rejected' })
    await assert.rejects(cache.get('bad', load), { code: 'token_review_rejected' })
    assert.equal(reviews, 1)
    time.advance(1001)
    await assert.rejects(cache.get('bad', load), { code: 'token_review_rejected' })
    assert.equal(reviews, 2)
  })

  test('an unavailable cluster (503) is never cached', async () => {
    const cache = createReviewCache<string>({ ttlMs: 60_000, failureTtlMs: 1000, maxEntries: 10 })
    let reviews = 0
    const load = async (): Promise<string> => { if (++reviews === 1) throw new AuthError('cluster_unavailable', 'down'); return 'id' }
    await assert.rejects(cache.get('t', load), { code: 'cluster_unavailable' })
    assert.equal(await cache.get('t', load), 'id')
  })

  test('the cache holds at most maxEntries, dropping the least recently used', async () => {
    const cache = createReviewCache<string>({ ttlMs: 60_000, failureTtlMs: 1000, maxEntries: 2 })
    const loads: string[] = []
    const load = async (token: string): Promise<string> => { loads.push(token); return token }
    await cache.get('a', load)
    await cache.get('b', load)
    await cache.get('a', load) // a is now the most recent
    await cache.get('c', load) // evicts b
    assert.equal(cache.size(), 2)
    await cache.get('a', load)
    await cache.get('b', load)
    assert.deepEqual(loads, ['a', 'b', 'c', 'b'])
  })

  test('rejected tokens never evict cached identities', async () => {
    const cache = createReviewCache<string>({ ttlMs: 60_000, failureTtlMs: 60_000, maxEntries: 100 })
    let reviews = 0
    const accept = async (token: string): Promise<string> => { reviews++; return token }
    const reject = async (): Promise<string> => { reviews++; throw new AuthError('token_review_rejected', 'no') }
    for (let i = 0; i < 50; i++) await cache.get(`good-${i}`, accept)
    for (let i = 0; i < 100; i++) await assert.rejects(cache.get(`junk-${i}`, reject), { code: 'token_review_rejected' })
    reviews = 0
    for (let i = 0; i < 50; i++) assert.equal(await cache.get(`good-${i}`, accept), `good-${i}`)
    assert.equal(reviews, 0)
  })

  test('remembered rejections are bounded by their own LRU', async () => {
    const cache = createReviewCache<string>({ ttlMs: 60_000, failureTtlMs: 60_000, maxEntries: 10, maxRejections: 2 })
    const reviewed: string[] = []
    const reject = async (token: string): Promise<string> => { reviewed.push(token); throw new AuthError('token_review_rejected', 'no') }
    for (const token of ['x', 'y', 'z', 'z', 'y', 'x']) await assert.rejects(cache.get(token, reject))
    assert.deepEqual(reviewed, ['x', 'y', 'z', 'x'])
  })

  test('beyond maxInFlight reviews, a new token gets a 503 with Retry-After and is not reviewed', async () => {
    const cache = createReviewCache<string>({ ttlMs: 60_000, failureTtlMs: 1000, maxEntries: 10, maxInFlight: 2 })
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => { release = resolve })
    const reviewed: string[] = []
    const load = async (token: string): Promise<string> => { reviewed.push(token); await gate; return token }
    const first = cache.get('a', load)
    const second = cache.get('b', load)
    const sameAsFirst = cache.get('a', load)
    await assert.rejects(cache.get('c', load), (error: unknown) => {
      assert.ok(error instanceof AuthError)
      assert.equal(error.code, 'cluster_unavailable')
      assert.equal(error.status, 503)
      assert.ok((error.retryAfterSeconds ?? 0) > 0)
      return true
    })
    release()
    assert.deepEqual(await Promise.all([first, second, sameAsFirst]), ['a', 'b', 'a'])
    assert.equal(await cache.get('c', load), 'c')
    assert.deepEqual(reviewed, ['a', 'b', 'c'])
  })

  test('a load that throws at once does not stay in flight', async () => {
    const cache = createReviewCache<string>({ ttlMs: 60_000, failureTtlMs: 0, maxEntries: 10, maxInFlight: 1 })
    const broken = (): Promise<string> => { throw new AuthError('cluster_unavailable', 'boom') }
    await assert.rejects(cache.get('t', broken), { code: 'cluster_unavailable' })
    assert.equal(await cache.get('u', async () => 'fine'), 'fine')
  })

  test('peek answers a fresh success without loading, and nothing for expired or rejected tokens', async () => {
    const time = clock()
    const cache = createReviewCache<string>({ ttlMs: 1000, failureTtlMs: 1000, maxEntries: 10, now: time.now })
    await cache.get('good', async () => 'identity')
    await assert.rejects(cache.get('bad', async () => { throw new AuthError('token_review_rejected', 'no') }))
    assert.equal(cache.peek(cache.keyOf('good')), 'identity')
    assert.equal(cache.peek(cache.keyOf('bad')), undefined)
    assert.equal(cache.peek(cache.keyOf('never-seen')), undefined)
    time.advance(1001)
    assert.equal(cache.peek(cache.keyOf('good')), undefined)
  })

  test('keys are SHA-256 digests of the whole token: the raw token is never a key', () => {
    const cache = createReviewCache<string>({ ttlMs: 1000, failureTtlMs: 1000, maxEntries: 10 })
    const key = cache.keyOf('secret-token')
    assert.doesNotMatch(key, /secret/)
    assert.equal(key, createHash('sha256').update('secret-token').digest('base64url'))
    assert.notEqual(key, cache.keyOf('secret-token2'))
  })

  test('msUntilExpiry reads exp and ignores tokens that are not JWTs', () => {
    assert.equal(msUntilExpiry(jwtWithExp(100), 40_000), 60_000)
    assert.equal(msUntilExpiry('opaque-token', 0), Infinity)
    assert.equal(msUntilExpiry('a.!!!.c', 0), Infinity)
  })
})
