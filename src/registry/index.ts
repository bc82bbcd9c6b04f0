import { readFeatureStoreFile, type FeatureStoreFile, type FeatureStoreSource } from '../config/feature-store-file.ts'
import { namesFeastRegistry, readRegistrySetting } from './config.ts'
import { openFeastRegistry, type FeastRegistry, type FeastRegistryOptions } from './feast-registry.ts'

export { DEFAULT_CACHE_TTL_SECONDS, readRegistrySetting, readRegistryYamlFile, type RegistrySetting } from './config.ts'
export { loadRegistryFile, openFeastRegistry, UNKNOWN_PROJECT_PERMISSIONS, type FeastRegistry, type FeastRegistryOptions, type RefreshOutcome, type RegistryFileState } from './feast-registry.ts'
export type { ProjectPermission } from './permissions.ts'
export type {
  DataSourceResource, EntityResource, FeatureServiceResource, FeatureViewProjection, FeatureViewResource, FeatureViewType, LabelViewResource,
  PermissionResource, ProjectResource, RegistryResource, SavedDatasetResource, ValidationReferenceResource
} from './resources.ts'
export type { RegistryProject, RegistrySnapshot } from './snapshot.ts'
// The errors this entry raises (a registry file or setting that cannot be used) and their base, and
// the parsed file its readers take and return: so that code built on the registry, the reference
// server's catalog included, needs no other entry for them (the root one is the Fastify plugin).
// OptionError too, which the reference server's online store raises for a bad option.
export { FeastAuthzError, OptionError } from '../base/errors.ts'
export { ConfigError } from '../config/errors.ts'
export type { FeatureStoreFile } from '../config/feature-store-file.ts'

/**
 * Opens the Feast registry a feature_store.yaml names (`registry` and `project`), or returns
 * undefined when it names none (no `registry`, or a `.yaml`/`.yml` path: the reference server's
 * own catalog format). The plugin and the reference server both decide here. Throws a ConfigError for an unsupported registry type and for a registry
 * that cannot be used at startup (see `openFeastRegistry`).
 */
export function openRegistryFromConfig (
  config: FeatureStoreSource | FeatureStoreFile,
  options: Omit<FeastRegistryOptions, 'path' | 'project' | 'cacheTtlSeconds'> & { readonly cwd?: string } = {}
): FeastRegistry | undefined {
  const file = isFeatureStoreFile(config) ? config : readFeatureStoreFile(config)
  const setting = namesFeastRegistry(file) ? readRegistrySetting(file, options.cwd) : undefined
  if (setting === undefined) return undefined
  const { cwd: _cwd, ...rest } = options
  return openFeastRegistry({ ...rest, path: setting.path, project: setting.project, cacheTtlSeconds: setting.cacheTtlSeconds })
}

function isFeatureStoreFile (value: unknown): value is FeatureStoreFile {
  return typeof value === 'object' && value !== null && typeof (value as { locate?: unknown }).locate === 'function' &&
    typeof (value as { data?: unknown }).data === 'object'
}
