/**
 * `POST /get-online-features`, framework-neutral, in the order that reveals nothing to a caller
 * who may not read: (1) {@link readTarget} checks the body's JSON types and finds the resources
 * it names (what the permission check needs, and nothing else); (2) the caller's server decides;
 * (3) {@link readFeatures} validates the body against those resources (disabled views, entities
 * the registry lacks, feature names, request data, join keys) and reads. A denied caller so never
 * sees a join key, an entity or a feature list in an error. The Fastify reference server and the
 * Express example of docs/reference-server.md both run these two steps.
 */
import type { Resource } from '../permissions/index.ts'
import { notFound, unprocessable } from './http-error.ts'
import { FEAST_BOOLEAN_VALUES, feastBoolean } from './feast-boolean.ts'
import { EPOCH, type OnlineStore } from './online-store.ts'
import { serviceResource, viewResource, type EntityColumns, type FeatureCatalog, type FeatureRef, type FeatureServiceDef, type FeatureViewDef } from './catalog.ts'
import { DUMMY_JOIN_KEY, DUMMY_KEY_VALUE, entityColumns, sortEntityColumns, tableKeys, type SortedEntityColumns } from './entity-columns.ts'
import { isIntegerLikeKey, keysAsWritten } from './json-key-order.ts'
import { readExactly } from './exact-integers.ts'
import { ENTITY_KEY_TYPES, entityKeyFault } from './entity-key.ts'
import { jsonType } from './value-text.ts'
import { boundOption } from './limit-option.ts'

/**
 * An entity value: Feast's entity keys are scalars. An integer beyond ±(2^53 − 1) is a BigInt,
 * read exactly from the body's text (exact-integers.ts); it must fit int64.
 */
export type EntityValue = string | number | bigint | boolean | null

/** A get-online-features body whose JSON types have been checked. */
export interface GetOnlineFeaturesBody {
  readonly features?: readonly string[]
  readonly feature_service?: string
  /**
   * Join key columns, `{ driver_id: [1001, 1002] }` (an entity's name may stand for its join key),
   * and the request data of on-demand views; other columns are not read (see entity-columns.ts).
   */
  readonly entities: Readonly<Record<string, readonly EntityValue[]>>
  readonly full_feature_names?: boolean
}

/**
 * What a get-online-features request names, found before any permission is looked at: the
 * `resources` to check READ_ONLINE on, and what the read needs afterwards. Keep it for the
 * request: the check and the read must see the same registry snapshot.
 */
export interface ReadTarget {
  /**
   * With `feature_service`: the service only (as Feast). With `features`: every feature view
   * read and every feature view an on-demand view reads from, then the on-demand views.
   */
  readonly resources: readonly Resource[]
  /** @internal The checked body. */
  readonly body: GetOnlineFeaturesBody
  /** @internal The service named, if any. */
  readonly service: FeatureServiceDef | undefined
  /** @internal The views the features come from, by name, as found before the check. */
  readonly views: ReadonlyMap<string, FeatureViewDef | undefined>
  /** @internal The feature views the on-demand views among them read, by name, found alike. */
  readonly sources: ReadonlyMap<string, FeatureViewDef | undefined>
  /**
   * @internal The requested features, in request order; a feature service's with the alias its
   * projection shows the view under (what full feature names start with) and its `join_key_map`.
   */
  readonly refs: readonly FeatureRef[]
  /** @internal What the `entities` columns may name in the project, from the same registry version. */
  readonly columns: EntityColumns
  /** @internal The `entities` columns in the order the body wrote them (see {@link readTarget}). */
  readonly sent: readonly EntityColumn[]
}

/** One `entities` column: its name and its values. */
type EntityColumn = readonly [string, readonly EntityValue[]]

/** Feast's get-online-features answer: one column per join key sent, then one per feature. */
export interface OnlineFeaturesResponse {
  readonly metadata: { readonly feature_names: readonly string[] }
  readonly results: ReadonlyArray<{ readonly values: readonly unknown[], readonly statuses: readonly string[], readonly event_timestamps: readonly string[] }>
}

