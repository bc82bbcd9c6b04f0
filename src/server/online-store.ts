/**
 * The reference server's online store: the latest row per entity key per feature view, in
 * memory. Filled from the registry's sample rows at startup and by writes (push,
 * write-to-online-store) while the server runs, up to a bound on its size.
 */
import { OptionError } from '../registry/index.ts'
import { EVENT_TIMESTAMP } from './catalog-yaml.ts'
import type { FeatureCatalog, FeatureViewDef, SampleRow } from './catalog.ts'
import { utcInstant } from './utc-instant.ts'
import { exactJson } from './exact-json.ts'
import { isUnsafeInteger } from './exact-integers.ts'
import { insufficientStorage } from './http-error.ts'
import { boundOption } from './limit-option.ts'

/** A row as the online store keeps it. */
export interface StoredRow {
  readonly values: Readonly<Record<string, unknown>>
  /** ISO 8601; the Unix epoch when the row carried none. */
  readonly eventTimestamp: string
}

/** Rows for one feature view, as `OnlineStore.writeAll` takes them. */
export interface ViewRows {
  readonly view: FeatureViewDef
  readonly rows: readonly SampleRow[]
}

/** The reference server's in-memory online store (one table per feature view). */
export interface OnlineStore {
  /**
   * Writes rows (join keys + features) into a view; a newer or equal event time replaces the
   * stored row. Rows without `event_timestamp` take `defaultTime` (default: now). Answers the
   * number of rows given. A write that would take the store over its `maxBytes` stores nothing
   * and throws an error with `statusCode` 507.
   */
  write (view: FeatureViewDef, rows: readonly SampleRow[], defaultTime?: string): number
  /** Writes rows into several views, as `write` does, all or none: as a push writes each view its source feeds. */
  writeAll (batches: readonly ViewRows[], defaultTime?: string): void
  /**
   * The stored row for the join key values, given in the view's entity order. An integer beyond
   * ±(2^53 − 1) is a BigInt (a double that large may stand for several integers).
   */
  read (view: FeatureViewDef, key: readonly unknown[]): StoredRow | undefined
}

/** Options of `createOnlineStore`. */
export interface OnlineStoreOptions {
  /**
   * The most the store may hold, in bytes as it counts them: each row its entity key and feature
   * values written as JSON, plus 300 for the row and 24 for each value, near what Node takes to hold
   * them. A positive integer; default 64 MiB (67,108,864): about 100,000 rows of 10 numeric
   * features, where a demo or a test store holds thousands. The reference server keeps one store
   * per project, each with its `onlineStoreMaxBytes`. The catalog's sample rows must fit: else
   * `createOnlineStore` throws an `OptionError` naming `maxBytes`, with what they take.
   */
  readonly maxBytes?: number
}

/** What the catalog's sample rows would take the store to, beyond its bound. */
export interface SampleRowsFacts {
  readonly project: string
  readonly bytes: number
  readonly maxBytes: number
}

/**
 * The catalog's sample rows do not fit the store's bound: an error at startup, in the words of
 * whoever set the bound (`owner`'s `option`). (A store the reference server fills for another
 * project on its first request answers that project's requests with a 507 saying the same.)
 */
export class SampleRowsOverBound extends OptionError {
  readonly facts: SampleRowsFacts

  constructor (owner: string, option: string, facts: SampleRowsFacts) {
    super(`${owner}: ${sampleRowsOverBound(facts, option)}`, { option })
    this.facts = facts
  }
}

/** Why the sample rows do not fit and what to do, naming `option` as the way to raise the bound. */
export function sampleRowsOverBound ({ project, bytes, maxBytes }: SampleRowsFacts, option: string): string {
  return `the registry's sample rows of project ${JSON.stringify(project)} take ${count(bytes)} bytes in the online store, over its bound of ${count(maxBytes)} ` +
    `(${option}; ${HOW_ROWS_COUNT}): raise ${option}, or give fewer sample rows`
}

/** Feast reports entity columns and missing values with this timestamp. */
export const EPOCH = '1970-01-01T00:00:00Z'

// Memory is what runs out, so the bound is on (an estimate of) bytes: a bound on rows or values
// would not bound it, as one value (a string, a list) may take a whole 1 MiB body, and overwriting
// a stored key's values with larger ones grows the store as surely as a new key does.
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024
// What holding a row and each of its values costs beyond their text, measured on Node 20 (the
// objects, map entries and strings): 100,000 rows of 1, 10 or 50 numeric features take 335, 649 and
// 2,024 bytes each, counted 340, 680 and 2,200. Text held otherwise may take more than it counts
// (a list of small integers, 8 bytes an item for 2 characters; a string beyond Latin-1, 2 bytes a
// character): at worst about four times the bound.
const ROW_BYTES = 300
const VALUE_BYTES = 24
// A write is refused at request time, where the message reaches whoever runs the server.
const BOUND_NAMES = 'createOnlineStore\'s maxBytes, the reference server\'s onlineStoreMaxBytes or feast-authz serve --online-store-max-bytes'
const HOW_ROWS_COUNT = `a row counts its key and values as JSON, plus ${ROW_BYTES} for the row and ${VALUE_BYTES} for each value`

