/**
 * The reference server's registry file (YAML): project, feature views, feature services and
 * sample rows. The format is documented in docs/reference-server.md. Every error names the
 * file, the line when known, the field path, the bad value and what was expected.
 */
import { ConfigError, readRegistryYamlFile, type FeatureStoreFile } from '../registry/index.ts'
import {
  FEATURE_VIEW_KINDS, catalogFromSnapshot,
  type FeatureRef, type FeatureCatalog, type FeatureServiceDef, type FeatureViewDef, type FeatureViewKind, type YamlCatalogSnapshot, type SampleRow
} from './catalog.ts'
import { utcInstant } from './utc-instant.ts'
import { INT64_RANGE } from './exact-integers.ts'
import { featureValueFault } from './feature-value.ts'
import { ENTITY_KEY_TYPES, entityKeyFault } from './entity-key.ts'

/**
 * Reads and validates a registry YAML file (a path, or `{ yaml, source }` text). A file that cannot
 * be read is a ConfigError naming its path and calling it the registry YAML file.
 */
export function loadYamlCatalogFile (input: string | { yaml: string, source?: string }): FeatureCatalog {
  return catalogFromSnapshot(parseYamlCatalog(readRegistryYamlFile(input)))
}

const TOP_KEYS = ['project', 'feature_views', 'feature_services', 'sample_rows']
const VIEW_KEYS = ['name', 'kind', 'tags', 'entities', 'features', 'push_source', 'sources', 'request_data', 'online', 'offline', 'enabled', 'write_to_online_store']
const SERVICE_KEYS = ['name', 'tags', 'features']
const PROJECTION_KEYS = ['view', 'alias', 'features', 'join_key_map']
/** An on-demand view's source in the mapping form: Feast's `fv.with_name(...)` and `fv.with_join_key_map({...})` given as a source. */
const SOURCE_KEYS = ['view', 'alias', 'join_key_map']
/** The kinds Feast's `with_join_key_map` exists for: it is a method of FeatureView and its subclasses. */
const RENAMABLE_KINDS: ReadonlySet<FeatureViewKind> = new Set(['FeatureView', 'BatchFeatureView', 'StreamFeatureView'])
/** Column of a sample row (and of pushed data) holding the event time. */
export const EVENT_TIMESTAMP = 'event_timestamp'

type Path = readonly (string | number)[]

/** Validates parsed registry data into a snapshot. */
export function parseYamlCatalog (file: FeatureStoreFile): YamlCatalogSnapshot {
  const fail = (path: Path, message: string): never => {
    const at = file.locate(path.map(String))
    throw new ConfigError(message, { source: file.source, field: fieldName(path), line: at?.line, column: at?.column })
  }
  const data = file.data
  checkKeys(data, TOP_KEYS, [], fail)

  const project = data.project
  if (typeof project !== 'string' || project.trim() === '') fail(['project'], `expected the project name (a non-empty string), got ${ConfigError.describe(project)}`)

  const parsed = list(data.feature_views, ['feature_views'], fail).map((raw, i) => parseView(raw, ['feature_views', i], fail))
  const views = new Map<string, FeatureViewDef>()
  parsed.forEach(({ view }, i) => {
    if (views.has(view.name)) fail(['feature_views', i, 'name'], `duplicate feature view ${JSON.stringify(view.name)}`)
    views.set(view.name, view)
  })
  // Sources name other views, so they are resolved once every view is known.
  const featureViews = parsed.map((view, i) => withSources(view, ['feature_views', i, 'sources'], views, fail))
  for (const view of featureViews) views.set(view.name, view)

  const featureServices = list(data.feature_services, ['feature_services'], fail).map((raw, i) => parseService(raw, ['feature_services', i], views, fail))
  const serviceNames = new Set<string>()
  featureServices.forEach((service, i) => {
    if (serviceNames.has(service.name)) fail(['feature_services', i, 'name'], `duplicate feature service ${JSON.stringify(service.name)}`)
    serviceNames.add(service.name)
  })

  return { project: project as string, featureViews, featureServices, sampleRows: parseRows(data.sample_rows, views, fail) }
}

