import type { Resource, ResourceType } from '../permissions/model.ts'
import { CUSTOM_SOURCE_TYPE, PUSH_SOURCE_TYPE, type Message, type RegistryMessage, type Tags } from './schema.ts'

type DataSourceMessage = Message<'DataSource'>
type FeatureSpecMessage = Message<'FeatureSpecV2'>

/** What every object of a registry carries, on top of the permission model's `Resource`. */
interface RegistryObject<T extends ResourceType> extends Resource {
  readonly type: T
  readonly project: string
  readonly tags: Tags
  readonly description?: string
  readonly owner?: string
}

/** The resource types of the feature views a server reads from (and materializes). */
export type FeatureViewType = 'FeatureView' | 'BatchFeatureView' | 'StreamFeatureView' | 'OnDemandFeatureView'

/**
 * A feature view, batch feature view (a feature view with a transformation, as Feast loads it),
 * stream feature view or on-demand feature view.
 */
export interface FeatureViewResource extends RegistryObject<FeatureViewType> {
  readonly features: readonly string[]
  readonly entities: readonly string[]
  /** Name of the batch (offline) source. */
  readonly batchSource?: string
  /** Name of the stream source (a push source included). */
  readonly streamSource?: string
  /** Name of the stream source when it is a push source: `POST /push` with this name writes here. */
  readonly pushSource?: string
  /**
   * On-demand feature views: names of the feature views they read (Feast's
   * `source_feature_view_projections`), in the order the registry file writes them (Feast's
   * order), names like integers included; each is the name the source carries (a projection's
   * view, a whole view's own name), never its key in the file's map, as Feast names them. A name
   * the registry has no view for stays: Feast refuses a read of the on-demand view then. Request
   * sources are not here, but in `requestSources`.
   */
  readonly sources?: readonly string[]
  /**
   * On-demand feature views: names of their request sources (Feast's `source_request_sources`),
   * in the file's order; absent when none. They name no view (a request source named like a view
   * is still no read of it), so no permission is ever checked on them.
   */
  readonly requestSources?: readonly string[]
  /**
   * On-demand feature views: the alias of each source projection that has one (Feast's
   * `fv.with_name("...")` given as a source), by source name: the name the source view is read
   * under in a read of the on-demand view. Absent when none has one.
   */
  readonly sourceAliases?: Readonly<Record<string, string>>
  /**
   * On-demand feature views: the `join_key_map` of each source projection that renames join keys
   * (Feast's `fv.with_join_key_map({...})` given as a source), by source name: a join key of that
   * view → the `entities` column a read of the on-demand view takes it from. Absent when none does.
   */
  readonly sourceJoinKeyMaps?: Readonly<Record<string, Tags>>
  /**
   * On-demand feature views: the fields of their request sources (Feast's
   * `get_request_data_schema`), which a read must send beside the entity columns; absent when none.
   */
  readonly requestData?: readonly string[]
  /** Feature, batch and stream views: Feast's `online` (served from the online store). */
  readonly online?: boolean
  /**
   * Feature and batch views: Feast's `offline` (written to the offline store); absent when false.
   * Feast's stream feature view spec has no such field, so a stream view read back never has it.
   */
  readonly offline?: boolean
  /** Feast's `disabled` (its `enabled` is `not disabled`); absent when false. */
  readonly disabled?: boolean
  /**
   * Feast's lifecycle state (`meta.state`) when the view is in one where Feast serves nothing
   * online: registered but without data, generated offline, or being materialized. Absent for
   * AVAILABLE_ONLINE and for views that predate the states (which Feast serves).
   */
  readonly unservedState?: UnservedState
  /** On-demand views: Feast's `write_to_online_store` (transform on write, materialized). */
  readonly writeToOnlineStore?: boolean
}

