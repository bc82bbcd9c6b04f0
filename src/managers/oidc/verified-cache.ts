import { hash } from 'node:crypto'
import type { Principal } from '../../principal.ts'
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
  const entries = new Map<string, VerifiedEntry>()
  return {
    keyOf: (token) => hash('sha256', token, 'base64'),
    get (key) {
      const entry = entries.get(key)
      if (entry !== undefined) {
        // Map iteration order is insertion order: re-inserting marks it most recently used.
        entries.delete(key)
        entries.set(key, entry)
      }
      return entry
    },
    set (key, entry) {
      if (maxEntries <= 0) return
      entries.delete(key)
      entries.set(key, entry)
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string)
    },
    delete: (key) => { entries.delete(key) },
    size: () => entries.size
  }
}
