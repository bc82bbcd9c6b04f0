/**
 * The writing routes' request bodies (push, write-to-online-store, materialize; reads are in
 * online-read.ts): JSON schemas (so malformed bodies are refused before any handler runs) and
 * the pure steps from a valid body to what it touches (resources for the permission check, rows
 * for the store). Unknown names are 404 (a push source feeding no view: 422, as in Feast),
 * inconsistent bodies 422.
 */
import type { Action } from '../permissions/index.ts'
import { notFound, unprocessable } from './http-error.ts'
import { columnLength } from './online-read.ts'
import { ENTITY_KEY_TYPES, entityKeyFault } from './entity-key.ts'
import { nonFiniteText } from './value-text.ts'
import { EVENT_TIMESTAMP } from './catalog-yaml.ts'
import type { FeatureCatalog, FeatureViewDef, SampleRow } from './catalog.ts'
import { projectQuerySchema } from './project-scope.ts'
import { utcInstant } from './utc-instant.ts'
import { FEAST_BOOLEAN_VALUES, feastBoolean, flagSchema } from './feast-boolean.ts'
import { INT64_RANGE } from './exact-integers.ts'
import { beyondInt64Fault, featureValueFault } from './feature-value.ts'
import { findNested, isContainer } from './nested-value.ts'

/** Columns of a data frame, as Feast's HTTP API sends them: `{ column: [values...] }`. */
export type DataFrame = Readonly<Record<string, readonly unknown[]>>

const dataFrame = { type: 'object', minProperties: 1, additionalProperties: { type: 'array' } } as const

/**
 * How deep a data frame value may nest. Feast's values are scalars, lists, sets, maps and JSON;
 * 32 levels hold any real one, and the bound keeps deeply nested input (10,000 levels) away from
 * everything that walks a value recursively (storing it, answering it).
 */
export const MAX_VALUE_DEPTH = 32

/** Refuses (422) a data frame with a value nested deeper than {@link MAX_VALUE_DEPTH}; walks it without recursion. */
export function checkFrameDepth (frame: DataFrame, field: string): void {
  for (const [column, values] of Object.entries(frame)) {
    for (const value of values) {
      if (findNested(value, (inner, depth) => depth > MAX_VALUE_DEPTH && isContainer(inner)) !== undefined) {
        throw unprocessable(`${field}.${column}: a value nests more than ${MAX_VALUE_DEPTH} levels deep`)
      }
    }
  }
}

export interface PushBody {
  readonly push_source_name: string
  readonly df: DataFrame
  readonly to?: string
  readonly allow_registry_cache?: boolean
  readonly transform_on_write?: boolean
}

export const pushSchema = {
  type: 'object',
  required: ['push_source_name', 'df'],
  properties: {
    push_source_name: { type: 'string', minLength: 1 },
    df: dataFrame,
    // Checked in code, so that a bad value gets a message naming the accepted ones.
    to: { type: 'string' },
    allow_registry_cache: flagSchema,
    transform_on_write: flagSchema
  }
} as const

export interface WriteToOnlineStoreBody {
  readonly feature_view_name: string
  readonly df: DataFrame
  readonly allow_registry_cache?: boolean
  readonly transform_on_write?: boolean
}

export const writeToOnlineStoreSchema = {
  type: 'object',
  required: ['feature_view_name', 'df'],
  properties: {
    feature_view_name: { type: 'string', minLength: 1 },
    df: dataFrame,
    allow_registry_cache: flagSchema,
    transform_on_write: flagSchema
  }
} as const

/**
 * The fields of Feast's `MaterializeRequest` and `MaterializeIncrementalRequest`
 * (`feature_server.py`); what pydantic types as `Optional` may be null here too.
 */
