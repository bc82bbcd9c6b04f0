/*
 * The subset of Feast's `feast.core` messages that feast-authz reads from a registry file: the one
 * declaration of the wire format. The decoder (`decode.ts`) and the encoder (`encode.ts`) are
 * driven by it, and the TypeScript shape of every decoded message (`Message<'FeatureViewSpec'>`)
 * is derived from it, so a field changes in one place only.
 *
 * Written for this project from the field numbers of Feast's public `protos/feast/core/*.proto`
 * (Feast 0.66): Registry, Project, Entity, FeatureView, StreamFeatureView, OnDemandFeatureView,
 * LabelView, FeatureService, FeatureViewProjection, FeatureSpecV2, DataSource, SavedDataset,
 * ValidationProfile (ValidationReference), Permission, Policy. Only the fields we use are declared:
 * every other field is skipped, so registries written by newer Feast versions still load.
 *
 * Not read: feature view version history (Registry 18), infra (10), feature tables (2).
 */

/** Scalar field types, by their `.proto` names. Enums are read as their numbers (`enum`). */
type ScalarType = 'string' | 'bool' | 'int32' | 'int64' | 'enum'

/** One declared field: its number, its type (a scalar or a message of this schema), and its label. */
export interface FieldDescriptor {
  readonly no: number
  readonly type: ScalarType | MessageName
  /** `repeated` (a list), or `map` (`map<string, type>`). Absent: a singular field. */
  readonly label?: 'repeated' | 'map'
}

const string = (no: number) => ({ no, type: 'string' }) as const
const bool = (no: number) => ({ no, type: 'bool' }) as const
const tags = (no: number) => ({ no, type: 'string', label: 'map' }) as const
const message = <T extends string>(no: number, type: T) => ({ no, type }) as const
const list = <T extends string>(no: number, type: T) => ({ no, type, label: 'repeated' }) as const