type Fail = (path: Path, message: string) => never

/** A view as parsed, before its sources are resolved: the join_key_maps of the sources written as mappings, by source index. */
interface ParsedView {
  readonly view: FeatureViewDef
  readonly sourceForms?: SourceForms
}

/** How an on-demand view's sources are written: which as mappings, the alias and the raw join_key_map of those that have one. */
interface SourceForms {
  readonly mappings: ReadonlySet<number>
  readonly aliases: ReadonlyMap<number, string>
  readonly joinKeyMaps: ReadonlyMap<number, unknown>
}

function parseView (raw: unknown, path: Path, fail: Fail): ParsedView {
  const view = mapping(raw, path, fail)
  checkKeys(view, VIEW_KEYS, path, fail)
  const name = nonEmptyString(view.name, [...path, 'name'], fail)
  const kind = view.kind ?? 'FeatureView'
  if (!(FEATURE_VIEW_KINDS as readonly unknown[]).includes(kind)) fail([...path, 'kind'], `unknown kind ${ConfigError.describe(kind)}${typeof kind === 'string' ? ConfigError.didYouMean(kind, FEATURE_VIEW_KINDS) : ''} (expected one of ${FEATURE_VIEW_KINDS.join(', ')})`)
  const entities = stringList(view.entities, [...path, 'entities'], fail)
  if (entities.length === 0) fail([...path, 'entities'], 'expected at least one join key, e.g. [driver_id]')
  const features = stringList(view.features, [...path, 'features'], fail)
  if (features.length === 0) fail([...path, 'features'], 'expected at least one feature name')
  features.forEach((feature, i) => {
    if (entities.includes(feature)) fail([...path, 'features', i], `${JSON.stringify(feature)} is also a join key of the view`)
    if (feature === EVENT_TIMESTAMP) fail([...path, 'features', i], `${EVENT_TIMESTAMP} is reserved for the rows' event time`)
  })
  const pushSource = view.push_source === undefined ? undefined : nonEmptyString(view.push_source, [...path, 'push_source'], fail)
  const onDemand = kind === 'OnDemandFeatureView'
  // Each flag belongs to the kinds Feast gives it to; elsewhere it would be silently meaningless.
  const onlyFor = (key: string, allowed: boolean, which: string): void => {
    if (view[key] !== undefined && !allowed) fail([...path, key], `only ${which} views take ${key}`)
  }
  onlyFor('sources', onDemand, 'on-demand')
  onlyFor('request_data', onDemand, 'on-demand')
  onlyFor('write_to_online_store', onDemand, 'on-demand')
  onlyFor('online', !onDemand, 'non-on-demand')
  // Feast pushes to feature, stream and label views; an on-demand view is computed, never pushed to.
  onlyFor('push_source', !onDemand, 'non-on-demand')
  // Feast's stream feature view spec has no `offline`: a registry never gives a stream view one.
  onlyFor('offline', kind === 'FeatureView' || kind === 'BatchFeatureView', 'FeatureView and BatchFeatureView')
  if (onDemand && view.sources === undefined) fail([...path, 'kind'], 'an OnDemandFeatureView needs sources: the feature views it reads (READ_ONLINE is checked on each of them)')
  const requestData = stringList(view.request_data, [...path, 'request_data'], fail)
  requestData.forEach((field, i) => {
    // Feast reads a column it needs as request data as such, so it could never be the join key too.
    if (entities.includes(field)) fail([...path, 'request_data', i], `${JSON.stringify(field)} is a join key of the view`)
  })
  const sources = onDemand ? parseSources(view.sources, [...path, 'sources'], fail) : undefined
  const flags = {
    ...(sources === undefined ? {} : { sources: sources.names }),
    ...(requestData.length === 0 ? {} : { requestData }),
    ...optionalFlag('online', view.online, [...path, 'online'], fail),
    ...optionalFlag('offline', view.offline, [...path, 'offline'], fail),
    ...(boolean(view.enabled, [...path, 'enabled'], fail) === false ? { disabled: true } : {}),
    ...optionalFlag('writeToOnlineStore', view.write_to_online_store, [...path, 'write_to_online_store'], fail)
  }
  const parsed = Object.freeze({ name, kind: kind as FeatureViewKind, tags: tags(view.tags, [...path, 'tags'], fail), entities, features, pushSource, ...flags })
  return sources === undefined ? { view: parsed } : { view: parsed, sourceForms: sources }
}