export interface MaterializeBody {
  /** `/materialize` only; with `disable_event_timestamp` neither timestamp is needed (nor read). */
  readonly start_ts?: string | null
  readonly end_ts?: string | null
  /** Absent or null: Feast's default set; a list, even an empty one: exactly those views. */
  readonly feature_views?: readonly string[] | null
  /** `/materialize` only. */
  readonly disable_event_timestamp?: boolean
  /** Accepted and unused: nothing is copied, so no feature is named. */
  readonly full_feature_names?: boolean
  readonly version?: string | null
}

const optionalTimestamp = { type: ['string', 'null'] } as const
// Null is Feast's `None` (pydantic's Optional), the default set, as when the field is absent.
const viewList = { type: ['array', 'null'], items: { type: 'string', minLength: 1 } } as const
const version = { type: ['string', 'null'] } as const

// Feast makes both timestamps optional (a missing one is refused by the handler, unless
// disable_event_timestamp is set): so are they here, and checkMaterializeWindow refuses it.
export const materializeSchema = {
  type: 'object',
  properties: {
    start_ts: optionalTimestamp,
    end_ts: optionalTimestamp,
    feature_views: viewList,
    disable_event_timestamp: flagSchema,
    full_feature_names: flagSchema,
    version
  }
} as const

export const materializeIncrementalSchema = {
  type: 'object',
  required: ['end_ts'],
  properties: { end_ts: { type: 'string', minLength: 1 }, feature_views: viewList, full_feature_names: flagSchema, version }
} as const

/**
 * The query parameters of both materialize routes: the project, and Feast's `async` and `force`
 * flags. A flag is one string (a repeated one is a 422), read by {@link queryFlag}.
 */
export const materializeQuerySchema = {
  type: 'object',
  properties: { ...projectQuerySchema.properties, async: { type: 'string' }, force: { type: 'string' } }
} as const

/** A boolean query parameter read as Feast's server reads it (pydantic's words); absent is false, anything else a 422. */
export function queryFlag (query: Readonly<Record<string, unknown>> | undefined, name: string): boolean {
  const value = query?.[name]
  if (value === undefined) return false
  // Only strings: a query string has no numbers, and a repeated parameter (a list) is refused.
  const flag = typeof value === 'string' ? feastBoolean(value) : undefined
  if (flag === undefined) throw unprocessable(`query parameter ${name} must be ${FEAST_BOOLEAN_VALUES}, got ${JSON.stringify(value)}`)
  return flag
}

/** A time as Feast reads it (`make_tzaware(parser.parse(...))`), or a 422 naming the field. */
function instant (value: string, field: string): number {
  const time = utcInstant(value)
  if (Number.isNaN(time)) throw unprocessable(`${field} must be an ISO 8601 date-time, got ${JSON.stringify(value)}`)
  return time
}

/**
 * The window of `POST /materialize`, checked as Feast's handler does (`_parse_materialize_timestamps`):
 * with `disable_event_timestamp` the timestamps are not read at all (Feast materializes
 * everything up to now); otherwise both are needed (an empty one counts as missing) and
 * `start_ts` must be strictly before `end_ts`. Feast raises a plain ValueError, which its server
 * turns into a 500; a bad body is a 422 here.
 */
export function checkMaterializeWindow (body: MaterializeBody): void {
  if (body.disable_event_timestamp === true) return
  const { start_ts: start, end_ts: end } = body
  if (start === undefined || start === null || start === '' || end === undefined || end === null || end === '') {
    throw unprocessable('start_ts and end_ts are both required unless disable_event_timestamp is true')
  }
  if (instant(start, 'start_ts') >= instant(end, 'end_ts')) throw unprocessable(`start_ts (${start}) must be before end_ts (${end})`)
}

/** The end of `POST /materialize-incremental`'s window (its start is each view's last materialization). */
export function checkIncrementalWindow (body: MaterializeBody): void {
  instant(body.end_ts ?? '', 'end_ts')
}