/** A label view (Feast >= 0.64): labels for the entities of a feature view. */
export interface LabelViewResource extends RegistryObject<'LabelView'> {
  readonly features: readonly string[]
  readonly entities: readonly string[]
  /** Name of its data source. */
  readonly source?: string
  /** Name of its data source when it is a push source: `POST /push` with this name writes here too. */
  readonly pushSource?: string
  readonly online?: boolean
}

/** One feature view a feature service serves, and which of its features. */
export interface FeatureViewProjection {
  readonly featureView: string
  /** The name the service exposes it under, when it renames it. */
  readonly alias?: string
  readonly features: readonly string[]
  /**
   * Feast's `join_key_map` (`with_join_key_map`): a join key of the view → the `entities` column
   * a read of the service takes it from. Absent when the projection renames none.
   */
  readonly joinKeyMap?: Tags
}

/** A feature service of the registry. */
export interface FeatureServiceResource extends RegistryObject<'FeatureService'> {
  readonly projections: readonly FeatureViewProjection[]
}

/** An entity of the registry. */
export interface EntityResource extends RegistryObject<'Entity'> {
  readonly joinKey?: string
}

/** A data source of the registry. */
export interface DataSourceResource extends RegistryObject<'DataSource'> {
  /** Feast's `DataSource.SourceType` number (1 file, 7 request, 9 push, ...). */
  readonly sourceType: number
  /** The Python class Feast records for it, e.g. `feast.data_source.PushSource`. */
  readonly sourceClass?: string
  /** Push and stream sources: their batch source's name. */
  readonly batchSource?: string
}

/** A saved dataset of the registry. */
export interface SavedDatasetResource extends RegistryObject<'SavedDataset'> {
  readonly features: readonly string[]
  readonly featureService?: string
}

/** A validation reference (`ValidationProfile.proto`): a profile of a saved dataset. */
export interface ValidationReferenceResource extends RegistryObject<'ValidationReference'> {
  readonly referenceDataset?: string
}

/** A project of the registry. */
export type ProjectResource = RegistryObject<'Project'>
/** A permission of the registry, as a resource other permissions can govern. */
export type PermissionResource = RegistryObject<'Permission'>

/** Any object of a registry, as a resource permissions are checked against. */
export type RegistryResource =
  | FeatureViewResource | LabelViewResource | FeatureServiceResource | EntityResource | DataSourceResource
  | SavedDatasetResource | ValidationReferenceResource | ProjectResource | PermissionResource

const NO_TAGS: Tags = Object.freeze(Object.create(null) as Record<string, string>)

/**
 * The resources of a decoded registry, in registry order by kind: projects, entities, data
 * sources, feature views (batch ones included), stream feature views, on-demand feature views,
 * label views, feature services, saved datasets, validation references, permissions. Objects
 * without a name or a project (which Feast never writes) are left out: they could not be asked
 * for anyway. A generator that yields now and then, so a large registry can be spread over
 * several event-loop turns; its return value is the list.
 */
export function * resourceSteps (registry: RegistryMessage): Generator<void, RegistryResource[]> {
  const out: RegistryResource[] = []
  let count = 0
  function * each<M> (messages: readonly M[] | undefined, read: (message: M) => RegistryResource | undefined): Generator<void, void> {
    for (const message of messages ?? []) {
      const resource = read(message)
      if (resource !== undefined) out.push(Object.freeze(resource))
      if (++count % RESOURCES_PER_STEP === 0) yield
    }
  }
  yield * each(registry.projects, project)
  yield * each(registry.entities, entity)
  yield * each(registry.data_sources, dataSource)
  yield * each(registry.feature_views, featureView)
  yield * each(registry.stream_feature_views, streamFeatureView)
  yield * each(registry.on_demand_feature_views, onDemandFeatureView)
  yield * each(registry.label_views, labelView)
  yield * each(registry.feature_services, featureService)
  yield * each(registry.saved_datasets, savedDataset)
  yield * each(registry.validation_references, validationReference)
  yield * each(registry.permissions, permissionResource)
  return out
}

const RESOURCES_PER_STEP = 512