const MESSAGES = {
  // google.protobuf.Timestamp, declared here so the schema is self-contained (same wire shape).
  Timestamp: { seconds: { no: 1, type: 'int64' }, nanos: { no: 2, type: 'int32' } },

  Registry: {
    entities: list(1, 'Entity'),
    registry_schema_version: string(3),
    version_id: string(4),
    last_updated: message(5, 'Timestamp'),
    feature_views: list(6, 'FeatureView'),
    feature_services: list(7, 'FeatureService'),
    on_demand_feature_views: list(8, 'OnDemandFeatureView'),
    saved_datasets: list(11, 'SavedDataset'),
    data_sources: list(12, 'DataSource'),
    validation_references: list(13, 'ValidationReference'),
    stream_feature_views: list(14, 'StreamFeatureView'),
    // Deprecated since Feast 0.41: read only to tell an old registry from a garbage one.
    project_metadata: list(15, 'ProjectMetadata'),
    permissions: list(16, 'Permission'),
    projects: list(17, 'Project'),
    label_views: list(19, 'LabelView')
  },
  ProjectMetadata: { project: string(1) },

  Project: { spec: message(1, 'ProjectSpec') },
  ProjectSpec: { name: string(1), description: string(2), tags: tags(3), owner: string(4) },

  Entity: {
    spec: message(1, 'EntitySpecV2'),
    // Where registries written before the project moved into the spec keep it.
    project: string(3)
  },
  EntitySpecV2: { name: string(1), description: string(3), join_key: string(4), tags: tags(8), project: string(9), owner: string(10) },

  FeatureSpecV2: { name: string(1) },

  FeatureView: { spec: message(1, 'FeatureViewSpec') },
  FeatureViewSpec: {
    name: string(1),
    project: string(2),
    entities: { no: 3, type: 'string', label: 'repeated' },
    features: list(4, 'FeatureSpecV2'),
    tags: tags(5),
    batch_source: message(7, 'DataSource'),
    online: bool(8),
    stream_source: message(9, 'DataSource'),
    description: string(10),
    owner: string(11),
    // Written to the offline store: Feast materializes a named view that is not online when this is set.
    offline: bool(13),
    // Only its presence is read: Feast loads a feature view with a transformation as a BatchFeatureView.
    feature_transformation: message(15, 'FeatureTransformationV2'),
    disabled: bool(20)
  },
  FeatureTransformationV2: {},

  StreamFeatureView: { spec: message(1, 'StreamFeatureViewSpec') },
  StreamFeatureViewSpec: {
    name: string(1),
    project: string(2),
    entities: { no: 3, type: 'string', label: 'repeated' },
    features: list(4, 'FeatureSpecV2'),
    description: string(6),
    tags: tags(7),
    owner: string(8),
    batch_source: message(10, 'DataSource'),
    stream_source: message(11, 'DataSource'),
    online: bool(12),
    disabled: bool(23)
  },

  OnDemandFeatureView: { spec: message(1, 'OnDemandFeatureViewSpec') },
  OnDemandFeatureViewSpec: {
    name: string(1),
    project: string(2),
    features: list(3, 'FeatureSpecV2'),
    // Only the keys (source names) are read; the sources themselves are skipped.
    sources: { no: 4, type: 'OnDemandSource', label: 'map' },
    description: string(6),
    tags: tags(7),
    owner: string(8),
    write_to_online_store: bool(12),
    entities: { no: 13, type: 'string', label: 'repeated' },
    disabled: bool(19)
  },
  OnDemandSource: {},

  LabelView: { spec: message(1, 'LabelViewSpec') },
  LabelViewSpec: {
    name: string(1),
    project: string(2),
    entities: { no: 3, type: 'string', label: 'repeated' },
    features: list(4, 'FeatureSpecV2'),
    tags: tags(5),
    source: message(7, 'DataSource'),
    online: bool(8),
    description: string(9),
    owner: string(10)
  },

  FeatureService: { spec: message(1, 'FeatureServiceSpec') },
  FeatureServiceSpec: {
    name: string(1),
    project: string(2),
    features: list(3, 'FeatureViewProjection'),
    tags: tags(4),
    description: string(5),
    owner: string(6)
  },
  FeatureViewProjection: {
    feature_view_name: string(1),
    feature_columns: list(2, 'FeatureSpecV2'),
    feature_view_name_alias: string(3)
  },

  DataSource: {
    // DataSource.SourceType, read as a number (PUSH_SOURCE = 9) so unknown kinds still decode.
    type: { no: 1, type: 'enum' },
    data_source_class_type: string(17),
    name: string(20),
    project: string(21),
    description: string(23),
    tags: tags(24),
    owner: string(25),
    batch_source: message(26, 'DataSource')
  },

  SavedDataset: { spec: message(1, 'SavedDatasetSpec') },
  SavedDatasetSpec: {
    name: string(1),
    project: string(2),
    features: { no: 3, type: 'string', label: 'repeated' },
    tags: tags(7),
    feature_service_name: string(8),
    description: string(11)
  },

  ValidationReference: {
    name: string(1),
    reference_dataset_name: string(2),
    project: string(3),
    description: string(4),
    tags: tags(5)
  },

  Permission: { spec: message(1, 'PermissionSpec') },
  PermissionSpec: {
    name: string(1),
    project: string(2),
    // PermissionSpec.Type and AuthzedAction, read as numbers: an unknown value is reported, not dropped.
    types: { no: 3, type: 'enum', label: 'repeated' },
    name_patterns: { no: 4, type: 'string', label: 'repeated' },
    required_tags: tags(5),
    actions: { no: 6, type: 'enum', label: 'repeated' },
    policy: message(7, 'Policy'),
    tags: tags(8)
  },
  Policy: {
    name: string(1),
    project: string(2),
    // The policy_type oneof.
    role_based_policy: message(3, 'RoleBasedPolicy'),
    group_based_policy: message(4, 'GroupBasedPolicy'),
    namespace_based_policy: message(5, 'NamespaceBasedPolicy'),
    combined_group_namespace_policy: message(6, 'CombinedGroupNamespacePolicy')
  },
  RoleBasedPolicy: { roles: { no: 1, type: 'string', label: 'repeated' } },
  GroupBasedPolicy: { groups: { no: 1, type: 'string', label: 'repeated' } },
  NamespaceBasedPolicy: { namespaces: { no: 1, type: 'string', label: 'repeated' } },
  CombinedGroupNamespacePolicy: {
    groups: { no: 1, type: 'string', label: 'repeated' },
    namespaces: { no: 2, type: 'string', label: 'repeated' }
  }
} as const

