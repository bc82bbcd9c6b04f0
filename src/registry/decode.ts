import { registryMessageType } from './schema.ts'

/*
 * The decoded registry as plain objects, in the schema's snake_case names. Every field is
 * optional: proto3 omits defaults, and a registry may come from any Feast version.
 */

export type Tags = Readonly<Record<string, string>>

export interface TimestampMessage { readonly seconds?: number, readonly nanos?: number }
export interface FeatureSpecMessage { readonly name?: string }

export interface DataSourceMessage {
  readonly type?: number
  readonly data_source_class_type?: string
  readonly name?: string
  readonly project?: string
  readonly description?: string
  readonly tags?: Tags
  readonly owner?: string
  readonly batch_source?: DataSourceMessage
}

export interface ProjectMessage { readonly spec?: { readonly name?: string, readonly description?: string, readonly tags?: Tags, readonly owner?: string } }

export interface EntityMessage {
  readonly spec?: { readonly name?: string, readonly description?: string, readonly join_key?: string, readonly tags?: Tags, readonly project?: string }
  readonly project?: string
}

export interface FeatureViewMessage {
  readonly spec?: {
    readonly name?: string
    readonly project?: string
    readonly entities?: readonly string[]
    readonly features?: readonly FeatureSpecMessage[]
    readonly tags?: Tags
    readonly batch_source?: DataSourceMessage
    readonly stream_source?: DataSourceMessage
    readonly online?: boolean
    readonly description?: string
    readonly owner?: string
  }
}

export interface OnDemandFeatureViewMessage {
  readonly spec?: {
    readonly name?: string
    readonly project?: string
    readonly features?: readonly FeatureSpecMessage[]
    readonly sources?: Readonly<Record<string, unknown>>
    readonly description?: string
    readonly tags?: Tags
    readonly owner?: string
    readonly entities?: readonly string[]
  }
}

export interface FeatureViewProjectionMessage {
  readonly feature_view_name?: string
  readonly feature_columns?: readonly FeatureSpecMessage[]
  readonly feature_view_name_alias?: string
}

export interface FeatureServiceMessage {
  readonly spec?: {
    readonly name?: string
    readonly project?: string
    readonly features?: readonly FeatureViewProjectionMessage[]
    readonly tags?: Tags
    readonly description?: string
  }
}

export interface SavedDatasetMessage {
  readonly spec?: { readonly name?: string, readonly project?: string, readonly features?: readonly string[], readonly tags?: Tags, readonly feature_service_name?: string }
}

export interface ValidationReferenceMessage {
  readonly name?: string
  readonly reference_dataset_name?: string
  readonly project?: string
  readonly tags?: Tags
}

export interface PolicyMessage {
  readonly role_based_policy?: { readonly roles?: readonly string[] }
  readonly group_based_policy?: { readonly groups?: readonly string[] }
  readonly namespace_based_policy?: { readonly namespaces?: readonly string[] }
  readonly combined_group_namespace_policy?: { readonly groups?: readonly string[], readonly namespaces?: readonly string[] }
}

export interface PermissionMessage {
  readonly spec?: {
    readonly name?: string
    readonly project?: string
    readonly types?: readonly number[]
    readonly name_patterns?: readonly string[]
    readonly required_tags?: Tags
    readonly actions?: readonly number[]
    readonly policy?: PolicyMessage
    readonly tags?: Tags
  }
}

export interface RegistryMessage {
  readonly entities?: readonly EntityMessage[]
  readonly registry_schema_version?: string
  readonly version_id?: string
  readonly last_updated?: TimestampMessage
  readonly feature_views?: readonly FeatureViewMessage[]
  readonly feature_services?: readonly FeatureServiceMessage[]
  readonly on_demand_feature_views?: readonly OnDemandFeatureViewMessage[]
  readonly saved_datasets?: readonly SavedDatasetMessage[]
  readonly data_sources?: readonly DataSourceMessage[]
  readonly validation_references?: readonly ValidationReferenceMessage[]
  readonly stream_feature_views?: readonly FeatureViewMessage[]
  readonly permissions?: readonly PermissionMessage[]
  readonly projects?: readonly ProjectMessage[]
}

/**
 * Decodes a serialized `feast.core.Registry`. Throws an Error saying why the bytes are not
 * one (truncated, bad wire type, ...); an empty buffer is refused too, because it decodes
 * to an empty registry that would otherwise mean "no permissions".
 */
export function decodeRegistry (bytes: Uint8Array): RegistryMessage {
  if (bytes.length === 0) throw new Error('the file is empty (a Feast registry file is never empty)')
  const type = registryMessageType()
  let message
  try {
    message = type.decode(bytes)
  } catch (error) {
    // protobufjs says "index out of range: 120 + 10 > 125" for a truncated file, which is the common case.
    const reason = error instanceof RangeError && /call stack/i.test(error.message)
      ? 'it nests messages too deeply'
      : (error as Error).message
    throw new Error(`not a serialized feast.core.Registry (${reason})`, { cause: error })
  }
  return type.toObject(message, { longs: Number, defaults: false, arrays: true, objects: true }) as RegistryMessage
}
