import type { Principal } from '../../base/principal.ts'
import { createLru } from '../../base/lru.ts'
import { createTokenDigest } from '../../base/token-digest.ts'
import type { PreparedKey } from './fast-verify.ts'

/** What a verified token resolved to, and what bounds how long that stays true. */
export interface VerifiedEntry {
  readonly principal: Principal
  /** Epoch milliseconds of the token's `exp`. */
  readonly expiresAt: number
  /** The key that verified it: the entry dies with that key. */
  readonly key: PreparedKey
}

/** The verified-token cache of one OIDC manager. */
export interface VerifiedCache {
  /**
   * Whether `token` was verified recently (within about `maxEntries` distinct tokens): only
   * then can it be in the cache, and is it worth hashing to look it up.
   */
  seen (token: string): boolean
  /** Notes that `token` was verified: its next use will look in the cache, and store its verdict. */
  mark (token: string): void
  /** SHA-256 of the whole token: the cache key. */
  keyOf (token: string): string
  get (key: string): VerifiedEntry | undefined
  set (key: string, entry: VerifiedEntry): void
  delete (key: string): void
  readonly size: () => number
}

/** Bits of the "seen recently" filter: 32 KiB, about 4% false "seen" at 10,000 marks. */
const SEEN_BITS = 1 << 18
/** Characters of a token's end that choose its bit (see slotOf). */
const SLOT_CHARACTERS = 8

/**
 * A bounded LRU of verified tokens. Keys are SHA-256 of the whole token, never a prefix or a
 * decoded field, so two tokens can only share an entry by colliding SHA-256. The caller checks
 * `expiresAt` and that `key` is still in the current set.
 *
 * Insert policy: a token is hashed, looked up and stored only from its second use within the
 * window of the last `maxEntries` distinct verified tokens (a "doorkeeper" bit filter, marked on
 * a successful verification and cleared when that many tokens have been marked; refused tokens
 * never mark it). A token used once, or again only after the cache would have
 * evicted it anyway, costs neither a SHA-256 nor an LRU insert; a token in real use pays one
 * extra signature check, on its second request. The filter only decides whether to look: a
 * false "seen" costs a hash, never a verdict.
 */
export function createVerifiedCache (maxEntries: number): VerifiedCache {
  const entries = createLru<string, VerifiedEntry>(maxEntries)
  const bits = new Uint32Array(SEEN_BITS >>> 5)
  const window = Math.max(1024, maxEntries)
  let marked = 0
  return {
    seen (token) {
      if (maxEntries <= 0) return false
      const slot = slotOf(token)
      return (bits[slot >>> 5]! & (1 << (slot & 31))) !== 0
    },
    mark (token) {
      if (maxEntries <= 0) return
      const slot = slotOf(token)
      const word = slot >>> 5
      const bit = 1 << (slot & 31)
      if ((bits[word]! & bit) !== 0) return
      if (++marked > window) {
        bits.fill(0)
        marked = 1
      }
      bits[word] = bits[word]! | bit
    },
    keyOf: createTokenDigest(),
    get: entries.get,
    set: entries.set,
    delete: entries.delete,
    size: entries.size
  }
}

/**
 * FNV-1a over the last 8 characters (for a JWS, the end of its signature: over 40 random bits,
 * as good as random between distinct tokens, and far more than the filter's 18). Few characters
 * because this runs up to three times per request and `charCodeAt` on a sliced string is not
 * cheap: 32 characters cost 0.17 µs a call. Not a security boundary: a collision only costs a
 * SHA-256.
 */
function slotOf (token: string): number {
  let h = 0x811c9dc5
  for (let i = Math.max(0, token.length - SLOT_CHARACTERS); i < token.length; i++) {
    h = Math.imul(h ^ token.charCodeAt(i), 0x01000193)
  }
  return (h >>> 0) & (SEEN_BITS - 1)
}