type Schema = typeof MESSAGES

/** The name of a message of the schema. */
export type MessageName = keyof Schema

/** Names of the message groups Feast's `oneof policy_type` chooses between, in `Policy`. */
export const POLICY_ONEOF = ['role_based_policy', 'group_based_policy', 'namespace_based_policy', 'combined_group_namespace_policy'] as const

type ScalarValue<T> = T extends 'string' ? string : T extends 'bool' ? boolean : T extends 'int32' | 'int64' | 'enum' ? number : never
type Value<T> = T extends MessageName ? Message<T> : ScalarValue<T>
type FieldValue<F> = F extends { readonly label: 'map', readonly type: infer T }
  ? Readonly<Record<string, Value<T>>>
  : F extends { readonly label: 'repeated', readonly type: infer T }
    ? readonly Value<T>[]
    : F extends { readonly type: infer T } ? Value<T> : never

/**
 * A decoded message, as a plain object with the `.proto` snake_case field names. Every field is
 * optional: proto3 omits defaults, and a registry may come from any Feast version.
 */
export type Message<N extends MessageName> = { readonly [K in keyof Schema[N]]?: FieldValue<Schema[N][K]> }

/** A decoded `feast.core.Registry`. */
export type RegistryMessage = Message<'Registry'>

/** Tags (`map<string, string>`) as decoded: a null-prototype object. */
export type Tags = Readonly<Record<string, string>>

/** A message's fields by name and by number, for the decoder and the encoder. */
export interface MessageDescriptor {
  readonly name: MessageName
  readonly byName: ReadonlyMap<string, FieldDescriptor>
  readonly byNumber: ReadonlyMap<number, { readonly name: string, readonly field: FieldDescriptor }>
}

const descriptors = new Map<MessageName, MessageDescriptor>()
for (const [name, fields] of Object.entries(MESSAGES) as [MessageName, Record<string, FieldDescriptor>][]) {
  const byName = new Map<string, FieldDescriptor>()
  const byNumber = new Map<number, { name: string, field: FieldDescriptor }>()
  for (const [fieldName, field] of Object.entries(fields)) {
    byName.set(fieldName, field)
    byNumber.set(field.no, { name: fieldName, field })
  }
  descriptors.set(name, { name, byName, byNumber })
}

/** The descriptor of the message `name`. */
export function messageDescriptor (name: MessageName): MessageDescriptor {
  const found = descriptors.get(name)
  if (found === undefined) throw new Error(`no message ${name} in the registry schema`)
  return found
}

/** Whether `type` names a message of the schema (rather than a scalar). */
export function isMessageType (type: FieldDescriptor['type']): type is MessageName {
  return descriptors.has(type as MessageName)
}

/** `PermissionSpec.Type` numbers → our resource type names (Feast's class names). */
export const PERMISSION_TYPE_NUMBERS = [
  'FeatureView', 'OnDemandFeatureView', 'BatchFeatureView', 'StreamFeatureView', 'Entity', 'FeatureService',
  'DataSource', 'ValidationReference', 'SavedDataset', 'Permission', 'Project', 'LabelView'
] as const

/** `PermissionSpec.AuthzedAction` numbers → action names. */
export const ACTION_NUMBERS = [
  'CREATE', 'DESCRIBE', 'UPDATE', 'DELETE', 'READ_ONLINE', 'READ_OFFLINE', 'WRITE_ONLINE', 'WRITE_OFFLINE'
] as const

/** `DataSource.SourceType.PUSH_SOURCE`. */
export const PUSH_SOURCE_TYPE = 9
