import { AuthError } from '../../base/errors.ts'
import { decodeSegment } from '../../base/jwt-segments.ts'
import { createLru } from '../../base/lru.ts'
import { createTokenDigest } from '../../base/token-digest.ts'

export interface ReviewCacheOptions {
  /** How long a successful review is reused, at most (the token's `exp` may shorten it). */
  readonly ttlMs: number
  /** How long a rejection (401) is remembered. 503s are never cached. */
  readonly failureTtlMs: number
  /** Successful reviews kept; the least recently used goes first. */
  readonly maxEntries: number
  /** Rejections kept, in an LRU of their own so they never evict a success. Default 1000. */
  readonly maxRejections?: number
  /** Reviews in flight at once; beyond that a new token gets a 503. Default 64. */
  readonly maxInFlight?: number
  /** Called each time a token is turned away because `maxInFlight` reviews are running. */
  readonly onSaturated?: (inFlight: number) => void
  readonly now?: () => number
}

export interface ReviewCache<T> {
  /** The cache key of a token: its SHA-256 (one-shot, base64url). */
  keyOf (token: string): string
  /** The cached successful result under `key` if still fresh, without I/O. */
  peek (key: string): T | undefined
  /**
   * The cached result for `token`, or `load(token)`'s, shared by every concurrent caller
   * of the same token (one review in flight per token).
   */
  get (token: string, load: (token: string) => Promise<T>): Promise<T>
  /** Successful reviews cached. */
  readonly size: () => number
  clear (): void
}

interface Entry<T> { readonly expiresAt: number, readonly value: T }
interface Rejection { readonly expiresAt: number, readonly error: AuthError }

/**
 * Review results keyed by the SHA-256 of the whole token, as the OIDC cache keys its
 * entries: raw tokens are never map keys (nor in heap dumps of the map), and a digest
 * reveals nothing of a token that is not already known. Expiry is checked on read, so no
 * timer runs.
 *
 * Everything is bounded, because every distinct token a caller invents costs a review:
 * successes and rejections live in separate LRUs (a flood of rejected tokens cannot push
 * out cached identities), and at most `maxInFlight` reviews wait on the API server (a
 * slow server cannot make the pending set grow without bound).
 */
export function createReviewCache<T> (options: ReviewCacheOptions): ReviewCache<T> {
  const now = options.now ?? Date.now
  const maxInFlight = options.maxInFlight ?? 64
  const successes = createLru<string, Entry<T>>(options.maxEntries)
  const rejections = createLru<string, Rejection>(options.maxRejections ?? 1000)
  const inFlight = new Map<string, Promise<T>>()

  const keyOf = createTokenDigest()

  const peek = (key: string): T | undefined => {
    const entry = successes.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt > now()) return entry.value
    successes.delete(key)
    return undefined
  }

  const load = async (token: string, key: string, loader: (token: string) => Promise<T>): Promise<T> => {
    try {
      const value = await loader(token)
      const ttl = Math.min(options.ttlMs, msUntilExpiry(token, now()))
      if (ttl > 0) successes.set(key, { expiresAt: now() + ttl, value })
      return value
    } catch (error) {
      if (error instanceof AuthError && error.status === 401 && options.failureTtlMs > 0) {
        rejections.set(key, { expiresAt: now() + options.failureTtlMs, error })
      }
      throw error
    }
  }

  return {
    keyOf,
    peek,
    async get (token, loader) {
      const key = keyOf(token)
      const value = peek(key)
      if (value !== undefined) return value
      const rejection = rejections.get(key)
      if (rejection !== undefined) {
        if (rejection.expiresAt > now()) throw rejection.error
        rejections.delete(key)
      }
      const pending = inFlight.get(key)
      if (pending !== undefined) return await pending
      if (inFlight.size >= maxInFlight) {
        options.onSaturated?.(inFlight.size)
        throw new AuthError('cluster_unavailable', 'too many token reviews are waiting for the Kubernetes API server', { retryAfterSeconds: 1 })
      }
      // `finally` runs in a later microtask, after the set below, even if `loader` throws at once.
      const loading = load(token, key, loader).finally(() => { inFlight.delete(key) })
      inFlight.set(key, loading)
      return await loading
    },
    size: successes.size,
    clear () {
      successes.clear()
      rejections.clear()
    }
  }
}

/**
 * Milliseconds until the token's `exp`, read WITHOUT verification, or Infinity when the
 * token is not a JWT or has no numeric `exp`. Only ever used to SHORTEN a cache entry's
 * life (the review already vouched for the token), so a forged `exp` cannot extend it.
 */
export function msUntilExpiry (token: string, nowMs: number): number {
  const exp = decodeSegment(token, 1)?.exp
  return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 - nowMs : Infinity
}