/**
 * Step 1, before the permission check: the body's JSON types (422), the feature service or the
 * feature views it names (404 for a name the registry does not have, as Feast answers, before any
 * permission), and the resources to check. Nothing here depends on what those resources hold.
 *
 * `text`, the JSON text `input` was parsed from, keeps the order of the `entities` columns, which
 * the answer repeats as Feast does: a parsed object puts the columns whose names look like
 * integers (`"7"`) first. Without it they come in the parsed object's order. It also holds the
 * entity values beyond ±(2^53 − 1) exactly, which a parsed object may have rounded: without it,
 * such a value is a 422 (give it as a BigInt instead).
 */
export function readTarget (registry: FeatureCatalog, input: unknown, text?: string): ReadTarget {
  const body = checkReadBody(input, text)
  const sent = columnsAsWritten(body.entities, text)
  const views = new Map<string, FeatureViewDef | undefined>()
  const sources = new Map<string, FeatureViewDef | undefined>()
  const lookUpSources = (view: FeatureViewDef): void => {
    for (const source of view.sources ?? []) if (!sources.has(source)) sources.set(source, registry.featureView(source))
  }
  if (body.feature_service !== undefined) {
    const service = registry.featureService(body.feature_service)
    if (service === undefined) throw notFound(`feature service ${JSON.stringify(body.feature_service)} is not in the registry`)
    // Looked up now (one snapshot), judged after the check: the service is all the caller may learn about.
    for (const { view: name } of service.features) {
      if (views.has(name)) continue
      const view = registry.featureView(name)
      views.set(name, view)
      if (view !== undefined) lookUpSources(view)
    }
    const resources = [serviceResource(service, registry.project)]
    return { resources, body, service, views, sources, refs: service.features, columns: entityColumns(registry), sent }
  }
  const refs = (body.features ?? []).map(parseFeatureRef)
  // Feast's order (utils._get_feature_views_to_use): feature views, each on-demand view's sources
  // merged in where first met, then the on-demand views.
  const read: FeatureViewDef[] = []
  const onDemand: FeatureViewDef[] = []
  const add = (view: FeatureViewDef): void => { if (!read.includes(view)) read.push(view) }
  for (const { view: name } of refs) {
    if (views.has(name)) continue
    const view = registry.featureView(name)
    if (view === undefined) throw notFound(`feature view ${JSON.stringify(name)} is not in the registry`)
    views.set(name, view)
    if (view.kind !== 'OnDemandFeatureView') { add(view); continue }
    onDemand.push(view)
    lookUpSources(view)
    for (const source of view.sources ?? []) {
      const found = sources.get(source)
      // Not named: the caller has not been checked on anything yet.
      if (found === undefined) throw notFound(`on-demand feature view ${JSON.stringify(view.name)} reads a feature view that is not in the registry`)
      add(found)
    }
  }
  const resources = [...read, ...onDemand].map((view) => viewResource(view, registry.project))
  return { resources, body, service: undefined, views, sources, refs, columns: entityColumns(registry), sent }
}

/**
 * The `entities` columns in the order `text` writes them, when the parsed object may have lost it
 * (it has integer-like names) and `text` has exactly its columns; in the object's order otherwise.
 */
function columnsAsWritten (entities: GetOnlineFeaturesBody['entities'], text: string | undefined): EntityColumn[] {
  let names = Object.keys(entities)
  if (text !== undefined && names.some(isIntegerLikeKey)) {
    const written = keysAsWritten(text, 'entities')
    if (written !== undefined && written.length === names.length && written.every((name) => Object.hasOwn(entities, name))) names = written
  }
  return names.map((name) => [name, entities[name] as readonly EntityValue[]])
}

/**
 * A feature reference as Feast reads one (`utils._parse_feature_ref`): `view:feature`, where
 * `view@latest` and `view@` name the view itself and any other `@` suffix but a version is part of
 * the view's name. A version (`view@v2`) needs Feast's online versioning, off by default (Feast
 * then answers 500); the reference server keeps no versions, so it is a 422.
 */
