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
 *
 * The `oneof` groups of these messages are declared apart (`ONEOFS`): reading one member of a
 * group unsets the others, as protobuf does, so a message never holds two members of a group.
 */

/** Scalar field types, by their `.proto` names. Enums are read as their numbers (`enum`). */
type ScalarType = 'string' | 'bool' | 'int32' | 'int64' | 'enum'

/** One declared field: its number, its type (a scalar or a message of this schema), and its label. */
export interface FieldDescriptor {
  readonly no: number
  readonly type: ScalarType | MessageName
  /** `repeated` (a list), or `map` (`map<string, type>`). Absent: a singular field. */
  readonly label?: 'repeated' | 'map'
  /**
   * A map whose order Feast uses (its entries become a Python dict, which keeps the order they
   * come in): decoded as a `Map` in the order the file writes them. Other maps are looked up
   * only, and decode to null-prototype objects, which put keys named like integers (`"7"`) first.
   */
  readonly ordered?: true
}

const string = (no: number) => ({ no, type: 'string' }) as const
const bool = (no: number) => ({ no, type: 'bool' }) as const
const stringMap = (no: number) => ({ no, type: 'string', label: 'map' }) as const
const tags = stringMap
const message = <T extends string>(no: number, type: T) => ({ no, type }) as const
const list = <T extends string>(no: number, type: T) => ({ no, type, label: 'repeated' }) as const

/** The members of `DataSource`'s `oneof options`: one per kind of source. */
const DATA_SOURCE_OPTIONS = {
  file_options: 11,
  bigquery_options: 12,
  kafka_options: 13,
  kinesis_options: 14,
  redshift_options: 15,
  custom_options: 16,
  request_data_options: 18,
  snowflake_options: 19,
  push_options: 22,
  spark_options: 27,
  trino_options: 30,
  athena_options: 35
} as const

