/** A bounded map that forgets its least recently used entry first. */
export interface BoundedLru<K, V> {
  /** The value under `key`, marked most recently used. */
  get (key: K): V | undefined
  /** Stores `value` as the most recently used entry, dropping the oldest beyond `maxEntries`. */
  set (key: K, value: V): void
  delete (key: K): void
  clear (): void
  readonly size: () => number
}

/**
 * A {@link BoundedLru} over one `Map`: iteration order is insertion order, so re-inserting a
 * key marks it most recently used and the first key is always the oldest. No timer, no
 * per-entry allocation beyond the map's own. `maxEntries <= 0` keeps nothing.
 */
export function createLru<K, V> (maxEntries: number): BoundedLru<K, V> {
  const entries = new Map<K, V>()
  // The key touched last: a hit on it (the steady state of one repeated token) needs no
  // delete + re-insert, which would churn the map's backing store on every request.
  let newest: K | undefined
  let hasNewest = false
  return {
    get (key) {
      const value = entries.get(key)
      if (value !== undefined && !(hasNewest && newest === key)) {
        entries.delete(key)
        entries.set(key, value)
        newest = key
        hasNewest = true
      }
      return value
    },
    set (key, value) {
      if (maxEntries <= 0) return
      entries.delete(key)
      entries.set(key, value)
      newest = key
      hasNewest = true
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as K)
    },
    delete (key) {
      entries.delete(key)
      if (hasNewest && newest === key) { newest = undefined; hasNewest = false }
    },
    clear () {
      entries.clear()
      newest = undefined
      hasNewest = false
    },
    size: () => entries.size
  }
}
