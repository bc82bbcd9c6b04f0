/** The reference feature server (`feast-authz serve`, `npm start`); see docs/reference-server.md. */
export { buildReferenceServer, type ReferenceServerOptions } from './app.ts'
export { loadYamlCatalogFile, parseYamlCatalog } from './catalog-yaml.ts'
export {
  emptyCatalog, catalogForProject, catalogFromSnapshot, entityColumnsOf, FEATURE_VIEW_KINDS,
  type EntityColumns, type FeatureCatalog, type FeatureRef, type FeatureServiceDef, type FeatureViewDef, type FeatureViewKind,
  type YamlCatalogSnapshot, type SampleRow
} from './catalog.ts'
export { catalogFromFeastRegistry } from './catalog-from-feast.ts'
export {
  readFeatures, readTarget,
  type EntityValue, type GetOnlineFeaturesBody, type OnlineFeaturesResponse, type ReadTarget
} from './online-read.ts'
export { createOnlineStore, type OnlineStore, type StoredRow } from './online-store.ts'
export { exactJson } from './exact-json.ts'
