import type { Resource, ResourceType } from '../permissions/model.ts'
import type {
  DataSourceMessage, EntityMessage, FeatureServiceMessage, FeatureSpecMessage, FeatureViewMessage, OnDemandFeatureViewMessage,
  PermissionMessage, ProjectMessage, RegistryMessage, SavedDatasetMessage, Tags, ValidationReferenceMessage
} from './decode.ts'
import { PUSH_SOURCE_TYPE } from './schema.ts'

/** What every object of a registry carries, on top of the permission model's `Resource`. */
interface RegistryObject<T extends ResourceType> extends Resource {
  readonly type: T
  readonly project: string
  readonly tags: Tags
  readonly description?: string
  readonly owner?: string
}

/** A feature view, stream feature view or on-demand feature view. */
export interface FeatureViewResource extends RegistryObject<'FeatureView' | 'StreamFeatureView' | 'OnDemandFeatureView'> {
  readonly features: readonly string[]
  readonly entities: readonly string[]
  /** Name of the batch (offline) source. */
  readonly batchSource?: string
  /** Name of the stream source (a push source included). */
  readonly streamSource?: string
  /** Name of the stream source when it is a push source: `POST /push` with this name writes here. */
  readonly pushSource?: string
  /** On-demand feature views: names of the sources (feature views and request sources) they read. */
  readonly sources?: readonly string[]
  readonly online?: boolean
}