/** An on-demand view's `sources`: each a view's name, or a mapping `{ view, alias?, join_key_map? }`; each view once. */
function parseSources (value: unknown, path: Path, fail: Fail): SourceForms & { readonly names: readonly string[] } {
  const names: string[] = []
  const mappings = new Set<number>()
  const aliases = new Map<number, string>()
  const joinKeyMaps = new Map<number, unknown>()
  list(value, path, fail).forEach((item, i) => {
    let name: string
    if (isMapping(item)) {
      checkKeys(item, SOURCE_KEYS, [...path, i], fail)
      name = nonEmptyString(item.view, [...path, i, 'view'], fail)
      mappings.add(i)
      if (item.alias !== undefined) aliases.set(i, nonEmptyString(item.alias, [...path, i, 'alias'], fail))
      if (item.join_key_map !== undefined) joinKeyMaps.set(i, item.join_key_map)
    } else {
      name = nonEmptyString(item, [...path, i], fail)
    }
    // Feast keys an on-demand view's sources by name: a view given twice would be read once.
    if (names.includes(name)) fail([...path, i], `duplicate ${JSON.stringify(name)}`)
    names.push(name)
  })
  return { names: Object.freeze(names), mappings, aliases, joinKeyMaps }
}

/**
 * An on-demand view's sources must be declared feature views that are not on-demand themselves;
 * a source's join_key_map is checked against that view as a feature service's is, and its alias
 * may not show it under the name of another view (a read would show two views under one name).
 * The view, with the aliases and maps of its sources that have one.
 */
function withSources ({ view, sourceForms }: ParsedView, path: Path, views: ReadonlyMap<string, FeatureViewDef>, fail: Fail): FeatureViewDef {
  const aliases: Array<[string, string]> = []
  const maps: Array<[string, Readonly<Record<string, string>>]> = []
  const shownAt = new Map<string, number>()
  view.sources?.forEach((source, i) => {
    const at = sourceForms?.mappings.has(i) === true ? [...path, i, 'view'] : [...path, i]
    const found = views.get(source) ?? fail(at, undeclared(source, views))
    if (found.kind === 'OnDemandFeatureView') fail(at, `${JSON.stringify(source)} is an OnDemandFeatureView; an on-demand view reads feature views`)
    const alias = sourceForms?.aliases.get(i)
    if (alias !== undefined) {
      if (alias !== source && views.has(alias)) fail([...path, i, 'alias'], `${JSON.stringify(alias)} is the name of another feature view: a read would show both under one name (Feast reads them all as the first); take another alias`)
      aliases.push([source, alias])
    }
    const shown = alias ?? source
    const earlier = shownAt.get(shown)
    if (earlier !== undefined) fail([...path, i, 'alias'], `sources[${earlier}] already shows its view as ${JSON.stringify(shown)}: take another alias`)
    shownAt.set(shown, i)
    const raw = sourceForms?.joinKeyMaps.get(i)
    if (raw !== undefined) maps.push([source, parseJoinKeyMap(raw, found, [...path, i, 'join_key_map'], fail)])
  })
  // fromEntries defines each key: a view called `__proto__` is just a view.
  return aliases.length === 0 && maps.length === 0
    ? view
    : Object.freeze({
      ...view,
      ...(aliases.length === 0 ? {} : { sourceAliases: Object.freeze(Object.fromEntries(aliases)) }),
      ...(maps.length === 0 ? {} : { sourceJoinKeyMaps: Object.freeze(Object.fromEntries(maps)) })
    })
}

function boolean (value: unknown, path: Path, fail: Fail): boolean | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'boolean') fail(path, `expected true or false, got ${ConfigError.describe(value)}`)
  return value as boolean
}