function parseFeatureRef (ref: string): FeatureRef {
  const colon = ref.indexOf(':')
  const feature = colon < 0 ? '' : ref.slice(colon + 1)
  let view = colon < 0 ? ref : ref.slice(0, colon)
  const at = view.indexOf('@')
  if (at >= 0) {
    const suffix = view.slice(at + 1)
    if (suffix === '' || suffix.toLowerCase() === 'latest') view = view.slice(0, at)
    else if (/^[vV]\d+$/.test(suffix)) throw unprocessable(`feature reference ${JSON.stringify(ref)} names version ${suffix} of a feature view: the reference server keeps no feature view versions (Feast's registry.enable_online_feature_view_versioning)`)
  }
  if (feature === '' || view === '') throw unprocessable(`feature reference ${JSON.stringify(ref)} must be written "view:feature"`)
  return { view, feature }
}

/**
 * Step 3, after the permission check: validates the request against what it reads (disabled
 * views, entities the registry lacks, features, request data, join keys, equal column lengths) and
 * reads the values from `store`. The answer is Feast's: the join keys sent (an entity name answered
 * under its join key), then the features grouped by view; request data and other columns are not
 * answered.
 */
export function readFeatures (target: ReadTarget, store: OnlineStore, options: ReadOptions = {}): OnlineFeaturesResponse {
  const maxValues = boundOption(options, { owner: 'readFeatures', option: 'maxAnsweredValues', unit: 'values', fallback: DEFAULT_MAX_ANSWERED_VALUES })
  const { body } = target
  const features = target.refs.map(({ view: name, feature, alias, joinKeyMap }): ReadFeature => {
    const view = target.views.get(name)
    if (view === undefined) throw notFound(`feature view ${JSON.stringify(name)} is not in the registry`)
    return { view, feature, shownAs: alias ?? view.name, joinKeyMap }
  })
  const rowCount = columnLength(target.sent, 'entities')
  const read = [...new Set(features.map((item) => item.view))]
  for (const view of read) {
    if (view.disabled === true) throw unprocessable(`feature view ${JSON.stringify(view.name)} is disabled and serves no features`)
    if (view.unservedState !== undefined) throw unprocessable(`feature view ${JSON.stringify(view.name)} is in state ${view.unservedState} and serves no features (only AVAILABLE_ONLINE views serve)`)
  }
  checkEntitiesKnown(read, target.sources)
  checkNoCollision(features, body.full_feature_names === true)
  for (const { view, feature } of features) {
    if (!view.features.includes(feature)) throw notFound(`feature view ${JSON.stringify(view.name)} has no feature ${JSON.stringify(feature)}`)
  }
  // Feast needs request data for the on-demand views it computes at read time only.
  const needed = new Map<string, string>()
  for (const view of read.filter(computedAtRead)) for (const field of view.requestData ?? []) if (!needed.has(field)) needed.set(field, view.name)
  const used = viewsUsed(features, target.sources)
  checkOneViewPerName(features, used)
  const renamed = renamedColumns(used)
  const tables = tablesRead(features, used)
  const columns = sortEntityColumns(target.sent, target.columns, new Set(needed.keys()), renamed)
  checkRequestData(needed, columns)
  const keysByTable = new Map<string, ReadonlyMap<string, readonly EntityValue[]>>()
  for (const table of tables) {
    const keys = tableKeys(table.view.entities, table.joinKeyMap, columns.keys)
    for (const key of table.view.entities) {
      if (key !== DUMMY_JOIN_KEY && !keys.has(key)) throw unprocessable(missingJoinKey(key, table, tables, columns, renamed, target.service))
    }
    keysByTable.set(table.shownAs, keys)
  }
  checkAnswerSize(rowCount, columns.keys.size + features.length, maxValues)
  const rows = Array.from({ length: rowCount }, (_, i) => i)
  const results = [...columns.keys.values()].map((values) => ({
    values: [...values] as unknown[],
    statuses: rows.map(() => 'PRESENT'),
    event_timestamps: rows.map(() => EPOCH)
  }))
  const ordered = feastOrder(features)
  for (const { view, feature, shownAs } of ordered) {
    const keys = keysByTable.get(shownAs)
    const column = { values: [] as unknown[], statuses: [] as string[], event_timestamps: [] as string[] }
    for (const i of rows) {
      // Feast overwrites a sent __dummy_id with its own value before reading (it still answers the column as sent).
      const key = view.entities.map((name) => name === DUMMY_JOIN_KEY ? DUMMY_KEY_VALUE : keys?.get(name)?.[i])
      const stored = store.read(view, key)
      const present = stored !== undefined && Object.hasOwn(stored.values, feature)
      column.values.push(present ? stored.values[feature] : null)
      column.statuses.push(present ? 'PRESENT' : 'NOT_FOUND')
      column.event_timestamps.push(present ? stored.eventTimestamp : EPOCH)
    }
    results.push(column)
  }
  const featureNames = ordered.map(({ feature, shownAs }) => body.full_feature_names === true ? `${shownAs}__${feature}` : feature)
  return { metadata: { feature_names: [...columns.keys.keys(), ...featureNames] }, results }
}

