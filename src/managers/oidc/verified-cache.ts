import { hash } from 'node:crypto'
import type { Principal } from '../../base/principal.ts'
import { createLru } from '../../base/lru.ts'
import type { PreparedKey } from './fast-verify.ts'

/** What a verified token resolved to, and what bounds how long that stays true. */
export interface VerifiedEntry {
  readonly principal: Principal
  /** Epoch milliseconds of the token's `exp`. */
  readonly expiresAt: number
  /** The key that verified it: the entry dies with that key. */
  readonly key: PreparedKey
}

/**
 * A bounded LRU of verified tokens. Keys are SHA-256 of the whole token, never a
 * prefix or a decoded field, so two tokens can only share an entry by colliding
 * SHA-256. The caller checks `expiresAt` and that `key` is still in the current set.
 */
export function createVerifiedCache (maxEntries: number): {
  keyOf: (token: string) => string
  get: (key: string) => VerifiedEntry | undefined
  set: (key: string, entry: VerifiedEntry) => void
  delete: (key: string) => void
  readonly size: () => number
} {
  const entries = createLru<string, VerifiedEntry>(maxEntries)
  // The adapters ask authenticateCached, then authenticate, for the same token in one tick:
  // remembering the last hash saves the second one on every cache miss.
  let lastToken: string | undefined
  let lastKey = ''
  return {
    keyOf: (token) => {
      if (token !== lastToken) {
        lastKey = hash('sha256', token, 'base64')
        lastToken = token
      }
      return lastKey
    },
    get: entries.get,
    set: entries.set,
    delete: entries.delete,
    size: entries.size
  }
}