function optionalFlag<K extends string> (key: K, value: unknown, path: Path, fail: Fail): { [P in K]?: boolean } {
  const flag = boolean(value, path, fail)
  return (flag === undefined ? {} : { [key]: flag }) as { [P in K]?: boolean }
}

function parseService (raw: unknown, path: Path, views: ReadonlyMap<string, FeatureViewDef>, fail: Fail): FeatureServiceDef {
  const service = mapping(raw, path, fail)
  checkKeys(service, SERVICE_KEYS, path, fail)
  const name = nonEmptyString(service.name, [...path, 'name'], fail)
  const items = list(service.features, [...path, 'features'], fail)
  if (items.length === 0) fail([...path, 'features'], 'expected at least one feature reference (view:feature, a view name for all its features, or a mapping with view)')
  const features: FeatureRef[] = []
  const refs = new Set<string>()
  // The name each projection shows its view under, as Feast keys them (projection.name_to_use()).
  const shown = new Map<string, { readonly index: number, readonly view: string, readonly renames: string }>()
  items.forEach((item, i) => {
    const at = [...path, 'features', i]
    let projection: Projection
    if (!isMapping(item)) {
      const ref = nonEmptyString(item, at, fail)
      if (refs.has(ref)) fail(at, `duplicate ${JSON.stringify(ref)}`)
      refs.add(ref)
      const [viewName, feature] = splitRef(ref)
      const view = views.get(viewName) ?? fail(at, undeclared(viewName, views))
      projection = { view, features: feature === undefined ? view.features : [checkFeature(view, feature, at, fail)] }
    } else {
      projection = parseProjection(item, at, views, fail)
    }
    const { view, alias, joinKeyMap } = projection
    const showAs = alias ?? view.name
    const renames = JSON.stringify(Object.entries(joinKeyMap ?? {}).sort())
    const earlier = shown.get(showAs)
    if (earlier === undefined) shown.set(showAs, { index: i, view: view.name, renames })
    // Feast reads a name's first projection and merges the next ones' features into it: their view and renamed join keys would be lost.
    else if (earlier.view !== view.name) fail(at, `features[${earlier.index}] already shows feature view ${JSON.stringify(earlier.view)} as ${JSON.stringify(showAs)}: give this one an alias`)
    else if (earlier.renames !== renames) fail(at, `features[${earlier.index}] already shows feature view ${JSON.stringify(view.name)} as ${JSON.stringify(showAs)} with another join_key_map: give one an alias`)
    for (const feature of projection.features) {
      features.push({ view: view.name, feature, ...(alias === undefined ? {} : { alias }), ...(joinKeyMap === undefined ? {} : { joinKeyMap }) })
    }
  })
  return Object.freeze({ name, tags: tags(service.tags, [...path, 'tags'], fail), features })
}

/** One entry of a feature service's `features`: a view, which of its features, how it is shown and read. */
interface Projection {
  readonly view: FeatureViewDef
  readonly features: readonly string[]
  readonly alias?: string
  readonly joinKeyMap?: Readonly<Record<string, string>>
}

/** A feature service entry written as a mapping: `{ view, alias?, features?, join_key_map? }`. */
function parseProjection (raw: Record<string, unknown>, path: Path, views: ReadonlyMap<string, FeatureViewDef>, fail: Fail): Projection {
  checkKeys(raw, PROJECTION_KEYS, path, fail)
  const viewName = nonEmptyString(raw.view, [...path, 'view'], fail)
  const view = views.get(viewName) ?? fail([...path, 'view'], undeclared(viewName, views))
  const alias = raw.alias === undefined ? undefined : nonEmptyString(raw.alias, [...path, 'alias'], fail)
  const features = raw.features === undefined
    ? view.features
    : stringList(raw.features, [...path, 'features'], fail).map((feature, i) => checkFeature(view, feature, [...path, 'features', i], fail))
  if (features.length === 0) fail([...path, 'features'], 'expected at least one feature name (leave features out for all of them)')
  const joinKeyMap = raw.join_key_map === undefined ? undefined : parseJoinKeyMap(raw.join_key_map, view, [...path, 'join_key_map'], fail)
  return { view, features, ...(alias === undefined ? {} : { alias }), ...(joinKeyMap === undefined ? {} : { joinKeyMap }) }
}