/** One feature view a feature service serves, and which of its features. */
export interface FeatureViewProjection {
  readonly featureView: string
  /** The name the service exposes it under, when it renames it. */
  readonly alias?: string
  readonly features: readonly string[]
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

/** A validation reference of the registry. */
export interface ValidationReferenceResource extends RegistryObject<'ValidationReference'> {
  readonly referenceDataset?: string
}

/** A project of the registry. */
export type ProjectResource = RegistryObject<'Project'>
/** A permission of the registry, as a resource other permissions can govern. */
export type PermissionResource = RegistryObject<'Permission'>

/** Any object of a registry, as a resource permissions are checked against. */
export type RegistryResource =
  | FeatureViewResource | FeatureServiceResource | EntityResource | DataSourceResource
  | SavedDatasetResource | ValidationReferenceResource | ProjectResource | PermissionResource

const NO_TAGS: Tags = Object.freeze(Object.create(null) as Record<string, string>)

/**
 * The resources of a decoded registry, in registry order by kind: projects, entities, data
 * sources, feature views, stream feature views, on-demand feature views, feature services,
 * saved datasets, validation references, permissions. Objects without a name or a project
 * (which Feast never writes) are left out: they could not be asked for anyway.
 */
export function resourcesOf (registry: RegistryMessage): RegistryResource[] {
  const out: RegistryResource[] = []
  const add = (resource: RegistryResource | undefined): void => { if (resource !== undefined) out.push(Object.freeze(resource)) }
  for (const message of registry.projects ?? []) add(project(message))
  for (const message of registry.entities ?? []) add(entity(message))
  for (const message of registry.data_sources ?? []) add(dataSource(message))
  for (const message of registry.feature_views ?? []) add(featureView(message, 'FeatureView'))
  for (const message of registry.stream_feature_views ?? []) add(featureView(message, 'StreamFeatureView'))
  for (const message of registry.on_demand_feature_views ?? []) add(onDemandFeatureView(message))
  for (const message of registry.feature_services ?? []) add(featureService(message))
  for (const message of registry.saved_datasets ?? []) add(savedDataset(message))
  for (const message of registry.validation_references ?? []) add(validationReference(message))
  for (const message of registry.permissions ?? []) add(permissionResource(message))
  return out
}

function base<T extends ResourceType> (type: T, name: string | undefined, project: string | undefined, tags: Tags | undefined, description?: string, owner?: string): RegistryObject<T> | undefined {
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

function project (message: ProjectMessage): ProjectResource | undefined {
  const spec = message.spec
  return base('Project', spec?.name, spec?.name, spec?.tags, spec?.description, spec?.owner)
}

function entity (message: EntityMessage): EntityResource | undefined {
  const spec = message.spec
  const common = base('Entity', spec?.name, nonEmpty(spec?.project) ?? message.project, spec?.tags, spec?.description)
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

function featureView (message: FeatureViewMessage, type: 'FeatureView' | 'StreamFeatureView'): FeatureViewResource | undefined {
  const spec = message.spec
  const common = base(type, spec?.name, spec?.project, spec?.tags, spec?.description, spec?.owner)
  if (common === undefined || spec === undefined) return undefined
  const stream = spec.stream_source
  return {
    ...common,
    features: names(spec.features),
    entities: Object.freeze([...(spec.entities ?? [])]),
    ...optional('batchSource', spec.batch_source?.name),
    ...optional('streamSource', stream?.name),
    ...(stream !== undefined && isPushSource(stream) ? optional('pushSource', stream.name) : {}),
    online: spec.online ?? false
  }
}

function onDemandFeatureView (message: OnDemandFeatureViewMessage): FeatureViewResource | undefined {
  const spec = message.spec
  const common = base('OnDemandFeatureView', spec?.name, spec?.project, spec?.tags, spec?.description, spec?.owner)
  if (common === undefined || spec === undefined) return undefined
  return {
    ...common,
    features: names(spec.features),
    entities: Object.freeze([...(spec.entities ?? [])]),
    sources: Object.freeze(Object.keys(spec.sources ?? {}))
  }
}

function featureService (message: FeatureServiceMessage): FeatureServiceResource | undefined {
  const spec = message.spec
  const common = base('FeatureService', spec?.name, spec?.project, spec?.tags, spec?.description)
  if (common === undefined || spec === undefined) return undefined
  const projections = (spec.features ?? []).map((projection) => Object.freeze({
    featureView: projection.feature_view_name ?? '',
    ...optional('alias', projection.feature_view_name_alias),
    features: names(projection.feature_columns)
  }))
  return { ...common, projections: Object.freeze(projections) }
}

function savedDataset (message: SavedDatasetMessage): SavedDatasetResource | undefined {
  const spec = message.spec
  const common = base('SavedDataset', spec?.name, spec?.project, spec?.tags)
  if (common === undefined || spec === undefined) return undefined
  return { ...common, features: Object.freeze([...(spec.features ?? [])]), ...optional('featureService', spec.feature_service_name) }
}

function validationReference (message: ValidationReferenceMessage): ValidationReferenceResource | undefined {
  const common = base('ValidationReference', message.name, message.project, message.tags)
  return common === undefined ? undefined : { ...common, ...optional('referenceDataset', message.reference_dataset_name) }
}

function permissionResource (message: PermissionMessage): PermissionResource | undefined {
  const spec = message.spec
  return base('Permission', spec?.name, spec?.project, spec?.tags)
}

/** Feast marks push sources with `type: PUSH_SOURCE`; older registries only by class name. */
function isPushSource (source: DataSourceMessage): boolean {
  return source.type === PUSH_SOURCE_TYPE || (source.data_source_class_type ?? '').endsWith('.PushSource')
}

function names (features: readonly FeatureSpecMessage[] | undefined): readonly string[] {
  return Object.freeze((features ?? []).map((feature) => feature.name ?? '').filter((name) => name !== ''))
}

function tagsOf (tags: Tags | undefined): Tags {
  if (tags === undefined || Object.keys(tags).length === 0) return NO_TAGS
  // A null-prototype copy: a tag called `__proto__` is just a tag.
  return Object.freeze(Object.assign(Object.create(null) as Record<string, string>, tags))
}

function nonEmpty (value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}

function optional<K extends string> (key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined || value === '' ? {} : { [key]: value }) as { [P in K]?: string }
}
