import { readFeatureStoreFile, type FeatureStoreFile, type FeatureStoreSource } from '../config/feature-store-file.ts'
import { readRegistrySetting } from './config.ts'
import { openFeastRegistry, type FeastRegistry, type FeastRegistryOptions } from './feast-registry.ts'

export { DEFAULT_CACHE_TTL_SECONDS, readRegistrySetting, type RegistrySetting } from './config.ts'
export { loadRegistryFile, openFeastRegistry, UNKNOWN_PROJECT_PERMISSIONS, type FeastRegistry, type FeastRegistryOptions, type RefreshOutcome } from './feast-registry.ts'
export type { ProjectPermission } from './permissions.ts'
export type {
  DataSourceResource, EntityResource, FeatureServiceResource, FeatureViewProjection, FeatureViewResource, FeatureViewType, LabelViewResource,
  PermissionResource, ProjectResource, RegistryResource, SavedDatasetResource, ValidationReferenceResource
} from './resources.ts'
export { encodeRegistry } from './encode.ts'
export type { RegistryProject, RegistrySnapshot } from './snapshot.ts'

/**
 * Opens the registry a feature_store.yaml names (`registry` and `project`), or returns undefined
 * when it names none. Throws a ConfigError for an unsupported registry type and for a registry
 * that cannot be used at startup (see `openFeastRegistry`).
 */
export function openRegistryFromConfig (
  config: FeatureStoreSource | FeatureStoreFile,
  options: Omit<FeastRegistryOptions, 'path' | 'project' | 'cacheTtlSeconds'> & { readonly cwd?: string } = {}
): FeastRegistry | undefined {
  const file = isFeatureStoreFile(config) ? config : readFeatureStoreFile(config)
  const setting = readRegistrySetting(file, options.cwd)
  if (setting === undefined) return undefined
  const { cwd: _cwd, ...rest } = options
  return openFeastRegistry({ ...rest, path: setting.path, project: setting.project, cacheTtlSeconds: setting.cacheTtlSeconds })
}

function isFeatureStoreFile (value: unknown): value is FeatureStoreFile {
  return typeof value === 'object' && value !== null && typeof (value as { locate?: unknown }).locate === 'function' &&
    typeof (value as { data?: unknown }).data === 'object'
}