/**
 * `version` (Feast's `_validate_materialize_version`): it needs `feature_views` naming exactly
 * one view, then Feast's `registry.enable_online_feature_view_versioning`, without which Feast
 * refuses it. The reference server keeps no view versions, so it refuses it too, as Feast does
 * with versioning off (its default).
 */
export function checkMaterializeVersion (body: MaterializeBody): void {
  if (body.version === undefined || body.version === null) return
  if (body.feature_views?.length !== 1) throw unprocessable('version needs feature_views naming exactly one feature view')
  throw unprocessable('version is not supported: the reference server keeps no feature view versions (Feast\'s registry.enable_online_feature_view_versioning)')
}

export type PushTarget = 'online' | 'offline' | 'online_and_offline'
const PUSH_TARGETS: Readonly<Record<PushTarget, readonly Action[]>> = {
  online: ['WRITE_ONLINE'],
  offline: ['WRITE_OFFLINE'],
  // One permission must cover both, as in Feast.
  online_and_offline: ['WRITE_OFFLINE', 'WRITE_ONLINE']
}

/** `to` → the actions a push needs; a value Feast does not know is a 422, not a 500. */
export function pushTarget (body: PushBody): { to: PushTarget, actions: readonly Action[] } {
  const to = body.to ?? 'online'
  if (!Object.hasOwn(PUSH_TARGETS, to)) {
    throw unprocessable(`"to" must be one of ${Object.keys(PUSH_TARGETS).join(', ')}, got ${JSON.stringify(to)}`)
  }
  return { to: to as PushTarget, actions: PUSH_TARGETS[to as PushTarget] }
}

/**
 * The views fed by the push source. None (an unknown name, or a push source no view reads) is a
 * 422, asking no permission, as in Feast: its handler asserts the permission on each view it
 * found, so on none, and `FeatureStore.push` then raises `PushSourceNotFoundException` (HTTP 422).
 */
export function pushedViews (registry: FeatureCatalog, body: PushBody): readonly FeatureViewDef[] {
  const views = registry.viewsFedBy(body.push_source_name)
  if (views.length === 0) throw unprocessable(`push source ${JSON.stringify(body.push_source_name)} feeds no feature view in the registry`)
  return views
}

function requireView (registry: FeatureCatalog, name: string): FeatureViewDef {
  const view = registry.featureView(name)
  if (view === undefined) throw notFound(`feature view ${JSON.stringify(name)} is not in the registry`)
  return view
}

/**
 * The view `POST /write-to-online-store` writes, looked up as Feast's handler looks it up: a
 * feature view, then an on-demand view, then a stream feature view. A label view's name is unknown
 * there, for every caller and before any permission (labels are written through `POST /push`), and
 * so it answers exactly as an unknown name does.
 */
export function writableView (registry: FeatureCatalog, name: string): FeatureViewDef {
  const view = requireView(registry, name)
  if (view.kind === 'LabelView') throw notFound(`feature view ${JSON.stringify(name)} is not in the registry`)
  return view
}

/**
 * The views a materialization covers, as Feast's `FeatureStore._get_feature_views_to_materialize`
 * resolves them: the named ones (an unknown name is a 404), or, when no list is given (absent or
 * null), the default set: feature views and stream feature views that are online and enabled,
 * and on-demand views that write to the online store and are enabled. Whether a named view can be
 * materialized is judged after the permission check ({@link checkMaterializable}).
 */
export function materializedViews (registry: FeatureCatalog, body: MaterializeBody): readonly FeatureViewDef[] {
  // Only Feast's `None` selects the default set: an empty list names no view, so nothing is materialized.
  if (body.feature_views === undefined || body.feature_views === null) {
    return registry.featureViews().filter((view) => view.disabled !== true && (view.kind === 'OnDemandFeatureView'
      ? view.writeToOnlineStore === true
      : view.kind !== 'LabelView' && view.online !== false))
  }
  return body.feature_views.map((name) => requireView(registry, name))
}