/**
 * Two features the answer would show under one name (Feast's `utils._validate_feature_refs`, run
 * before the features are looked up): the same feature of the same view named twice, or, without
 * full feature names, features of two views sharing a name. Feast raises `FeatureNameCollisionError`,
 * which its server answers with a 500; a request that names a column twice is the caller's
 * mistake, so here it is a 422 naming the duplicates and the fix.
 */
function checkNoCollision (features: readonly ReadFeature[], fullNames: boolean): void {
  const counts = new Map<string, number>()
  const nameOf = ({ shownAs, feature }: ReadFeature): string => fullNames ? `${shownAs}__${feature}` : feature
  for (const item of features) counts.set(nameOf(item), (counts.get(nameOf(item)) ?? 0) + 1)
  const duplicates = [...counts].filter(([, count]) => count > 1).map(([name]) => JSON.stringify(name))
  if (duplicates.length === 0) return
  throw unprocessable(`the answer would hold more than one feature named ${duplicates.join(', ')}: ${fullNames
    ? 'name each feature of a view once, and show a view read twice under another name (a feature service\'s alias)'
    : 'set "full_feature_names": true, or name features whose names differ'}`)
}

/** An on-demand view Feast computes when it is read (one written to the online store is read as stored). */
function computedAtRead (view: FeatureViewDef): boolean {
  return view.kind === 'OnDemandFeatureView' && view.writeToOnlineStore !== true
}

/** The feature views an on-demand view reads (none for another view); 404 for one the registry lost. */
function sourcesOf (view: FeatureViewDef, sources: ReadTarget['sources']): FeatureViewDef[] {
  return (view.sources ?? []).map((name) => {
    const found = sources.get(name)
    if (found === undefined) throw notFound(`on-demand feature view ${JSON.stringify(view.name)} reads feature view ${JSON.stringify(name)}, which is not in the registry`)
    return found
  })
}

/**
 * An entity a view read names that the registry does not have is a 404, Feast's status for it
 * (`EntityNotFoundException`), in Feast's order: the feature views read and every on-demand view's
 * sources (`_get_entity_maps`), then the on-demand views (the entities of each, looked up).
 */
function checkEntitiesKnown (read: readonly FeatureViewDef[], sources: ReadTarget['sources']): void {
  const views: FeatureViewDef[] = []
  const add = (view: FeatureViewDef): void => { if (!views.includes(view)) views.push(view) }
  for (const view of read) {
    if (view.kind === 'OnDemandFeatureView') sourcesOf(view, sources).forEach(add)
    else add(view)
  }
  for (const view of read) if (view.kind === 'OnDemandFeatureView') add(view)
  for (const view of views) {
    const [entity] = view.unknownEntities ?? []
    if (entity !== undefined) throw notFound(`${viewKind(view)} ${JSON.stringify(view.name)} takes entity ${JSON.stringify(entity)}, which is not in the registry`)
  }
}

