/**
 * The `entities` columns of a get-online-features body, sorted as Feast's
 * `utils._prepare_entities_to_read_from_online_store` sorts them (Feast >= 0.41), in this order:
 * request data of the on-demand views computed for the read (used, not answered); a join key of
 * any entity of the project, or a column a feature service reads a join key from (answered under
 * its name); an entity's name (answered under its join key: Feast's deprecated spelling); anything
 * else, which Feast skips without a word. Then each view read takes its join keys from the join
 * key columns, through its projection's `join_key_map` (`utils._get_table_entity_values`).
 */
import { entityColumnsOf, type EntityColumns, type FeatureCatalog, type FeatureViewDef } from './catalog.ts'

/**
 * Feast's join key for a view without entities (`DUMMY_ENTITY_ID`). Feast fills it in itself (with
 * an empty string) when a caller does not send it, and never requires it.
 */
export const DUMMY_JOIN_KEY = '__dummy_id'
/** The value Feast reads a view without entities with (`DUMMY_ENTITY_VAL`). */
export const DUMMY_KEY_VALUE = ''

// Catalogs without `entityColumns`: derived once per array their `featureViews()` returns.
const derived = new WeakMap<readonly FeatureViewDef[], EntityColumns>()

/** The entity columns of `catalog`'s registry version in force. */
export function entityColumns (catalog: FeatureCatalog): EntityColumns {
  if (catalog.entityColumns !== undefined) return catalog.entityColumns()
  const views = catalog.featureViews()
  let found = derived.get(views)
  if (found === undefined) {
    found = entityColumnsOf(views)
    derived.set(views, found)
  }
  return found
}

/** The columns of a body's `entities`, sorted. */
export interface SortedEntityColumns<T> {
  /**
   * Join key column → its values, in the order the body first names each join key (an entity name
   * stands for its join key there; a renamed join key is under its column's name); given twice (by
   * name and by join key), the later column's values count.
   */
  readonly keys: ReadonlyMap<string, readonly T[]>
  /** The request data columns the body sends. */
  readonly requestData: ReadonlySet<string>
  /** The columns that are none of these, in body order: not read, not answered. */
  readonly ignored: readonly string[]
}

/**
 * Sorts `entities` (the body's columns, in the order it sent them) by `columns` (the project's), `requestData` (the fields the on-demand views
 * computed for this read need) and `renamed` (the columns a feature service's `join_key_map` reads
 * join keys from, which Feast counts among the join keys). Refuses nothing: what is missing is
 * judged by the caller.
 */
export function sortEntityColumns<T> (
  entities: Iterable<readonly [string, readonly T[]]>,
  columns: EntityColumns,
  requestData: ReadonlySet<string>,
  renamed: ReadonlySet<string> = new Set()
): SortedEntityColumns<T> {
  const keys = new Map<string, readonly T[]>()
  const sent = new Set<string>()
  const ignored: string[] = []
  for (const [column, values] of entities) {
    if (requestData.has(column)) { sent.add(column); continue }
    const joinKey = columns.joinKeys.has(column) || renamed.has(column) ? column : columns.entityNames.get(column)
    if (joinKey === undefined) ignored.push(column)
    // As a Python dict: a key set again keeps its place and takes the new values.
    else keys.set(joinKey, values)
  }
  return { keys, requestData: sent, ignored }
}

/**
 * The values of `view`'s join keys, from the sorted join key columns: a column renamed by
 * `joinKeyMap` (join key → column, a feature service projection's) supplies its join key, and any
 * other column supplies the join key of its own name, as Feast's `_get_table_entity_values` reads
 * them. So a renamed join key can also be sent under its own name; sent both ways, the later
 * column counts. Join keys no column supplies are left out (judged by the caller).
 */
export function tableKeys<T> (
  joinKeys: readonly string[],
  joinKeyMap: Readonly<Record<string, string>> | undefined,
  keys: ReadonlyMap<string, readonly T[]>
): Map<string, readonly T[]> {
  // As Feast's inverted dict: two join keys renamed to one column, the later one has it.
  const renamedFrom = new Map(Object.entries(joinKeyMap ?? {}).map(([key, column]) => [column, key]))
  const found = new Map<string, readonly T[]>()
  for (const [column, values] of keys) {
    const key = renamedFrom.get(column) ?? column
    if (joinKeys.includes(key)) found.set(key, values)
  }
  return found
}
