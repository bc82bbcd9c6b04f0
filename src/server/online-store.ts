/**
 * The reference server's online store: the latest row per entity key per feature view, in
 * memory. Filled from the registry's sample rows at startup and by writes (push,
 * write-to-online-store) while the server runs.
 */
import { EVENT_TIMESTAMP } from './catalog-yaml.ts'
import type { FeatureCatalog, FeatureViewDef, SampleRow } from './catalog.ts'
import { utcInstant } from './utc-instant.ts'
import { exactJson } from './exact-json.ts'
import { isUnsafeInteger } from './exact-integers.ts'

/** A row as the online store keeps it. */
export interface StoredRow {
  readonly values: Readonly<Record<string, unknown>>
  /** ISO 8601; the Unix epoch when the row carried none. */
  readonly eventTimestamp: string
}

/** The reference server's in-memory online store (one table per feature view). */
export interface OnlineStore {
  /**
   * Writes rows (join keys + features) into a view; a newer or equal event time replaces the
   * stored row. Rows without `event_timestamp` take `defaultTime` (default: now).
   */
  write (view: FeatureViewDef, rows: readonly SampleRow[], defaultTime?: string): number
  /**
   * The stored row for the join key values, given in the view's entity order. An integer beyond
   * ±(2^53 − 1) is a BigInt (a double that large may stand for several integers).
   */
  read (view: FeatureViewDef, key: readonly unknown[]): StoredRow | undefined
}

/** Feast reports entity columns and missing values with this timestamp. */
export const EPOCH = '1970-01-01T00:00:00Z'

/** An online store holding the catalog's sample rows. */
export function createOnlineStore (registry: FeatureCatalog): OnlineStore {
  const tables = new Map<string, Map<string, StoredRow>>()
  const store: OnlineStore = {
    write (view, rows, defaultTime = isoSeconds(new Date())) {
      let table = tables.get(view.name)
      if (table === undefined) { table = new Map(); tables.set(view.name, table) }
      for (const row of rows) {
        const key = entityKey(view.entities.map((entity) => row[entity]))
        const time = row[EVENT_TIMESTAMP]
        const eventTimestamp = typeof time === 'string' ? isoSeconds(new Date(utcInstant(time))) : defaultTime
        const previous = table.get(key)
        if (previous !== undefined && Date.parse(previous.eventTimestamp) > Date.parse(eventTimestamp)) continue
        // Defined, not assigned: a feature called `__proto__` would otherwise replace the prototype and be lost.
        const values = Object.fromEntries(view.features.filter((feature) => Object.hasOwn(row, feature)).map((feature) => [feature, row[feature]]))
        table.set(key, { values: { ...previous?.values, ...values }, eventTimestamp })
      }
      return rows.length
    },
    read (view, key) {
      return tables.get(view.name)?.get(entityKey(key))
    }
  }
  for (const view of registry.featureViews()) store.write(view, registry.sampleRows(view.name), EPOCH)
  return store
}

function isoSeconds (date: Date): string {
  return date.toISOString().replace('.000Z', 'Z')
}

// JSON keeps 1001 and "1001" apart, as Feast's typed entity keys do. An integer is keyed by its
// exact value, however it is held: a BigInt read exactly from a body, or a double (a sample row,
// a number written 1e18), as Feast's int64 keys take a float with int().
function entityKey (values: readonly unknown[]): string {
  return exactJson(values.map((value) => isUnsafeInteger(value) ? BigInt(value) : value))
}