function base<T extends ResourceType> (
  type: T,
  name: string | undefined,
  project: string | undefined,
  tags: Tags | undefined,
  description?: string,
  owner?: string
): RegistryObject<T> | undefined {
  if (name === undefined || name === '' || project === undefined || project === '') return undefined
  return {
    type,
    name,
    project,
    tags: tagsOf(tags),
    ...(description === undefined || description === '' ? {} : { description }),
    ...(owner === undefined || owner === '' ? {} : { owner })
  }
}

function project (message: Message<'Project'>): ProjectResource | undefined {
  const spec = message.spec
  return base('Project', spec?.name, spec?.name, spec?.tags, spec?.description, spec?.owner)
}

function entity (message: Message<'Entity'>): EntityResource | undefined {
  const spec = message.spec
  const common = base('Entity', spec?.name, spec?.project, spec?.tags, spec?.description, spec?.owner)
  return common === undefined ? undefined : { ...common, ...optional('joinKey', spec?.join_key) }
}

function dataSource (message: DataSourceMessage): DataSourceResource | undefined {
  const common = base('DataSource', message.name, message.project, message.tags, message.description, message.owner)
  if (common === undefined) return undefined
  return {
    ...common,
    sourceType: message.type ?? 0,
    ...optional('sourceClass', message.data_source_class_type),
    ...optional('batchSource', message.batch_source?.name)
  }
}

/** Feast (>= 0.55) loads a feature view whose spec has a transformation as a BatchFeatureView. */
function featureView (message: Message<'FeatureView'>): FeatureViewResource | undefined {
  const spec = message.spec
  if (spec === undefined) return undefined
  return viewOf(spec.feature_transformation === undefined ? 'FeatureView' : 'BatchFeatureView', spec, message.meta?.state)
}

function streamFeatureView (message: Message<'StreamFeatureView'>): FeatureViewResource | undefined {
  const spec = message.spec
  return spec === undefined ? undefined : viewOf('StreamFeatureView', spec, message.meta?.state)
}

function viewOf (
  type: 'FeatureView' | 'BatchFeatureView' | 'StreamFeatureView',
  spec: Message<'FeatureViewSpec'> | Message<'StreamFeatureViewSpec'>,
  state: number | undefined
): FeatureViewResource | undefined {
  const common = base(type, spec.name, spec.project, spec.tags, spec.description, spec.owner)
  if (common === undefined) return undefined
  const stream = spec.stream_source
  return {
    ...common,
    features: names(spec.features),
    entities: Object.freeze([...(spec.entities ?? [])]),
    ...optional('batchSource', spec.batch_source?.name),
    ...optional('streamSource', stream?.name),
    ...pushSourceOf(stream),
    online: spec.online ?? false,
    ...flag('offline', 'offline' in spec ? spec.offline : undefined),
    ...flag('disabled', spec.disabled),
    ...unserved(state)
  }
}

function onDemandFeatureView (message: Message<'OnDemandFeatureView'>): FeatureViewResource | undefined {
  const spec = message.spec
  const common = base('OnDemandFeatureView', spec?.name, spec?.project, spec?.tags, spec?.description, spec?.owner)
  if (common === undefined || spec === undefined) return undefined
  return {
    ...common,
    features: names(spec.features),
    entities: Object.freeze([...(spec.entities ?? [])]),
    ...onDemandSourcesOf(spec.sources),
    writeToOnlineStore: spec.write_to_online_store ?? false,
    ...flag('disabled', spec.disabled),
    ...unserved(message.meta?.state)
  }
}