function viewKind (view: FeatureViewDef): string {
  return view.kind === 'OnDemandFeatureView' ? 'on-demand feature view' : 'feature view'
}

/**
 * A view under the name a projection shows it, with that projection's `join_key_map`: a feature
 * service's projection, an on-demand view's source projection, or the view itself.
 */
interface Projection {
  readonly view: FeatureViewDef
  readonly shownAs: string
  readonly joinKeyMap: Readonly<Record<string, string>> | undefined
  /** For an on-demand view's source projection: that on-demand view (whose map it is). */
  readonly sourceOf?: FeatureViewDef
}

/**
 * The feature views of a read as Feast uses them (`utils._get_feature_views_to_use`), one per name
 * shown, in the order first met: the feature views the features come from, and the sources of
 * every on-demand view read (whether computed at read time or stored), each through the
 * on-demand view's source projection: under its alias when it has one (Feast's
 * `projection.name_to_use()`), so an aliased source is a view of its own beside the same view read
 * under its own name. A projection met under a name already used is merged into the first one,
 * whose `join_key_map` stays (`_append_or_merge_source_fv`). On-demand views are not among them.
 */
function viewsUsed (features: readonly ReadFeature[], sources: ReadTarget['sources']): Map<string, Projection> {
  const used = new Map<string, Projection>()
  const use = (projection: Projection): void => { if (!used.has(projection.shownAs)) used.set(projection.shownAs, projection) }
  for (const { view, shownAs, joinKeyMap } of features) {
    if (view.kind !== 'OnDemandFeatureView') { use({ view, shownAs, joinKeyMap }); continue }
    for (const source of sourcesOf(view, sources)) {
      use({ view: source, shownAs: sourceShownAs(view, source.name), joinKeyMap: ofSource(view.sourceJoinKeyMaps, source.name), sourceOf: view })
    }
  }
  return used
}

/** The name an on-demand view's source is read and shown under: its projection's alias, or its own name. */
function sourceShownAs (view: FeatureViewDef, source: string): string {
  return ofSource(view.sourceAliases, source) ?? source
}

/** What an on-demand view gives one of its sources (an alias, a join_key_map), if anything. */
function ofSource<T> (bySource: Readonly<Record<string, T>> | undefined, source: string): T | undefined {
  return bySource !== undefined && Object.hasOwn(bySource, source) ? bySource[source] : undefined
}

/**
 * Two different views shown under one name (an alias naming another view read too, or two aliases
 * alike) cannot both be read: Feast keys the views of a read by the name shown, merges the second
 * into the first and reads the first one's rows for both (or fails on the second's features, a
 * 500). Here it is a 422 naming both.
 */
function checkOneViewPerName (features: readonly ReadFeature[], used: ReadonlyMap<string, Projection>): void {
  const shown = new Map<string, Projection>()
  for (const projection of [...features, ...used.values()]) {
    const earlier = shown.get(projection.shownAs)
    if (earlier === undefined) { shown.set(projection.shownAs, projection); continue }
    if (earlier.view.name === projection.view.name) continue
    throw unprocessable(`the read would show two views as ${JSON.stringify(projection.shownAs)}: ${shownView(earlier)} and ${shownView(projection)}; ` +
      'Feast would read both as the first one: read them in separate requests, or give one another alias')
  }
}

/** A view as a projection shows it, for an error message. */
function shownView ({ view, shownAs, sourceOf }: Pick<Projection, 'view' | 'shownAs' | 'sourceOf'>): string {
  const named = `${viewKind(view)} ${JSON.stringify(view.name)}`
  if (sourceOf !== undefined) return `${named}, a source of on-demand feature view ${JSON.stringify(sourceOf.name)}${shownAs === view.name ? '' : ' under that alias'}`
  return shownAs === view.name ? named : `${named} under that alias`
}

/**
 * A view read by its own join keys (Feast's "table"), under the name a projection shows it: the
 * views the features come from, and the feature views the on-demand views computed at read time
 * read (Feast reads those, then computes). The reference server serves computed on-demand views
 * from stored rows, so they are read by their own join keys too.
 */