/**
 * A projection's `join_key_map` (a feature service's, or an on-demand view's source's): a join key
 * of the view → the `entities` column a read of the service (or of the on-demand view) takes it
 * from. Feast does not check the map; keys that are not the view's join keys, a column given to
 * two join keys, and a column that is a join key the map keeps (the view could then not be read
 * by it) are refused here as the slips they are.
 */
function parseJoinKeyMap (raw: unknown, view: FeatureViewDef, path: Path, fail: Fail): Readonly<Record<string, string>> {
  if (!RENAMABLE_KINDS.has(view.kind)) fail(path, `feature view ${JSON.stringify(view.name)} is of kind ${view.kind}: Feast renames join keys (with_join_key_map) of FeatureView, BatchFeatureView and StreamFeatureView only`)
  const entries = Object.entries(mapping(raw, path, fail))
  if (entries.length === 0) fail(path, 'expected at least one join key: column (leave join_key_map out to rename none)')
  const keyOf = new Map<string, string>()
  for (const [key, value] of entries) {
    if (!view.entities.includes(key)) fail([...path, key], `feature view ${JSON.stringify(view.name)} has no join key ${JSON.stringify(key)}${ConfigError.didYouMean(key, view.entities)} (it has ${view.entities.join(', ')})`)
    const column = nonEmptyString(value, [...path, key], fail)
    const other = keyOf.get(column)
    if (other !== undefined) fail([...path, key], `column ${JSON.stringify(column)} is already given to join key ${JSON.stringify(other)}`)
    keyOf.set(column, key)
  }
  // fromEntries defines each key: a join key called `__proto__` is renamed like any other.
  const joinKeyMap = Object.fromEntries([...keyOf].map(([column, key]) => [key, column]))
  for (const [column, key] of keyOf) {
    if (view.entities.includes(column) && !Object.hasOwn(joinKeyMap, column)) fail([...path, key], `column ${JSON.stringify(column)} is a join key of the view that the map keeps: rename that one too, or take another column`)
  }
  return Object.freeze(joinKeyMap)
}

/** `feature` if `view` has it; refused with the features it has otherwise. */
function checkFeature (view: FeatureViewDef, feature: string, path: Path, fail: Fail): string {
  if (!view.features.includes(feature)) fail(path, `feature view ${JSON.stringify(view.name)} has no feature ${JSON.stringify(feature)}${ConfigError.didYouMean(feature, view.features)} (it has ${view.features.join(', ')})`)
  return feature
}

function parseRows (raw: unknown, views: ReadonlyMap<string, FeatureViewDef>, fail: Fail): Record<string, readonly SampleRow[]> {
  if (raw === undefined || raw === null) return {}
  const byView = mapping(raw, ['sample_rows'], fail)
  const out: Record<string, readonly SampleRow[]> = Object.create(null) as Record<string, readonly SampleRow[]>
  for (const [viewName, rows] of Object.entries(byView)) {
    const view = views.get(viewName)
    if (view === undefined) fail(['sample_rows', viewName], undeclared(viewName, views))
    const columns = new Set([...(view as FeatureViewDef).entities, ...(view as FeatureViewDef).features, EVENT_TIMESTAMP])
    out[viewName] = list(rows, ['sample_rows', viewName], fail).map((rawRow, i) => {
      const row = mapping(rawRow, ['sample_rows', viewName, i], fail)
      for (const column of Object.keys(row)) {
        if (!columns.has(column)) fail(['sample_rows', viewName, i, column], `unknown column${ConfigError.didYouMean(column, [...columns])} (expected ${[...columns].join(', ')})`)
      }
      const keys = (view as FeatureViewDef).entities
      for (const key of keys) {
        if (row[key] === undefined || row[key] === null) fail(['sample_rows', viewName, i], `missing join key ${JSON.stringify(key)}`)
        const fault = entityKeyFault(row[key])
        if (fault !== undefined) fail(['sample_rows', viewName, i, key], `expected ${ENTITY_KEY_TYPES} (a join key), got ${fault}`)
      }
      for (const [column, value] of Object.entries(row)) {
        const fault = column === EVENT_TIMESTAMP || keys.includes(column) ? undefined : sampleValueFault(value)
        if (fault !== undefined) fail(['sample_rows', viewName, i, column], fault)
      }
      const time = row[EVENT_TIMESTAMP]
      if (time !== undefined && !(time instanceof Date) && (typeof time !== 'string' || Number.isNaN(utcInstant(time)))) {
        fail(['sample_rows', viewName, i, EVENT_TIMESTAMP], `expected an ISO 8601 date-time, got ${ConfigError.describe(time)}`)
      }
      return Object.freeze({ ...row, ...(time instanceof Date ? { [EVENT_TIMESTAMP]: time.toISOString() } : {}) })
    })
  }
  return out
}

