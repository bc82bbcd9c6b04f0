/** The reference feature server (`feast-authz serve`, `npm start`); see docs/reference-server.md. */
export { buildReferenceServer, type ReferenceServerOptions } from './app.ts'
export { loadYamlRegistryFile, parseRegistry } from './registry-yaml.ts'
export {
  emptyRegistry, registryForProject, registryFromSnapshot, FEATURE_VIEW_KINDS,
  type FeatureRegistry, type FeatureRef, type FeatureServiceDef, type FeatureViewDef, type FeatureViewKind, type YamlRegistrySnapshot, type SampleRow
} from './registry.ts'
export { featureRegistryFromFeast } from './feature-registry.ts'