interface Table extends Projection {
  /** For a source view: the on-demand view computed from it. */
  readonly readFor?: FeatureViewDef
}

/**
 * The tables of a read, one per name shown, each with the projection `used` holds under its name,
 * in Feast's order: the views as first met (an on-demand view computed at read time meets its
 * sources there), then the computed ones.
 */
function tablesRead (features: readonly ReadFeature[], used: ReadonlyMap<string, Projection>): Table[] {
  const tables = new Map<string, Table>()
  const computed = new Map<string, Table>()
  const add = (into: Map<string, Table>, table: Table | undefined): void => {
    if (table !== undefined && !tables.has(table.shownAs) && !computed.has(table.shownAs)) into.set(table.shownAs, table)
  }
  for (const { view, shownAs, joinKeyMap } of features) {
    // An on-demand view written to the online store is read as a feature view, by its own projection.
    if (view.kind === 'OnDemandFeatureView' && !computedAtRead(view)) add(tables, { view, shownAs, joinKeyMap })
    else if (!computedAtRead(view)) add(tables, used.get(shownAs))
    else {
      for (const source of view.sources ?? []) {
        const projection = used.get(sourceShownAs(view, source))
        add(tables, projection === undefined ? undefined : { ...projection, readFor: view })
      }
      add(computed, { view, shownAs, joinKeyMap })
    }
  }
  return [...tables.values(), ...computed.values()]
}

/**
 * The columns the `join_key_map`s of the views used read join keys from, which Feast's
 * `_get_entity_maps` counts among the join keys (so they are answered): those of feature views
 * only, an on-demand view's source projections included (not those of on-demand views).
 */
function renamedColumns (used: ReadonlyMap<string, Projection>): Set<string> {
  const renamed = new Set<string>()
  for (const { view, joinKeyMap } of used.values()) {
    if (joinKeyMap === undefined) continue
    for (const key of view.entities) if (Object.hasOwn(joinKeyMap, key)) renamed.add(joinKeyMap[key] as string)
  }
  return renamed
}

/** The column a table's join key is expected in: the one its `join_key_map` renames it to, when read as a join key. */
function columnOf (table: Table, key: string, renamed: ReadonlySet<string>): string {
  const column = table.joinKeyMap !== undefined && Object.hasOwn(table.joinKeyMap, key) ? table.joinKeyMap[key] : undefined
  return column !== undefined && renamed.has(column) ? column : key
}

/**
 * Most values (rows × columns) one answer holds unless the server sets another bound. Each row
 * sent costs the caller 2 bytes and each value answered costs the server about 4 µs and 400 bytes
 * of memory while the answer is built (40 of JSON once written): unbounded, a 30 KB body asking a
 * service of 64 features for 15,000 rows held it for seconds and 400 MB, and a 1 MiB one ended the
 * process. Online reads are small batches: 100,000 is 1,000 rows of 100 features.
 */
export const DEFAULT_MAX_ANSWERED_VALUES = 100_000

/** Options of {@link readFeatures}. */
export interface ReadOptions {
  /**
   * Most values (rows × columns) one answer holds; a read past it is a 422 naming the counts.
   * A positive integer; default 100,000 (1,000 rows of 100 features). The reference server takes
   * it as `maxAnsweredValues`.
   */
  readonly maxAnsweredValues?: number
}

/** Refuses (422) a read whose answer would hold more than `maxValues` values. */
function checkAnswerSize (rows: number, columns: number, maxValues: number): void {
  if (rows * columns <= maxValues) return
  // The caller may be the one who runs the server: the message says where the bound is set.
  throw unprocessable(`the answer would hold ${rows} rows × ${columns} columns = ${rows * columns} values, more than the ${maxValues} one answer holds: ` +
    'send the entity rows in several requests, or raise the bound (readFeatures\'s maxAnsweredValues, the reference server\'s maxAnsweredValues or feast-authz serve --max-answered-values)')
}