/** Fields declared as messages whose content is not read (`Unread`): numbered `members`. */
function unread<T extends Readonly<Record<string, number>>> (members: T): { readonly [K in keyof T]: { readonly no: T[K], readonly type: 'Unread' } } {
  return Object.fromEntries(Object.entries(members).map(([name, no]) => [name, { no, type: 'Unread' }])) as { readonly [K in keyof T]: { readonly no: T[K], readonly type: 'Unread' } }
}

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

  Entity: { spec: message(1, 'EntitySpecV2') },
  EntitySpecV2: { name: string(1), description: string(3), join_key: string(4), tags: tags(8), project: string(9), owner: string(10) },

  FeatureSpecV2: { name: string(1) },

  FeatureView: { spec: message(1, 'FeatureViewSpec'), meta: message(2, 'FeatureViewMeta') },
  // Only the lifecycle state: Feast serves a view online only in some states (resources.ts).
  FeatureViewMeta: { state: { no: 6, type: 'enum' } },
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

  StreamFeatureView: { spec: message(1, 'StreamFeatureViewSpec'), meta: message(2, 'FeatureViewMeta') },
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

  OnDemandFeatureView: { spec: message(1, 'OnDemandFeatureViewSpec'), meta: message(2, 'OnDemandFeatureViewMeta') },
  OnDemandFeatureViewMeta: { state: { no: 5, type: 'enum' } },
  OnDemandFeatureViewSpec: {
    name: string(1),
    project: string(2),
    features: list(3, 'FeatureSpecV2'),
    // The sources (each named by what it carries: see OnDemandSource), in the file's order: Feast
    // reads a view's sources in the order its dict keeps them. The keys are not used.
    sources: { no: 4, type: 'OnDemandSource', label: 'map', ordered: true },
    description: string(6),
    tags: tags(7),
    owner: string(8),
    write_to_online_store: bool(12),
    entities: { no: 13, type: 'string', label: 'repeated' },
    disabled: bool(19)
  },
  // Each source is known by the name it carries, as Feast's from_proto knows it (the map's key is
  // never read): of a projection (what Feast writes), the view it names, its alias and its
  // join_key_map; of a whole feature view (older Feast), its own name only, as it renames nothing.
  OnDemandSource: {
    feature_view: message(1, 'SourceFeatureView'),
    request_data_source: message(2, 'RequestSource'),
    feature_view_projection: message(3, 'FeatureViewProjection')
  },
  // A FeatureView given whole as an on-demand view's source: only its name (the rest is skipped,
  // so nothing else in an old file's embedded view can refuse it).
  SourceFeatureView: { spec: message(1, 'SourceFeatureViewSpec') },
  SourceFeatureViewSpec: { name: string(1) },
  // A DataSource as an on-demand view's request source: only the request data's field names
  // (Feast's RequestSource.from_proto reads `schema`, not the older `deprecated_schema`). Its
  // other options are declared only because a oneof is declared whole.
  RequestSource: {
    name: string(20),
    ...unread(DATA_SOURCE_OPTIONS),
    request_data_options: message(18, 'RequestDataOptions')
  },
  RequestDataOptions: { schema: list(3, 'FeatureSpecV2') },
  // A message whose content feast-authz does not read (its fields are skipped).
  Unread: {},

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
    feature_view_name_alias: string(3),
    // The view's join key → the `entities` column a read of the service takes it from.
    join_key_map: stringMap(4)
  },

  DataSource: {
    // DataSource.SourceType, read as a number (CUSTOM_SOURCE = 6, PUSH_SOURCE = 9) so unknown kinds still decode.
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
    // The policy_type oneof (see ONEOFS): at most one of these is set.
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

/** A message's `oneof` groups: group name → its members (member name → field number). */
type OneofGroups = Readonly<Record<string, Readonly<Record<string, number>>>>

/*
 * Every `oneof` of the messages above, with all its members as Feast's .proto files list them,
 * whether the schema declares them as fields or not. A group is declared whole or not at all:
 * were only some members declared, an undeclared member read after a declared one would be
 * skipped and leave the declared one set, where protobuf unsets it (checked when the descriptors
 * are built). Groups none of whose members are declared change nothing when decoding; they are
 * listed so that declaring one of their members cannot forget the group.
 * Not listed: proto3 `optional` fields, each alone in a hidden oneof with nothing to unset.
 */
const ONEOFS = {
  DataSource: { options: DATA_SOURCE_OPTIONS },
  // A DataSource read as an on-demand view's request source has the same options.
  RequestSource: { options: DATA_SOURCE_OPTIONS },
  FeatureTransformationV2: { transformation: { user_defined_function: 1, substrait_transformation: 2 } },
  OnDemandSource: { source: { feature_view: 1, request_data_source: 2, feature_view_projection: 3 } },
  ValidationReference: { profiler: { ge_profiler: 6 }, cached_profile: { ge_profile: 7 } },
  Policy: { policy_type: { role_based_policy: 3, group_based_policy: 4, namespace_based_policy: 5, combined_group_namespace_policy: 6 } }
} as const satisfies { readonly [N in MessageName]?: OneofGroups }

/** The members of `Policy`'s `oneof policy_type`: the kinds of policy a permission can have. */
export const POLICY_ONEOF = Object.freeze(Object.keys(ONEOFS.Policy.policy_type)) as readonly (keyof typeof ONEOFS.Policy.policy_type)[]

type ScalarValue<T> = T extends 'string' ? string : T extends 'bool' ? boolean : T extends 'int32' | 'int64' | 'enum' ? number : never
type Value<T> = T extends MessageName ? Message<T> : ScalarValue<T>
type FieldValue<F> = F extends { readonly label: 'map', readonly ordered: true, readonly type: infer T }
  ? ReadonlyMap<string, Value<T>>
  : F extends { readonly label: 'map', readonly type: infer T }
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

/** A declared field as the decoder finds it by number. */
export interface NumberedField {
  readonly name: string
  readonly field: FieldDescriptor
  /** For a member of a oneof: the other members, which reading this one unsets. */
  readonly oneofSiblings?: readonly string[]
}

/** A message's fields by name and by number, for the decoder and the encoder. */
export interface MessageDescriptor {
  readonly name: MessageName
  readonly byName: ReadonlyMap<string, FieldDescriptor>
  readonly byNumber: ReadonlyMap<number, NumberedField>
  /** The oneof groups whose members are declared: group name → member names. */
  readonly oneofs: ReadonlyMap<string, readonly string[]>
}

const descriptors = new Map<MessageName, MessageDescriptor>()
for (const [name, fields] of Object.entries(MESSAGES) as [MessageName, Record<string, FieldDescriptor>][]) {
  const groups: OneofGroups = (ONEOFS as { readonly [N in MessageName]?: OneofGroups })[name] ?? {}
  descriptors.set(name, describeMessage(name, fields, groups))
}

/**
 * The descriptor of a message from its fields and its oneof groups (exported for tests). Throws
 * when a group disagrees with the fields: a member at another number or under another name, a
 * repeated or map member, or a group only partly declared.
 */
export function describeMessage (name: MessageName, fields: Record<string, FieldDescriptor>, groups: OneofGroups): MessageDescriptor {
  const byName = new Map(Object.entries(fields))
  const oneofs = new Map<string, readonly string[]>()
  const siblings = new Map<string, readonly string[]>()
  for (const [group, members] of Object.entries(groups)) {
    const declared = declaredMembers(`${name}.${group}`, byName, members)
    if (declared.length === 0) continue
    oneofs.set(group, declared)
    for (const member of declared) siblings.set(member, Object.freeze(declared.filter((other) => other !== member)))
  }
  const byNumber = new Map<number, NumberedField>()
  for (const [fieldName, field] of byName) {
    const oneofSiblings = siblings.get(fieldName)
    byNumber.set(field.no, oneofSiblings === undefined ? { name: fieldName, field } : { name: fieldName, field, oneofSiblings })
  }
  return { name, byName, byNumber, oneofs }
}

/** The members of a oneof group that are declared fields; throws if the declarations disagree. */
function declaredMembers (where: string, fields: ReadonlyMap<string, FieldDescriptor>, members: Readonly<Record<string, number>>): string[] {
  const declared: string[] = []
  const missing: string[] = []
  for (const [member, no] of Object.entries(members)) {
    const field = fields.get(member)
    const other = field === undefined ? [...fields].find(([, declaredField]) => declaredField.no === no)?.[0] : undefined
    if (other !== undefined) throw new Error(`registry schema: ${where}: field ${no} is declared as ${other}, the oneof calls it ${member}`)
    if (field === undefined) { missing.push(member); continue }
    if (field.no !== no) throw new Error(`registry schema: ${where}: ${member} is field ${field.no}, the oneof says ${no}`)
    if (field.label !== undefined) throw new Error(`registry schema: ${where}: ${member} is a ${field.label} field, which a oneof cannot hold`)
    declared.push(member)
  }
  if (declared.length > 0 && missing.length > 0) {
    throw new Error(`registry schema: ${where}: declare every member of the oneof or none (${missing.join(', ')} not declared)`)
  }
  return declared
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

/** `DataSource.SourceType.CUSTOM_SOURCE`: Feast takes the class from `data_source_class_type`. */
export const CUSTOM_SOURCE_TYPE = 6