/** A stored row and what it counts for; each value's count is kept so that replacing it never writes the old value again. */
interface Entry {
  readonly row: StoredRow
  readonly valueBytes: ReadonlyMap<string, number>
  readonly bytes: number
}

/** An online store holding the catalog's sample rows. */
export function createOnlineStore (registry: FeatureCatalog, options: OnlineStoreOptions = {}): OnlineStore {
  const maxBytes = boundOption(options, { owner: 'createOnlineStore', option: 'maxBytes', unit: 'bytes', fallback: DEFAULT_MAX_BYTES })
  const tables = new Map<string, Map<string, Entry>>()
  let bytes = 0
  // `refuse` says why a write that does not fit is refused: a request's 507, or a startup error.
  const writeAll = (batches: readonly ViewRows[], defaultTime: string, refuse: (total: number) => Error): void => {
    // Every row is staged first, and stored only once the whole write is known to fit: a write
    // refused halfway would leave some views (or some rows) written and the caller told none were.
    const staged = new Map<string, Map<string, Entry>>()
    let growth = 0
    for (const { view, rows } of batches) {
      let table = staged.get(view.name)
      if (table === undefined) { table = new Map(); staged.set(view.name, table) }
      const stored = tables.get(view.name)
      for (const row of rows) {
        const key = entityKey(view.entities.map((entity) => row[entity]))
        const time = row[EVENT_TIMESTAMP]
        const eventTimestamp = typeof time === 'string' ? isoSeconds(new Date(utcInstant(time))) : defaultTime
        const previous = table.get(key) ?? stored?.get(key)
        if (previous !== undefined && Date.parse(previous.row.eventTimestamp) > Date.parse(eventTimestamp)) continue
        const entry = merged(previous, key, view.features.filter((feature) => Object.hasOwn(row, feature)), row, eventTimestamp)
        growth += entry.bytes - (previous?.bytes ?? 0)
        table.set(key, entry)
      }
    }
    if (growth > 0 && bytes + growth > maxBytes) throw refuse(bytes + growth)
    for (const [name, table] of staged) {
      let stored = tables.get(name)
      if (stored === undefined) { stored = new Map(); tables.set(name, stored) }
      for (const [key, entry] of table) stored.set(key, entry)
    }
    bytes += growth
  }
  const full = (total: number): Error => insufficientStorage(`the online store is full: this write would take it to ${count(total)} bytes, over its bound of ${count(maxBytes)} ` +
    `(${BOUND_NAMES}; ${HOW_ROWS_COUNT}); nothing was written. ` +
    'Rows already stored can still be overwritten with values no larger; to store more, restart the server (the store is in memory) or raise the bound')
  const store: OnlineStore = {
    write (view, rows, defaultTime) {
      store.writeAll([{ view, rows }], defaultTime)
      return rows.length
    },
    writeAll (batches, defaultTime = isoSeconds(new Date())) {
      writeAll(batches, defaultTime, full)
    },
    read (view, key) {
      return tables.get(view.name)?.get(entityKey(key))?.row
    }
  }
  // In one write, so that the error gives what all of them take.
  const samples = registry.featureViews().map((view) => ({ view, rows: registry.sampleRows(view.name) }))
  writeAll(samples, EPOCH, (total) => new SampleRowsOverBound('createOnlineStore', 'maxBytes', { project: registry.project, bytes: total, maxBytes }))
  return store
}

// The row a write leaves: the stored values, with those the write carries replaced.
function merged (previous: Entry | undefined, key: string, features: readonly string[], row: SampleRow, eventTimestamp: string): Entry {
  const valueBytes = new Map(previous?.valueBytes)
  // Defined, not assigned: a feature called `__proto__` would otherwise replace the prototype and be lost.
  const values = Object.fromEntries(features.map((feature) => [feature, row[feature]]))
  for (const feature of features) valueBytes.set(feature, VALUE_BYTES + JSON.stringify(feature).length + 1 + exactJson(row[feature] ?? null).length)
  let bytes = ROW_BYTES + key.length
  for (const each of valueBytes.values()) bytes += each
  return { row: { values: { ...previous?.row.values, ...values }, eventTimestamp }, valueBytes, bytes }
}

function count (bytes: number): string {
  return bytes.toLocaleString('en-US')
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