/**
 * Refuses (422) a named view Feast would not materialize, with Feast's checks in Feast's order: a
 * label view, a disabled view, a view that is neither online nor offline, an on-demand view that
 * is not written online.
 */
export function checkMaterializable (views: readonly FeatureViewDef[]): void {
  for (const view of views) {
    const name = JSON.stringify(view.name)
    if (view.kind === 'LabelView') throw unprocessable(`feature view ${name} is a LabelView and cannot be materialized (labels are pushed)`)
    if (view.disabled === true) throw unprocessable(`feature view ${name} is disabled; enable it before materializing`)
    // Feast lets a named view that is not online through when it writes offline (its `offline` flag).
    if (view.online === false && view.offline !== true) throw unprocessable(`feature view ${name} is not served online (online: false) and does not write offline, so it cannot be materialized`)
    if (view.kind === 'OnDemandFeatureView' && view.writeToOnlineStore !== true) throw unprocessable(`feature view ${name} is an OnDemandFeatureView without write_to_online_store and cannot be materialized`)
  }
}

/**
 * Data frame columns → rows, checking that every column has the same length and the view's join
 * keys are there. Integers beyond ±(2^53 − 1) are BigInts (read exactly, exact-integers.ts), and
 * must fit int64 wherever they are: Feast converts a frame's columns to int64 (pandas, then
 * Arrow), and fails on a larger integer (a 500).
 */
export function rowsFor (view: FeatureViewDef, df: DataFrame): SampleRow[] {
  for (const key of view.entities) {
    if (!Object.hasOwn(df, key)) throw unprocessable(`df has no column ${JSON.stringify(key)}, the join key of feature view ${JSON.stringify(view.name)}`)
    // Entity keys are scalars in Feast, as in a read; the schema only bounds how deep any value goes.
    df[key]?.forEach((value, i) => {
      const fault = entityKeyFault(value)
      if (fault !== undefined) throw unprocessable(`df.${key}[${i}] must be ${ENTITY_KEY_TYPES} (a join key of feature view ${JSON.stringify(view.name)}), got ${fault}`)
    })
  }
  const features = new Set(view.features)
  for (const [column, values] of Object.entries(df)) {
    values.forEach((value, i) => {
      // Only the view's features are stored, so only they must be finite; an integer beyond int64
      // fails Feast's write of the whole frame, whichever column holds it.
      const fault = features.has(column) ? featureValueFault(value) : beyondInt64Fault(value)
      if (fault?.kind === 'beyond-int64') throw unprocessable(`df.${column}[${i}]${fault.path} is an integer beyond int64 (${INT64_RANGE}), which Feast cannot write`)
      if (fault?.kind === 'not-finite') {
        // JSON reads `1e400` as Infinity, which no JSON answer can carry back (`JSON.stringify`
        // writes it null). Feast stores it in a float feature, then answers every read of it with a
        // 500 (Starlette's JSON writer refuses it); an integer feature fails on the write (`int()`).
        throw unprocessable(`df.${column}[${i}] must hold only finite numbers (a feature of feature view ${JSON.stringify(view.name)}), got ${nonFiniteText(fault.value)}`)
      }
    })
  }
  const count = columnLength(Object.entries(df), 'df')
  const times = df[EVENT_TIMESTAMP]
  times?.forEach((time, i) => {
    if (typeof time !== 'string' || Number.isNaN(utcInstant(time))) throw unprocessable(`df.${EVENT_TIMESTAMP}[${i}] must be an ISO 8601 date-time, got ${JSON.stringify(time)}`)
  })
  const columns = Object.keys(df)
  const rows: SampleRow[] = []
  // Defined, not assigned: a column called `__proto__` (a body parser other than Fastify's keeps
  // one) would otherwise become the row's prototype, and its fields would read as the row's own.
  for (let i = 0; i < count; i++) rows.push(Object.fromEntries(columns.map((column) => [column, df[column]?.[i]])))
  return rows
}
