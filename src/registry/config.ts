import { dirname, isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ConfigError } from '../config/errors.ts'
import { describeValue } from '../base/describe-value.ts'
import { urlTextForLog } from '../base/observability/log-safe-url.ts'
import { BASE64_ENV, readYamlSource, type FeatureStoreFile, type YamlFileKind } from '../config/feature-store-file.ts'
import { requireStoreProject } from '../config/store-project.ts'

/** Where the registry of a `feature_store.yaml` is, and how often to re-read it. */
export interface RegistrySetting {
  /** Absolute path of the registry file. */
  readonly path: string
  /** The store's `project`: its permissions apply unless a request names another project. */
  readonly project: string
  /** `cache_ttl_seconds`: re-read at least this often; 0 = only when the file changes. Default 600, as in Feast. */
  readonly cacheTtlSeconds: number
}

/** Feast's default `cache_ttl_seconds` for a registry. */
export const DEFAULT_CACHE_TTL_SECONDS = 600

/**
 * Whether the `registry` setting of a feature_store.yaml names a Feast registry: any path but a
 * `.yaml`/`.yml` one, which is the reference server's own catalog format, not Feast's.
 */
export function namesFeastRegistry (file: FeatureStoreFile): boolean {
  const raw = file.data.registry
  if (raw === undefined || raw === null) return false
  const path = typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>).path : raw
  return !(typeof path === 'string' && isCatalogYamlPath(path))
}

/**
 * The `registry` setting of a feature_store.yaml as it may be logged: its path, a URL without
 * userinfo and query (a SQL registry's `postgresql://user:password@host/db` holds the database
 * password), and its `registry_type` when one is set. Nothing else of a mapping is kept: other
 * registry types carry credentials in fields of their own (a Snowflake registry's `password`).
 */
export function registryForLog (file: FeatureStoreFile): string | undefined {
  const raw = file.data.registry
  if (typeof raw === 'string') return urlTextForLog(raw)
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined
  const { path, registry_type: type } = raw as Record<string, unknown>
  const where = typeof path === 'string' ? urlTextForLog(path) : '(no path)'
  return typeof type === 'string' ? `${where} (registry_type ${type})` : where
}

/** Whether a registry path is the reference server's YAML catalog (`.yaml`/`.yml`) rather than a Feast registry. */
export function isCatalogYamlPath (path: string): boolean {
  return /\.ya?ml$/i.test(path.trim())
}

/** The reference server's registry YAML file, in the words of the errors of reading it. */
// Exact integers: sample rows hold int64 join keys (64-bit ids), which a double would round.
const REGISTRY_YAML: YamlFileKind = { kind: 'a registry YAML file', what: 'the registry YAML file', exactIntegers: true }

/**
 * Reads the reference server's registry YAML file (what a `.yaml`/`.yml` registry path names): a
 * path, or `{ yaml, source }` text, with the limits of a feature_store.yaml. Its errors are
 * ConfigErrors naming the file and saying it is the registry YAML file (`registry.yaml: cannot
 * read the registry YAML file: file not found`), never a configuration.
 */
export function readRegistryYamlFile (input: string | { yaml: string, source?: string }): FeatureStoreFile {
  // readYamlSource would read ./feature_store.yaml for nothing given: a registry file must be named.
  if (input === undefined) throw new ConfigError(`expected a path, YAML text or an object for ${REGISTRY_YAML.kind}, got nothing`)
  return readYamlSource(input, REGISTRY_YAML)
}

const SUPPORTED = 'feast-authz reads file registries only: `registry: <path>` or `registry: {registry_type: file, path: <path>}`'
const REMOTE_SCHEMES = /^([a-z][a-z0-9+.-]*):\/\//i

/**
 * Reads the `registry` and `project` settings of a feature_store.yaml, as Feast does:
 * - `registry: data/registry.db`, or `registry: {registry_type: file, path, cache_ttl_seconds}`;
 * - a relative path resolves against the directory of the yaml file (Feast's repo path); when
 *   the configuration did not come from a file (an object, `FEATURE_STORE_YAML_BASE64`),
 *   against `cwd`;
 * - `file://` URLs are accepted.
 * Returns undefined when the file has no `registry` key. Throws a ConfigError for other registry
 * types (sql, remote, snowflake.registry, ...), object-store paths (s3://, gs://, az://, ...)
 * and bad values: never a silent fallback.
 */
export function readRegistrySetting (file: FeatureStoreFile, cwd: string = process.cwd()): RegistrySetting | undefined {
  const raw = file.data.registry
  if (raw === undefined || raw === null) return undefined
  const fail = (path: readonly string[], message: string): never => {
    const at = file.locate(path)
    throw new ConfigError(message, { source: file.source, field: path.join('.'), line: at?.line, column: at?.column })
  }

  let rawPath: unknown
  let ttl: unknown
  if (typeof raw === 'string') {
    rawPath = raw
  } else if (typeof raw === 'object' && !Array.isArray(raw)) {
    const setting = raw as Record<string, unknown>
    const type = setting.registry_type ?? 'file'
    if (type !== 'file') {
      fail(['registry', 'registry_type'], `registry type ${describeValue(type)} is not supported yet (${SUPPORTED})`)
    }
    const store = setting.registry_store_type
    if (store !== undefined && store !== null && store !== 'LocalRegistryStore') {
      fail(['registry', 'registry_store_type'], `registry store ${describeValue(store)} is not supported yet (${SUPPORTED}, on the local file system)`)
    }
    rawPath = setting.path
    ttl = setting.cache_ttl_seconds
  } else {
    fail(['registry'], `expected a path or a mapping with registry_type, path and cache_ttl_seconds, got ${describeValue(raw)}`)
  }

  const pathField = typeof raw === 'string' ? ['registry'] : ['registry', 'path']
  if (typeof rawPath !== 'string' || rawPath.trim() === '') fail(pathField, `expected the path of the registry file, got ${describeValue(rawPath)}`)
  const path = localPath((rawPath as string).trim(), pathField, fail)

  let cacheTtlSeconds = DEFAULT_CACHE_TTL_SECONDS
  if (ttl !== undefined && ttl !== null) {
    if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0) fail(['registry', 'cache_ttl_seconds'], `expected a whole number of seconds >= 0, got ${describeValue(ttl)}`)
    cacheTtlSeconds = ttl as number
  }

  const project = requireStoreProject(file, 'the registry\'s permissions are per project')

  const base = file.source === undefined || file.source === BASE64_ENV ? cwd : dirname(resolve(cwd, file.source))
  return Object.freeze({ path: isAbsolute(path) ? path : resolve(base, path), project, cacheTtlSeconds })
}

function localPath (value: string, field: readonly string[], fail: (path: readonly string[], message: string) => never): string {
  const scheme = REMOTE_SCHEMES.exec(value)?.[1]?.toLowerCase()
  if (scheme === undefined) return value
  if (scheme === 'file') {
    try {
      return fileURLToPath(value)
    } catch (error) {
      return fail(field, `${describeValue(urlTextForLog(value))} is not a valid file URL (${(error as Error).message})`)
    }
  }
  return fail(field, `a registry at ${scheme}:// is not supported yet (${SUPPORTED}, on the local file system)`)
}
