import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AuthError } from '../../src/managers/errors.ts'
import { createReviewCache, msUntilExpiry } from '../../src/managers/kubernetes/review-cache.ts'

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

  test('msUntilExpiry reads exp and ignores tokens that are not JWTs', () => {
    assert.equal(msUntilExpiry(jwtWithExp(100), 40_000), 60_000)
    assert.equal(msUntilExpiry('opaque-token', 0), Infinity)
    assert.equal(msUntilExpiry('a.!!!.c', 0), Infinity)
  })
})
