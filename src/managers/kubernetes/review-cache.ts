import { createHmac, randomBytes } from 'node:crypto'
import { AuthError } from '../errors.ts'

export interface ReviewCacheOptions {
  /** How long a successful review is reused, at most (the token's `exp` may shorten it). */
  readonly ttlMs: number
  /** How long a rejection (401) is remembered. 503s are never cached. */
  readonly failureTtlMs: number
  /** Entries kept; the least recently used goes first. */
  readonly maxEntries: number
  readonly now?: () => number
}

export interface ReviewCache<T> {
  /**
   * The cached result for `token`, or `load(token)`'s, shared by every concurrent caller
   * of the same token (one review in flight per token).
   */
  get (token: string, load: (token: string) => Promise<T>): Promise<T>
  readonly size: () => number
  clear (): void
}

type Entry<T> = { readonly expiresAt: number, readonly value: T } | { readonly expiresAt: number, readonly error: AuthError }

/**
 * A bounded LRU of review results keyed by HMAC-SHA256 of the token under a random
 * per-process key: raw tokens are never map keys (nor in heap dumps of the map), and keys
 * cannot be precomputed to collide. Expiry is checked on read, so no timer runs.
 */
export function createReviewCache<T> (options: ReviewCacheOptions): ReviewCache<T> {
  const now = options.now ?? Date.now
  const hmacKey = randomBytes(32)
  const entries = new Map<string, Entry<T>>()
  const inFlight = new Map<string, Promise<T>>()

  const keyOf = (token: string): string => createHmac('sha256', hmacKey).update(token).digest('base64url')

  const remember = (key: string, entry: Entry<T>): void => {
    entries.delete(key)
    entries.set(key, entry)
    while (entries.size > options.maxEntries) {
      const oldest = entries.keys().next().value
      if (oldest === undefined) break
      entries.delete(oldest)
    }
  }

  return {
    async get (token, load) {
      const key = keyOf(token)
      const entry = entries.get(key)
      if (entry !== undefined) {
        if (entry.expiresAt > now()) {
          entries.delete(key)
          entries.set(key, entry)
          if ('error' in entry) throw entry.error
          return entry.value
        }
        entries.delete(key)
      }
      const pending = inFlight.get(key)
      if (pending !== undefined) return await pending
      const loading = (async () => {
        try {
          const value = await load(token)
          const ttl = Math.min(options.ttlMs, msUntilExpiry(token, now()))
          if (ttl > 0) remember(key, { expiresAt: now() + ttl, value })
          return value
        } catch (error) {
          if (error instanceof AuthError && error.status === 401) remember(key, { expiresAt: now() + options.failureTtlMs, error })
          throw error
        } finally {
          inFlight.delete(key)
        }
      })()
      inFlight.set(key, loading)
      return await loading
    },
    size: () => entries.size,
    clear () { entries.clear() }
  }
}

/**
 * Milliseconds until the token's `exp`, read WITHOUT verification, or Infinity when the
 * token is not a JWT or has no numeric `exp`. Only ever used to SHORTEN a cache entry's
 * life (the review already vouched for the token), so a forged `exp` cannot extend it.
 */
export function msUntilExpiry (token: string, nowMs: number): number {
  const parts = token.split('.')
  if (parts.length !== 3) return Infinity
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'))
    const exp = typeof payload === 'object' && payload !== null ? (payload as { exp?: unknown }).exp : undefined
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 - nowMs : Infinity
  } catch {
    return Infinity
  }
}
