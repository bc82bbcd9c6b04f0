/**
 * Writes registry files the way Feast does, independently of feast-authz's own schema and encoder:
 * protobufjs loads `feast-core.proto` (written from the field numbers of Feast's `.proto` files),
 * enums are given by their Feast names, and fields come out in field-number order. Also raw
 * protobuf pieces (tags, varints, length-delimited fields) for files Feast would never write.
 */
import assert from 'node:assert/strict'
import protobuf from 'protobufjs'

const PROTO = new URL('./feast-core.proto', import.meta.url).pathname
let registryType: protobuf.Type | undefined

function feastRegistryType (): protobuf.Type {
  if (registryType === undefined) {
    const root = new protobuf.Root().loadSync(PROTO, { keepCase: true })
    root.resolveAll()
    registryType = root.lookupType('feast.core.Registry')
  }
  return registryType
}

/** Serialises a `feast.core.Registry` given as a plain object with Feast's snake_case field names. */
export function writeFeastRegistry (registry: Record<string, unknown>): Uint8Array {
  const type = feastRegistryType()
  checkFieldNames(type, registry, 'Registry')
  const message = type.fromObject(registry)
  const problem = type.verify(message)
  if (problem !== null) throw new TypeError(`not a feast.core.Registry: ${problem}`)
  return type.encode(message).finish()
}

/** protobufjs ignores unknown keys; a misspelt field in a test registry must not go unnoticed. */
function checkFieldNames (type: protobuf.Type, value: unknown, path: string): void {
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value) || Array.isArray(value)) return
  for (const [key, fieldValue] of Object.entries(value)) {
    const field = type.fields[key] ?? assert.fail(`${path}: ${type.name} has no field ${key}`)
    const child = field.resolvedType
    if (!(child instanceof protobuf.Type)) continue
    if (field.map) for (const [mapKey, item] of Object.entries(fieldValue as object)) checkFieldNames(child, item, `${path}.${key}[${mapKey}]`)
    else if (field.repeated) (fieldValue as unknown[]).forEach((item, i) => { checkFieldNames(child, item, `${path}.${key}[${i}]`) })
    else checkFieldNames(child, fieldValue, `${path}.${key}`)
  }
}

/** Raw protobuf pieces, to build the files Feast would never write. */
export const wire = {
  varint (value: number | bigint): number[] {
    let big = BigInt.asUintN(64, BigInt(value))
    const out: number[] = []
    while (big > 0x7fn) { out.push(Number(big & 0x7fn) | 0x80); big >>= 7n }
    out.push(Number(big))
    return out
  },
  tag (field: number, wireType: number): number[] {
    return wire.varint(field * 8 + wireType)
  },
  /** A length-delimited field (wire type 2). */
  bytes (field: number, body: readonly number[] | Uint8Array): number[] {
    return [...wire.tag(field, 2), ...wire.varint(body.length), ...body]
  },
  string (field: number, value: string): number[] {
    return wire.bytes(field, [...Buffer.from(value, 'utf8')])
  }
}

const timestamp = { seconds: 1767225600, nanos: 5000 }
const meta = { created_timestamp: timestamp, last_updated_timestamp: timestamp }
const fileSource = (name: string): Record<string, unknown> => ({
  type: 'BATCH_FILE',
  timestamp_field: 'event_timestamp',
  file_options: { uri: `data/${name}.parquet` },
  data_source_class_type: 'feast.infra.offline_stores.file_source.FileSource',
  name,
  project: 'fraud'
})
const features = (...names: string[]): Array<Record<string, unknown>> => names.map((name) => ({ name, value_type: 6 }))

/**
 * A registry with every kind of object Feast 0.66 stores, in two projects (`fraud`, `risk`):
 * projects (and the deprecated project_metadata Feast still writes), an entity, file, push and
 * request sources, feature views (one with a transformation: a batch feature view; one disabled;
 * one offline only), a stream feature view, on-demand feature views, a label view, a feature
 * service, a saved dataset, a validation reference with a description, permissions with every
 * policy type, and the infra and version history that feast-authz skips.
 */