/** Missing request data is a 404, Feast's status for it (`RequestDataNotFoundInEntityRowsException`). */
function checkRequestData (needed: ReadonlyMap<string, string>, columns: SortedEntityColumns<unknown>): void {
  const missing = [...needed].filter(([field]) => !columns.requestData.has(field))
  const [first] = missing
  if (first === undefined) return
  const others = missing.length > 1 ? ` (also missing: ${missing.slice(1).map(([field]) => JSON.stringify(field)).join(', ')})` : ''
  throw notFound(`entities has no column ${JSON.stringify(first[0])}, request data of on-demand feature view ${JSON.stringify(first[1])}${others}`)
}

/** How many of the columns not read an error names (a body may send thousands). */
const MAX_NAMED = 5

/**
 * A missing join key's message: the column expected and whose join key it is (renamed by a
 * feature service or an on-demand view's source, or read for an on-demand view), the columns the
 * tables read take, and the columns sent that were not read.
 */
function missingJoinKey (
  key: string, table: Table, tables: readonly Table[], columns: SortedEntityColumns<unknown>,
  renamed: ReadonlySet<string>, service: FeatureServiceDef | undefined
): string {
  const column = columnOf(table, key, renamed)
  const view = `feature view ${JSON.stringify(table.view.name)}`
  let whose = `the join key of ${view}`
  if (column !== key) {
    const projection = table.shownAs === table.view.name ? 'its projection' : `its projection ${JSON.stringify(table.shownAs)}`
    const by = table.sourceOf !== undefined
      ? ` among the sources of on-demand feature view ${JSON.stringify(table.sourceOf.name)}`
      : service === undefined ? '' : ` in feature service ${JSON.stringify(service.name)}`
    whose = `the join key ${JSON.stringify(key)} of ${view} renamed by the join_key_map of ${projection}${by}`
  } else if (table.readFor !== undefined) {
    whose = `the join key of ${view}, which on-demand feature view ${JSON.stringify(table.readFor.name)} is computed from`
  }
  const expected = new Set<string>()
  for (const each of tables) for (const name of each.view.entities) if (name !== DUMMY_JOIN_KEY) expected.add(columnOf(each, name, renamed))
  const shown = columns.ignored.slice(0, MAX_NAMED).map((each) => JSON.stringify(each)).join(', ')
  const more = columns.ignored.length > MAX_NAMED ? ` and ${columns.ignored.length - MAX_NAMED} more` : ''
  const ignored = columns.ignored.length === 0 ? '' : `; not read: ${shown}${more}, neither a join key nor an entity name of the project`
  return `entities has no column ${JSON.stringify(column)}, ${whose} (the views read take the join keys ${[...expected].join(', ')}${ignored})`
}

interface ReadFeature {
  readonly view: FeatureViewDef
  readonly feature: string
  readonly shownAs: string
  readonly joinKeyMap: Readonly<Record<string, string>> | undefined
}

/**
 * The features in the order Feast answers them: grouped by view, the views in the order first met
 * (an on-demand view computed at read time meets its sources there), as `utils._group_feature_refs`
 * groups them, then the on-demand views computed at read time, in the order first met, as
 * `utils._augment_response_with_on_demand_transforms` appends them. Within a view read from the
 * store Feast keeps no order (a set), and here it is the request's. Within an on-demand view
 * computed at read time, Feast answers the features in the order its transformation outputs them;
 * the reference server computes nothing and takes the view's schema order, the order of its
 * features in the registry (which is that order when Feast inferred the schema from the
 * transformation).
 */
function feastOrder (features: readonly ReadFeature[]): ReadFeature[] {
  const read = new Map<string, ReadFeature[]>()
  const computed = new Map<string, ReadFeature[]>()
  const group = (groups: Map<string, ReadFeature[]>, name: string): ReadFeature[] => {
    let found = groups.get(name)
    if (found === undefined) { found = []; groups.set(name, found) }
    return found
  }
  for (const item of features) {
    if (!computedAtRead(item.view)) { group(read, item.shownAs).push(item); continue }
    group(computed, item.shownAs).push(item)
    // Under the name it is read under: an aliased source is not the view read under its own name.
    for (const source of item.view.sources ?? []) group(read, sourceShownAs(item.view, source))
  }
  return [...read.values(), ...[...computed.values()].map(inSchemaOrder)].flat()
}