/**
 * An on-demand view's sources as Feast's `OnDemandFeatureView.from_proto` reads them, in the
 * file's order, each known by the name it carries (Feast never reads the map's key, which it
 * writes equal to that name), kept apart by kind as Feast keeps them: feature views
 * (`sources`) and request sources (`requestSources`, with their fields in `requestData`). A
 * source given as a projection (what Feast writes) is the view its `feature_view_name` names,
 * read through the projection: its alias (`with_name`) and its `join_key_map`. A whole feature
 * view (older Feast) is its `spec.name`, read through no projection. Two sources naming one view
 * are one, as in Feast's dict: the later one's projection, in the first one's place; a request
 * source and a view of one name are both kept, each in its own list.
 *
 * A source carrying no name (an empty one: files Feast does not write) is known by its key.
 * Feast would name it "" and then cannot read the on-demand view; unnamed here, it would name no
 * view and drop out of the views a read of the on-demand view is checked on, so the key keeps a
 * check where Feast refuses the read. A source holding none of the three members (Feast refuses
 * to read the view) counts as a feature view known by its key, for the same reason: a view the
 * registry lacks refuses the read, never drops out of its checks.
 */
function onDemandSourcesOf (
  sources: ReadonlyMap<string, Message<'OnDemandSource'>> | undefined
): Pick<FeatureViewResource, 'sources' | 'requestSources' | 'sourceAliases' | 'sourceJoinKeyMaps' | 'requestData'> {
  const viewNames = new Set<string>()
  const requestNames = new Set<string>()
  const projections = new Map<string, Message<'FeatureViewProjection'> | undefined>()
  const fields = new Set<string>()
  for (const [key, source] of sources ?? []) {
    // The three are members of one oneof: a source holds one of them at most.
    const request = source.request_data_source
    if (request !== undefined) {
      requestNames.add(nameOr(request.name, key))
      for (const field of names(request.request_data_options?.schema)) fields.add(field)
      continue
    }
    const projection = source.feature_view_projection
    const name = nameOr(projection?.feature_view_name ?? source.feature_view?.spec?.name, key)
    viewNames.add(name)
    if (projection !== undefined || source.feature_view !== undefined) projections.set(name, projection)
  }
  // Null-prototype: a source called `__proto__` is just a source.
  const aliases = Object.create(null) as Record<string, string>
  const maps = Object.create(null) as Record<string, Tags>
  for (const [name, projection] of projections) {
    const alias = projection?.feature_view_name_alias
    if (alias !== undefined && alias !== '') aliases[name] = alias
    const map = joinKeyMapOf(projection)
    if (map !== undefined) maps[name] = map
  }
  return {
    sources: Object.freeze([...viewNames]),
    ...(requestNames.size === 0 ? {} : { requestSources: Object.freeze([...requestNames]) }),
    ...(Object.keys(aliases).length === 0 ? {} : { sourceAliases: Object.freeze(aliases) }),
    ...(Object.keys(maps).length === 0 ? {} : { sourceJoinKeyMaps: Object.freeze(maps) }),
    ...(fields.size === 0 ? {} : { requestData: Object.freeze([...fields]) })
  }
}

/** The name a source carries; its key in the file's map when it carries none. */
function nameOr (carried: string | undefined, key: string): string {
  return carried === undefined || carried === '' ? key : carried
}

/** A projection's join_key_map; undefined when it renames none. */
function joinKeyMapOf (projection: Message<'FeatureViewProjection'> | undefined): Tags | undefined {
  const map = projection?.join_key_map
  return map === undefined || Object.keys(map).length === 0 ? undefined : tagsOf(map)
}

function labelView (message: Message<'LabelView'>): LabelViewResource | undefined {
  const spec = message.spec
  const common = base('LabelView', spec?.name, spec?.project, spec?.tags, spec?.description, spec?.owner)
  if (common === undefined || spec === undefined) return undefined
  return {
    ...common,
    features: names(spec.features),
    entities: Object.freeze([...(spec.entities ?? [])]),
    ...optional('source', spec.source?.name),
    ...pushSourceOf(spec.source),
    online: spec.online ?? false
  }
}