export function everyKindRegistry (): Record<string, unknown> {
  const chargebackPush = { type: 'PUSH_SOURCE', data_source_class_type: 'feast.data_source.PushSource', name: 'chargeback_push', project: 'fraud', batch_source: fileSource('chargebacks') }
  return {
    entities: [{ spec: { name: 'user', value_type: 2, description: 'a customer', join_key: 'user_id', tags: { pii: 'true' }, project: 'fraud', owner: 'risk@example.com' }, meta }],
    registry_schema_version: '1',
    version_id: 'every-kind-1',
    last_updated: timestamp,
    feature_views: [
      {
        spec: {
          name: 'user_stats',
          project: 'fraud',
          entities: ['user'],
          features: features('txn_count_7d', 'avg_amount_7d'),
          tags: { team: 'fraud', tier: 'gold' },
          ttl: { seconds: 86400 },
          batch_source: fileSource('user_stats_source'),
          online: true,
          description: 'spending per user',
          owner: 'fraud@example.com',
          entity_columns: [{ name: 'user_id', value_type: 2 }],
          offline: true
        },
        meta: { ...meta, materialization_intervals: [{ start_time: timestamp, end_time: timestamp }] }
      },
      {
        spec: {
          name: 'user_stats_batch',
          project: 'fraud',
          entities: ['user'],
          features: features('amount_zscore'),
          tags: { team: 'fraud', kind: 'batch' },
          batch_source: fileSource('user_stats_source'),
          online: true,
          feature_transformation: { user_defined_function: { name: 'zscore', body: [1, 2, 3], body_text: 'def zscore(df): ...', mode: 'pandas' } },
          mode: 'pandas'
        },
        meta
      },
      {
        spec: { name: 'user_stats_legacy', project: 'fraud', entities: ['user'], features: features('old_score'), tags: { team: 'fraud' }, batch_source: fileSource('user_stats_source'), online: true, disabled: true },
        meta
      },
      {
        spec: { name: 'user_history', project: 'fraud', entities: ['user'], features: features('first_seen'), batch_source: fileSource('user_stats_source'), online: false, offline: true },
        // Generated offline, not materialized yet: Feast's lifecycle state, which it does not serve online.
        meta: { ...meta, state: 'GENERATED' }
      }
    ],
    feature_services: [{
      spec: {
        name: 'fraud_model',
        project: 'fraud',
        features: [
          { feature_view_name: 'user_stats', feature_columns: features('txn_count_7d') },
          { feature_view_name: 'amount_ratio', feature_columns: features('ratio'), feature_view_name_alias: 'ratio_view', join_key_map: { user_id: 'customer_id' } }
        ],
        tags: { stage: 'prod' },
        description: 'the fraud model',
        owner: 'fraud@example.com'
      },
      meta
    }],
    on_demand_feature_views: [
      {
        spec: {
          name: 'amount_ratio',
          project: 'fraud',
          features: features('ratio'),
          sources: {
            // Read as customer_stats, its join key taken from customer_id (Feast's
            // user_stats.with_name('customer_stats').with_join_key_map(...) given as a source).
            user_stats: {
              feature_view_projection: {
                feature_view_name: 'user_stats', feature_view_name_alias: 'customer_stats', feature_columns: features('avg_amount_7d'), join_key_map: { user_id: 'customer_id' }
              }
            },
            request_amount: { request_data_source: { type: 'REQUEST_SOURCE', name: 'request_amount', project: 'fraud', request_data_options: { schema: features('amount') } } }
          },
          description: 'amount over the weekly average',
          tags: { team: 'fraud', odfv: 'yes' },
          owner: 'fraud@example.com',
          feature_transformation: { user_defined_function: { name: 'ratio', body: [4, 5], body_text: 'def ratio(df): ...' } },
          mode: 'pandas',
          write_to_online_store: true,
          entities: ['user']
        },
        meta
      },
      {
        spec: {
          name: 'amount_check',
          project: 'fraud',
          features: features('suspicious'),
          sources: { request_amount: { request_data_source: { type: 'REQUEST_SOURCE', name: 'request_amount', project: 'fraud' } } },
          tags: { team: 'fraud' },
          mode: 'python',
          disabled: true
        },
        meta
      }
    ],
    infra: { infra_objects: [{ infra_object_class_type: 'feast.infra.online_stores.sqlite.SqliteTable' }] },
    saved_datasets: [{ spec: { name: 'training_set', project: 'fraud', features: ['user_stats:txn_count_7d'], join_keys: ['user_id'], full_feature_names: true, tags: { purpose: 'training' }, feature_service_name: 'fraud_model', description: 'the training set' }, meta }],
    data_sources: [
      { ...fileSource('user_stats_source'), tags: { format: 'parquet' }, owner: 'data@example.com', description: 'daily export' },
      { type: 'PUSH_SOURCE', data_source_class_type: 'feast.data_source.PushSource', name: 'user_push', project: 'fraud', push_options: {}, tags: { ingest: 'push' }, batch_source: fileSource('user_stats_source') },
      { type: 'REQUEST_SOURCE', data_source_class_type: 'feast.data_source.RequestSource', name: 'request_amount', project: 'fraud', request_data_options: { schema: features('amount') } },
      chargebackPush
    ],
    validation_references: [{
      name: 'training_profile',
      reference_dataset_name: 'training_set',
      project: 'fraud',
      description: 'expectations for the training set',
      tags: { checked_by: 'great_expectations' },
      ge_profiler: { profiler: { body: [9, 9, 9] } }
    }],
    stream_feature_views: [{
      spec: {
        name: 'user_stream',
        project: 'fraud',
        entities: ['user'],
        features: features('txn_count_10m'),
        description: 'live spending',
        tags: { team: 'fraud', kind: 'stream' },
        owner: 'fraud@example.com',
        ttl: { seconds: 600 },
        batch_source: fileSource('user_stats_source'),
        stream_source: { type: 'PUSH_SOURCE', data_source_class_type: 'feast.data_source.PushSource', name: 'user_push', project: 'fraud', batch_source: fileSource('user_stats_source') },
        online: true,
        mode: 'spark',
        timestamp_field: 'event_timestamp'
      },
      meta
    }],
    project_metadata: [{ project: 'fraud', project_uuid: '3f1c0d2e-0000-4000-8000-000000000001' }, { project: 'risk', project_uuid: '3f1c0d2e-0000-4000-8000-000000000002' }],
    permissions: [
      {
        spec: {
          name: 'analysts-read',
          project: 'fraud',
          types: ['FEATURE_VIEW', 'ON_DEMAND_FEATURE_VIEW', 'FEATURE_SERVICE'],
          name_patterns: ['user_.*', 'amount_.*'],
          required_tags: { team: 'fraud' },
          actions: ['DESCRIBE', 'READ_ONLINE', 'READ_OFFLINE'],
          policy: { role_based_policy: { roles: ['analyst', 'auditor'] } },
          tags: { managed_by: 'platform' }
        },
        meta
      },
      {
        spec: {
          name: 'batch-writers',
          project: 'fraud',
          types: ['BATCH_FEATURE_VIEW'],
          actions: ['WRITE_ONLINE', 'WRITE_OFFLINE'],
          policy: { group_based_policy: { groups: ['etl'] } }
        },
        meta
      },
      {
        spec: {
          name: 'labelers',
          project: 'fraud',
          types: ['LABEL_VIEW'],
          name_patterns: ['fraud_.*'],
          actions: ['DESCRIBE', 'UPDATE'],
          policy: { namespace_based_policy: { namespaces: ['labeling'] } }
        },
        meta
      },
      {
        spec: {
          name: 'platform-admins',
          project: 'fraud',
          types: [],
          actions: ['CREATE', 'DESCRIBE', 'UPDATE', 'DELETE', 'READ_ONLINE', 'READ_OFFLINE', 'WRITE_ONLINE', 'WRITE_OFFLINE'],
          policy: { combined_group_namespace_policy: { groups: ['platform'], namespaces: ['feast-system'] } }
        },
        meta
      },
      {
        spec: {
          name: 'risk-readers',
          project: 'risk',
          types: ['PROJECT', 'ENTITY', 'DATA_SOURCE', 'VALIDATION_REFERENCE', 'SAVED_DATASET', 'PERMISSION', 'STREAM_FEATURE_VIEW'],
          actions: ['DESCRIBE'],
          policy: { role_based_policy: { roles: ['risk'] } }
        },
        meta
      }
    ],
    projects: [
      { spec: { name: 'fraud', description: 'fraud detection', tags: { domain: 'payments' }, owner: 'fraud@example.com' }, meta },
      { spec: { name: 'risk' }, meta }
    ],
    feature_view_version_history: { records: [{ feature_view_name: 'user_stats', project_id: 'fraud', version_number: 2 }] },
    label_views: [{
      spec: {
        name: 'fraud_labels',
        project: 'fraud',
        entities: ['user'],
        features: features('is_fraud'),
        tags: { team: 'fraud', kind: 'labels' },
        ttl: { seconds: 3600 },
        source: fileSource('fraud_labels_source'),
        online: true,
        description: 'confirmed fraud cases',
        owner: 'investigations@example.com',
        entity_columns: [{ name: 'user_id', value_type: 2 }],
        labeler_field: 'analyst',
        conflict_policy: 1,
        reference_feature_view: 'user_stats'
      },
      meta
    }, {
      // Labels arrive by push (Feast's usual set-up): POST /push to chargeback_push writes here.
      spec: { name: 'chargeback_labels', project: 'fraud', entities: ['user'], features: features('charged_back'), source: chargebackPush, online: true },
      meta
    }]
  }
}
