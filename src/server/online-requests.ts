/**
 * The online routes' request bodies: JSON schemas (so malformed bodies are refused before any
 * handler runs) and the pure steps from a valid body to what it touches (resources for the
 * permission check, rows for the store). Unknown names are 404, inconsistent bodies 422.
 */
import type { Action } from '../permissions/model.ts'
import { notFound, unprocessable } from './http-error.ts'
import { EVENT_TIMESTAMP, splitRef } from './catalog-yaml.ts'
import type { FeatureCatalog, FeatureServiceDef, FeatureViewDef, SampleRow } from './catalog.ts'

/** Columns of a data frame, as Feast's HTTP API sends them: `{ column: [values...] }`. */
export type DataFrame = Readonly<Record<string, readonly unknown[]>>

const dataFrame = { type: 'object', minProperties: 1, additionalProperties: { type: 'array' } } as const

export interface GetOnlineFeaturesBody {
  readonly features?: readonly string[]
  readonly feature_service?: string
  readonly entities: DataFrame
  readonly full_feature_names?: boolean
}

export const getOnlineFeaturesSchema = {
  type: 'object',
  required: ['entities'],
  properties: {
    features: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    feature_service: { type: 'string', minLength: 1 },
    entities: dataFrame,
    full_feature_names: { type: 'boolean' }
  }
} as const

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
    allow_registry_cache: { type: 'boolean' },
    transform_on_write: { type: 'boolean' }
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
    allow_registry_cache: { type: 'boolean' },
    transform_on_write: { type: 'boolean' }
  }
} as const

export interface MaterializeBody {
  readonly start_ts?: string
  readonly end_ts: string
  readonly feature_views?: readonly string[]
}

const timestamp = { type: 'string', minLength: 1 } as const
const viewList = { type: 'array', items: { type: 'string', minLength: 1 } } as const

export const materializeSchema = {
  type: 'object',
  required: ['start_ts', 'end_ts'],
  properties: { start_ts: timestamp, end_ts: timestamp, feature_views: viewList }
} as const

export const materializeIncrementalSchema = {
  type: 'object',
  required: ['end_ts'],
  properties: { end_ts: timestamp, feature_views: viewList }
} as const

/** What a get-online-features request reads. */
export interface ReadPlan {
  /** Set when the request named a feature service: the only resource checked (as in Feast). */
  readonly service: FeatureServiceDef | undefined
  readonly features: ReadonlyArray<{ readonly view: FeatureViewDef, readonly feature: string }>
  /** The distinct views read, in first-use order. */
  readonly views: readonly FeatureViewDef[]
  readonly rowCount: number
}

export function planRead (registry: FeatureCatalog, body: GetOnlineFeaturesBody): ReadPlan {
  const hasFeatures = body.features !== undefined
  const hasService = body.feature_service !== undefined
  if (hasFeatures === hasService) throw unprocessable('give exactly one of "features" (a list of "view:feature" references) and "feature_service"')
  let service: FeatureServiceDef | undefined
  const features: Array<{ view: FeatureViewDef, feature: string }> = []
  if (body.feature_service !== undefined) {
    service = registry.featureService(body.feature_service)
    if (service === undefined) throw notFound(`feature service ${JSON.stringify(body.feature_service)} is not in the registry`)
    for (const ref of service.features) features.push({ view: requireView(registry, ref.view), feature: ref.feature })
  } else {
    for (const ref of body.features ?? []) {
      const [viewName, feature] = splitRef(ref)
      if (feature === undefined || feature === '') throw unprocessable(`feature reference ${JSON.stringify(ref)} must be written "view:feature"`)
      const view = requireView(registry, viewName)
      if (!view.features.includes(feature)) throw notFound(`feature view ${JSON.stringify(view.name)} has no feature ${JSON.stringify(feature)}`)
      features.push({ view, feature })
    }
  }
  const rowCount = columnLength(body.entities, 'entities')
  const views = [...new Set(features.map((item) => item.view))]
  for (const view of views) {
    for (const key of view.entities) {
      if (!Object.hasOwn(body.entities, key)) throw unprocessable(`entities has no column ${JSON.stringify(key)}, the join key of feature view ${JSON.stringify(view.name)}`)
    }
  }
  return { service, features, views, rowCount }
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

/** The views fed by the push source; an unknown source is a 404. */
export function pushedViews (registry: FeatureCatalog, body: PushBody): readonly FeatureViewDef[] {
  const views = registry.viewsFedBy(body.push_source_name)
  if (views.length === 0) throw notFound(`push source ${JSON.stringify(body.push_source_name)} feeds no feature view in the registry`)
  return views
}

export function requireView (registry: FeatureCatalog, name: string): FeatureViewDef {
  const view = registry.featureView(name)
  if (view === undefined) throw notFound(`feature view ${JSON.stringify(name)} is not in the registry`)
  return view
}

/** The views a materialization covers: the named ones, or every view that has an online table. */
export function materializedViews (registry: FeatureCatalog, body: MaterializeBody): readonly FeatureViewDef[] {
  for (const field of ['start_ts', 'end_ts'] as const) {
    const value = body[field]
    if (value !== undefined && Number.isNaN(Date.parse(value))) throw unprocessable(`${field} must be an ISO 8601 date-time, got ${JSON.stringify(value)}`)
  }
  if (body.feature_views === undefined || body.feature_views.length === 0) {
    return registry.featureViews().filter((view) => view.kind !== 'OnDemandFeatureView')
  }
  return body.feature_views.map((name) => {
    const view = requireView(registry, name)
    if (view.kind === 'OnDemandFeatureView') throw unprocessable(`feature view ${JSON.stringify(name)} is an OnDemandFeatureView and cannot be materialized`)
    return view
  })
}

/** Data frame columns → rows, checking that every column has the same length and the view's join keys are there. */
export function rowsFor (view: FeatureViewDef, df: DataFrame): SampleRow[] {
  for (const key of view.entities) {
    if (!Object.hasOwn(df, key)) throw unprocessable(`df has no column ${JSON.stringify(key)}, the join key of feature view ${JSON.stringify(view.name)}`)
  }
  const count = columnLength(df, 'df')
  const times = df[EVENT_TIMESTAMP]
  times?.forEach((time, i) => {
    if (typeof time !== 'string' || Number.isNaN(Date.parse(time))) throw unprocessable(`df.${EVENT_TIMESTAMP}[${i}] must be an ISO 8601 date-time, got ${JSON.stringify(time)}`)
  })
  const columns = Object.keys(df)
  const rows: SampleRow[] = []
  for (let i = 0; i < count; i++) {
    const row: Record<string, unknown> = {}
    for (const column of columns) row[column] = df[column]?.[i]
    rows.push(row)
  }
  return rows
}

function columnLength (frame: DataFrame, field: string): number {
  let length: number | undefined
  for (const [column, values] of Object.entries(frame)) {
    if (length === undefined) length = values.length
    else if (values.length !== length) throw unprocessable(`${field}: every column must have the same length (${JSON.stringify(column)} has ${values.length}, expected ${length})`)
  }
  return length ?? 0
}