function featureService (message: Message<'FeatureService'>): FeatureServiceResource | undefined {
  const spec = message.spec
  const common = base('FeatureService', spec?.name, spec?.project, spec?.tags, spec?.description, spec?.owner)
  if (common === undefined || spec === undefined) return undefined
  const projections = (spec.features ?? []).map((projection) => {
    const joinKeyMap = joinKeyMapOf(projection)
    return Object.freeze({
      featureView: projection.feature_view_name ?? '',
      ...optional('alias', projection.feature_view_name_alias),
      features: names(projection.feature_columns),
      ...(joinKeyMap === undefined ? {} : { joinKeyMap })
    })
  })
  return { ...common, projections: Object.freeze(projections) }
}

function savedDataset (message: Message<'SavedDataset'>): SavedDatasetResource | undefined {
  const spec = message.spec
  const common = base('SavedDataset', spec?.name, spec?.project, spec?.tags, spec?.description)
  if (common === undefined || spec === undefined) return undefined
  return { ...common, features: Object.freeze([...(spec.features ?? [])]), ...optional('featureService', spec.feature_service_name) }
}

function validationReference (message: Message<'ValidationReference'>): ValidationReferenceResource | undefined {
  const common = base('ValidationReference', message.name, message.project, message.tags, message.description)
  return common === undefined ? undefined : { ...common, ...optional('referenceDataset', message.reference_dataset_name) }
}

function permissionResource (message: Message<'Permission'>): PermissionResource | undefined {
  const spec = message.spec
  return base('Permission', spec?.name, spec?.project, spec?.tags)
}

/**
 * Whether Feast loads the source as a PushSource (`DataSource.from_proto`): the `type` alone
 * picks the class, except for a custom source, whose class Feast imports from the path in
 * `data_source_class_type`. Of those paths only the ones to Feast's own class are recognised; a
 * subclass or a re-export elsewhere is not, so a push to such a source finds no view here.
 */
function isPushSource (source: DataSourceMessage): boolean {
  if (source.type === PUSH_SOURCE_TYPE) return true
  return source.type === CUSTOM_SOURCE_TYPE && PUSH_SOURCE_CLASSES.has(source.data_source_class_type ?? '')
}

/** `pushSource`: the source's name when it is a push source (what `POST /push` names). */
function pushSourceOf (source: DataSourceMessage | undefined): { pushSource?: string } {
  return source !== undefined && isPushSource(source) ? optional('pushSource', source.name) : {}
}

// Where Feast's PushSource class is defined, and the package's export of it.
const PUSH_SOURCE_CLASSES: ReadonlySet<string> = new Set(['feast.data_source.PushSource', 'feast.PushSource'])

function names (features: readonly FeatureSpecMessage[] | undefined): readonly string[] {
  return Object.freeze((features ?? []).map((feature) => feature.name ?? '').filter((name) => name !== ''))
}

function tagsOf (tags: Tags | undefined): Tags {
  if (tags === undefined || Object.keys(tags).length === 0) return NO_TAGS
  // A null-prototype copy: a tag called `__proto__` is just a tag.
  return Object.freeze(Object.assign(Object.create(null) as Record<string, string>, tags))
}

/** Feast's `FeatureViewState` numbers of the states it serves nothing online in (1, 2, 3). */
const UNSERVED_STATES = ['CREATED', 'GENERATED', 'MATERIALIZING'] as const
/** A lifecycle state in which Feast refuses to serve a view online. */
export type UnservedState = typeof UNSERVED_STATES[number]

// STATE_UNSPECIFIED (0), AVAILABLE_ONLINE (4) and numbers Feast does not know (which it reads as
// STATE_UNSPECIFIED) all serve.
function unserved (state: number | undefined): { unservedState?: UnservedState } {
  const name = state === undefined ? undefined : UNSERVED_STATES[state - 1]
  return name === undefined ? {} : { unservedState: name }
}

function flag<K extends string> (key: K, value: boolean | undefined): { [P in K]?: boolean } {
  return (value === true ? { [key]: true } : {}) as { [P in K]?: boolean }
}

function optional<K extends string> (key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined || value === '' ? {} : { [key]: value }) as { [P in K]?: string }
}