/** Features of one view, in the order of the view's features. */
function inSchemaOrder (features: readonly ReadFeature[]): ReadFeature[] {
  const place = (item: ReadFeature): number => item.view.features.indexOf(item.feature)
  return [...features].sort((a, b) => place(a) - place(b))
}

/** Every column of a data frame (its columns, in order) must have the same length; the number of rows. */
export function columnLength (frame: Iterable<readonly [string, readonly unknown[]]>, field: string): number {
  let length: number | undefined
  for (const [column, values] of frame) {
    if (length === undefined) length = values.length
    else if (values.length !== length) throw unprocessable(`${field}: every column must have the same length (${JSON.stringify(column)} has ${values.length}, expected ${length})`)
  }
  return length ?? 0
}

/**
 * The body's JSON types, checked in one flat pass (no recursion: a 10,000-level array is refused
 * at its first level). Unknown keys are ignored, as Feast's server ignores them. As in Feast's
 * request model, `feature_service` (a string; null or empty for none) wins over `features` when both are
 * given: `features` must still be a list of strings then (Feast's clients send `[]` beside a
 * service), and is not read. The entity values beyond ±(2^53 − 1) are read exactly from `text`,
 * the body's JSON text (see {@link readTarget}).
 */
export function checkReadBody (input: unknown, text?: string): GetOnlineFeaturesBody {
  if (!isObject(input)) throw unprocessable(`the body must be a JSON object, got ${jsonType(input)}`)
  const body = input as Record<string, unknown>
  const { features, feature_service: service, entities, full_feature_names: fullNames } = body
  if (features !== undefined) {
    if (!Array.isArray(features)) throw unprocessable(`"features" must be a list of "view:feature" strings, got ${jsonType(features)}`)
    features.forEach((ref, i) => { if (typeof ref !== 'string') throw unprocessable(`features[${i}] must be a string, got ${jsonType(ref)}`) })
  }
  // Feast tests the service for truth: null and an empty name are no service.
  const byService = service !== undefined && service !== null && service !== ''
  if (byService && typeof service !== 'string') throw unprocessable(`"feature_service" must be a string, got ${jsonType(service)}`)
  if (!byService) {
    if (features === undefined || features.length === 0) throw unprocessable('give "features" (a non-empty list of "view:feature" references) or "feature_service"')
    features.forEach((ref: string, i) => { if (ref === '') throw unprocessable(`features[${i}] must be a non-empty string, got an empty one`) })
  }
  if (entities === undefined) throw unprocessable('the body must have "entities": { join key: [values] }')
  if (!isObject(entities) || Object.keys(entities).length === 0) throw unprocessable(`"entities" must be an object of columns { join key: [values] } with at least one column, got ${jsonType(entities)}`)
  for (const [column, values] of Object.entries(entities)) {
    if (!Array.isArray(values)) throw unprocessable(`entities.${column} must be a list of values, got ${jsonType(values)}`)
  }
  const exact = readExactly(entities as Record<string, readonly unknown[]>, text, 'entities')
  for (const [column, values] of Object.entries(exact)) {
    values.forEach((value, i) => {
      const fault = entityKeyFault(value)
      if (fault !== undefined) throw unprocessable(`entities.${column}[${i}] must be ${ENTITY_KEY_TYPES} (an entity key), got ${fault}`)
    })
  }
  const fullFeatureNames = fullNames === undefined ? undefined : feastBoolean(fullNames)
  if (fullNames !== undefined && fullFeatureNames === undefined) throw unprocessable(`"full_feature_names" must be ${FEAST_BOOLEAN_VALUES}, got ${typeof fullNames === 'string' ? 'a string that is none of these' : jsonType(fullNames)}`)
  const checked = exact as GetOnlineFeaturesBody['entities']
  const named = byService ? { feature_service: service as string } : { features: features as string[] }
  return { ...named, entities: checked, ...(fullFeatureNames === undefined ? {} : { full_feature_names: fullFeatureNames }) }
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