/** Why a sample row's feature value cannot be served as the write routes would take it, or undefined (see featureValueFault). */
function sampleValueFault (value: unknown): string | undefined {
  const fault = featureValueFault(value)
  if (fault === undefined) return undefined
  const within = fault.path === '' ? '' : ' within the value'
  if (fault.kind === 'beyond-int64') return `expected integers within int64 (${INT64_RANGE}), as Feast stores them, got one beyond it${within}`
  const written = Number.isNaN(fault.value) ? '.nan' : fault.value > 0 ? '.inf' : '-.inf'
  return `expected finite numbers (a JSON answer cannot carry ${written}), got ${written}${within}`
}

/** `view:feature` → [view, feature]; a bare `view` → [view, undefined]. */
export function splitRef (ref: string): [string, string | undefined] {
  const colon = ref.indexOf(':')
  return colon < 0 ? [ref, undefined] : [ref.slice(0, colon), ref.slice(colon + 1)]
}

function fieldName (path: Path): string {
  return path.map((part, i) => typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${part}`).join('')
}

function checkKeys (value: Readonly<Record<string, unknown>>, allowed: readonly string[], path: Path, fail: Fail): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) fail([...path, key], `unknown key${ConfigError.didYouMean(key, allowed)} (expected ${allowed.join(', ')})`)
  }
}

/** The message for a reference to a feature view the file does not declare, with the nearest declared name. */
function undeclared (name: string, views: ReadonlyMap<string, FeatureViewDef>): string {
  return `feature view ${JSON.stringify(name)} is not declared under feature_views${ConfigError.didYouMean(name, [...views.keys()])}`
}

function isMapping (value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
}

function mapping (value: unknown, path: Path, fail: Fail): Record<string, unknown> {
  if (!isMapping(value)) return fail(path, `expected a mapping, got ${ConfigError.describe(value)}`)
  return value
}

function list (value: unknown, path: Path, fail: Fail): unknown[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) return fail(path, `expected a list, got ${ConfigError.describe(value)}`)
  return value
}

function nonEmptyString (value: unknown, path: Path, fail: Fail): string {
  if (typeof value !== 'string' || value.trim() === '') return fail(path, `expected a non-empty string, got ${ConfigError.describe(value)}`)
  return value.trim()
}

function stringList (value: unknown, path: Path, fail: Fail): readonly string[] {
  const items = list(value, path, fail)
  const out: string[] = []
  items.forEach((item, i) => {
    const text = nonEmptyString(item, [...path, i], fail)
    if (out.includes(text)) fail([...path, i], `duplicate ${JSON.stringify(text)}`)
    out.push(text)
  })
  return Object.freeze(out)
}

function tags (value: unknown, path: Path, fail: Fail): Readonly<Record<string, string>> {
  if (value === undefined || value === null) return Object.freeze({})
  const raw = mapping(value, path, fail)
  for (const [key, tag] of Object.entries(raw)) {
    if (typeof tag !== 'string') fail([...path, key], `expected a string tag value, got ${ConfigError.describe(tag)} (quote numbers and booleans)`)
  }
  // fromEntries defines each key: an assignment would take a `__proto__` tag as the prototype and drop it.
  return Object.freeze(Object.fromEntries(Object.entries(raw)) as Record<string, string>)
}
