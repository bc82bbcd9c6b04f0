/**
 * feast-authz/online: Feast's online reads without a web framework. The feature catalog (from the
 * registry YAML file or a Feast registry), the in-memory online store, the two steps of
 * get-online-features (`readTarget`, then `readFeatures` once the resources are allowed) and
 * `exactJson` to answer with. The reference server (`feast-authz/server`) is built on them, and so
 * can an Express app be: this entry loads neither `fastify` nor `fastify-plugin`, and its
 * declarations name no Fastify type. See docs/reference-server.md, "The same checks in Express".
 *
 * @example
 * ```ts
 * import { createOnlineStore, loadYamlCatalogFile, readFeatures, readTarget } from 'feast-authz/online'
 * const catalog = loadYamlCatalogFile('./registry.yaml')
 * const store = createOnlineStore(catalog)   // holds at most 64 MiB; { maxBytes } sets another bound
 * const target = readTarget(catalog, { features: ['driver_hourly_stats:conv_rate'], entities: { driver_id: [1001] } })
 * // ...check target.resources for READ_ONLINE, then:
 * const answer = readFeatures(target, store)   // at most 100,000 values; { maxAnsweredValues } sets another bound
 * ```
 */
export { loadYamlCatalogFile, parseYamlCatalog } from './catalog-yaml.ts'
export {
  emptyCatalog, catalogForProject, catalogFromSnapshot, entityColumnsOf, FEATURE_VIEW_KINDS,
  type EntityColumns, type FeatureCatalog, type FeatureRef, type FeatureServiceDef, type FeatureViewDef, type FeatureViewKind,
  type YamlCatalogSnapshot, type SampleRow
} from './catalog.ts'
export { catalogFromFeastRegistry } from './catalog-from-feast.ts'
export {
  readFeatures, readTarget,
  type EntityValue, type GetOnlineFeaturesBody, type OnlineFeaturesResponse, type ReadOptions, type ReadTarget
} from './online-read.ts'
export { createOnlineStore, type OnlineStore, type OnlineStoreOptions, type StoredRow, type ViewRows } from './online-store.ts'
export { exactJson } from './exact-json.ts'
