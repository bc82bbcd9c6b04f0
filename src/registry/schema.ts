import { createRequire } from 'node:module'
import type protobuf from 'protobufjs'

// protobufjs loads on first use: a server whose feature_store.yaml names no registry never needs it.
const requireModule = createRequire(import.meta.url)

/*
 * The subset of Feast's `feast.core` messages that feast-authz reads from a registry file.
 *
 * Written for this project from the field numbers of Feast's public `protos/feast/core/*.proto`
 * (Registry, Project, Entity, FeatureView, OnDemandFeatureView, StreamFeatureView,
 * FeatureService, FeatureViewProjection, FeatureSpecV2, DataSource, SavedDataset,
 * ValidationReference, Permission, Policy). Only the fields we use are declared: protobuf
 * decoding skips every other field, so registries written by newer Feast versions still load.
 *
 * Field numbers confirmed by decoding the registries Feast's web UI ships (entities, feature
 * views, feature services, on-demand feature views, data sources, projects). Permission and
 * Policy numbers follow Feast's Permission.proto (spec 1..8, meta) and Policy.proto (oneof arms
 * 3..6 in declaration order); the UI registries hold no permissions, so the tests round-trip them.
 *
 * Not read: LabelView (Feast added `Registry.label_views` after the versions we could check; its
 * field number is not confirmed, and guessing one could misread another field), feature view
 * version history (Registry field 18), infra, and the deprecated project_metadata.
 */
const SCHEMA = `
syntax = "proto3";
package feast.core;

// google.protobuf.Timestamp, declared here so the schema is self-contained (same wire shape).
message Timestamp {
  int64 seconds = 1;
  int32 nanos = 2;
}

message Registry {
  repeated Entity entities = 1;
  string registry_schema_version = 3;
  string version_id = 4;
  Timestamp last_updated = 5;
  repeated FeatureView feature_views = 6;
  repeated FeatureService feature_services = 7;
  repeated OnDemandFeatureView on_demand_feature_views = 8;
  repeated SavedDataset saved_datasets = 11;
  repeated DataSource data_sources = 12;
  repeated ValidationReference validation_references = 13;
  repeated StreamFeatureView stream_feature_views = 14;
  repeated Permission permissions = 16;
  repeated Project projects = 17;
}

message Project {
  ProjectSpec spec = 1;
}
message ProjectSpec {
  string name = 1;
  string description = 2;
  map<string, string> tags = 3;
  string owner = 4;
}

message Entity {
  EntitySpecV2 spec = 1;
  // Where registries written before the project moved into the spec keep it.
  string project = 3;
}
message EntitySpecV2 {
  string name = 1;
  string description = 3;
  string join_key = 4;
  map<string, string> tags = 8;
  string project = 9;
}

message FeatureSpecV2 {
  string name = 1;
}

message FeatureView {
  FeatureViewSpec spec = 1;
}
message FeatureViewSpec {
  string name = 1;
  string project = 2;
  repeated string entities = 3;
  repeated FeatureSpecV2 features = 4;
  map<string, string> tags = 5;
  DataSource batch_source = 7;
  bool online = 8;
  DataSource stream_source = 9;
  string description = 10;
  string owner = 11;
}

message StreamFeatureView {
  StreamFeatureViewSpec spec = 1;
}
message StreamFeatureViewSpec {
  string name = 1;
  string project = 2;
  repeated string entities = 3;
  repeated FeatureSpecV2 features = 4;
  string description = 6;
  map<string, string> tags = 7;
  string owner = 8;
  DataSource batch_source = 10;
  DataSource stream_source = 11;
  bool online = 12;
}

message OnDemandFeatureView {
  OnDemandFeatureViewSpec spec = 1;
}
message OnDemandFeatureViewSpec {
  string name = 1;
  string project = 2;
  repeated FeatureSpecV2 features = 3;
  // Only the keys (source names) are read; the sources themselves are skipped.
  map<string, OnDemandSource> sources = 4;
  string description = 6;
  map<string, string> tags = 7;
  string owner = 8;
  repeated string entities = 13;
}
message OnDemandSource {
}

message FeatureService {
  FeatureServiceSpec spec = 1;
}
message FeatureServiceSpec {
  string name = 1;
  string project = 2;
  repeated FeatureViewProjection features = 3;
  map<string, string> tags = 4;
  string description = 5;
}
message FeatureViewProjection {
  string feature_view_name = 1;
  repeated FeatureSpecV2 feature_columns = 2;
  string feature_view_name_alias = 3;
}

message DataSource {
  // DataSource.SourceType, read as a number (PUSH_SOURCE = 9) so unknown kinds still decode.
  int32 type = 1;
  string data_source_class_type = 17;
  string name = 20;
  string project = 21;
  string description = 23;
  map<string, string> tags = 24;
  string owner = 25;
  DataSource batch_source = 26;
}

message SavedDataset {
  SavedDatasetSpec spec = 1;
}
message SavedDatasetSpec {
  string name = 1;
  string project = 2;
  repeated string features = 3;
  map<string, string> tags = 7;
  string feature_service_name = 8;
}

message ValidationReference {
  string name = 1;
  string reference_dataset_name = 2;
  string project = 3;
  map<string, string> tags = 4;
}

message Permission {
  PermissionSpec spec = 1;
}
message PermissionSpec {
  string name = 1;
  string project = 2;
  // PermissionSpec.Type and AuthzedAction, read as numbers: an unknown value is reported, not dropped.
  repeated int32 types = 3;
  repeated string name_patterns = 4;
  map<string, string> required_tags = 5;
  repeated int32 actions = 6;
  Policy policy = 7;
  map<string, string> tags = 8;
}

message Policy {
  string name = 1;
  string project = 2;
  oneof policy_type {
    RoleBasedPolicy role_based_policy = 3;
    GroupBasedPolicy group_based_policy = 4;
    NamespaceBasedPolicy namespace_based_policy = 5;
    CombinedGroupNamespacePolicy combined_group_namespace_policy = 6;
  }
}
message RoleBasedPolicy {
  repeated string roles = 1;
}
message GroupBasedPolicy {
  repeated string groups = 1;
}
message NamespaceBasedPolicy {
  repeated string namespaces = 1;
}
message CombinedGroupNamespacePolicy {
  repeated string groups = 1;
  repeated string namespaces = 2;
}
`

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

let registryType: protobuf.Type | undefined

/** The `feast.core.Registry` message type of our schema (parsed once, on first use). */
export function registryMessageType (): protobuf.Type {
  if (registryType === undefined) {
    const { parse } = requireModule('protobufjs') as typeof protobuf
    const { root } = parse(SCHEMA, { keepCase: true })
    root.resolveAll()
    registryType = root.lookupType('feast.core.Registry')
  }
  return registryType
}

/**
 * Serialises a registry given as a plain object in the schema's snake_case field names (enum
 * fields as numbers). For tests and tools that need a registry file; Feast writes the real ones.
 */
export function encodeRegistry (registry: Record<string, unknown>): Uint8Array {
  const type = registryMessageType()
  const problem = type.verify(registry)
  if (problem !== null) throw new TypeError(`not a valid feast.core.Registry: ${problem}`)
  return type.encode(type.fromObject(registry)).finish()
}
