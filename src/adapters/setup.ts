import { anyOf, checkOptions, integer, methods, object, text, unchecked, type OptionRules } from '../base/option-rules.ts'
import { loadAuthConfig, type AuthConfig } from '../config/auth-config.ts'
import { placeConfigError, type FeatureStoreFile, type FeatureStoreSource } from '../config/feature-store-file.ts'
import { storeProject } from '../config/store-project.ts'
import { warnOfUnsetReferences } from '../config/unset-references.ts'
import { DEFAULT_MAX_TOKEN_LENGTH } from '../base/http/bearer.ts'
import { LOGGER_OPTION, type AuthLogger } from '../base/logging.ts'
import { createAuthManager, createOneShotAuthManager, OIDC_TUNING_RULES, type ManagerOptions } from '../managers/create-manager.ts'
import type { AuthManager } from '../managers/types.ts'
import type { Permission } from '../permissions/model.ts'
import type { PermissionSource } from '../permissions/source.ts'
import { namesFeastRegistry, registryForLog } from '../registry/config.ts'
import { openRegistryFromConfig } from '../registry/index.ts'
import type { FeastRegistry } from '../registry/feast-registry.ts'

/** Options shared by the Fastify plugin and the Express middleware. */
export interface AuthzOptions {
  /**
   * The store's `feature_store.yaml`: a path, YAML text, `{ yaml }`, or a parsed object.
   * Default: `FEATURE_STORE_YAML_BASE64`, then `./feature_store.yaml`.
   */
  readonly config?: FeatureStoreSource
  /** Where feast-authz logs. Default: Fastify's logger (Express: a pino logger with redaction). */
  readonly logger?: AuthLogger
  /** Longest bearer token accepted, checked before any decoding. Default 8192. */
  readonly maxTokenLength?: number
  /** `realm` of the `WWW-Authenticate` challenge. Default `feast`. */
  readonly realm?: string
  /** Advanced OIDC key-set tuning. */
  readonly oidc?: ManagerOptions['oidc']
  /**
   * A manager built elsewhere (shared between servers, or custom); `config` is then only read for its type.
   *
   * WARNING: a custom manager is trusted completely: whatever principal it returns is the caller.
   */
  readonly manager?: AuthManager
  /**
   * The permissions `requirePermission` enforces: a list, the path of a permissions YAML file,
   * or a source asked on every check (a registry). When not given and `feature_store.yaml`
   * names a Feast registry file (`registry`), its permissions are used and followed as it
   * changes (docs/registry.md).
   *
   * WARNING: none, or an empty list (or a source that returns none), allows every authenticated
   * caller every action on every resource, as Feast does; only a warning is logged, at startup
   * and once per project (spec 5.6.3). Routes with `requirePermission` then check nothing but
   * authentication.
   */
  readonly permissions?: readonly Permission[] | string | PermissionSource
}

/**
 * The rules of {@link AuthzOptions}, checked by `checkOptions` (src/base/option-rules.ts); the
 * adapters and the reference server add their own. `config` is checked by its loader.
 */
export const AUTHZ_OPTION_RULES: OptionRules = {
  config: unchecked(),
  logger: LOGGER_OPTION,
  maxTokenLength: integer(1),
  realm: text(),
  oidc: object(OIDC_TUNING_RULES),
  manager: methods('authenticate', 'warmUp', 'health', 'close'),
  // The permissions themselves are checked by the permission engine.
  permissions: anyOf(
    { expected: 'a list of permissions', accepts: Array.isArray },
    text({ expected: 'the path of a permissions YAML file' }),
    { ...methods('permissionsFor'), expected: 'a source with permissionsFor(project)' }
  )
}

export interface AuthzSetup {
  readonly config: AuthConfig
  readonly manager: AuthManager
  readonly maxTokenLength: number
  readonly realm: string
  readonly file: ReturnType<typeof loadAuthConfig>['file']
  /** The store's `project` (feature_store.yaml), checked as Feast checks one; undefined when it names none. */
  readonly project: string | undefined
  /** The permissions to enforce: the `permissions` option, else the config's Feast registry. */
  readonly permissions: AuthzOptions['permissions']
  /** The Feast registry opened for the permissions (closed by `close()`), if any. */
  readonly registry: FeastRegistry | undefined
  /** Releases what the setup opened: the registry (the manager is closed by the adapter). */
  close (): void
}

/**
 * Validates the options, reads the `auth` section and builds the manager. With
 * `openRegistry: true` (the adapters), the Feast registry feature_store.yaml names is opened as
 * the permission source when no `permissions` option is given; tools that only authenticate
 * (`inspect`, `check`) leave it false and never read the registry, and set `oneShot`: they
 * authenticate one token and exit.
 */
export function setUpAuthz (
  options: AuthzOptions,
  logger: AuthLogger,
  { openRegistry = false, oneShot = false }: { readonly openRegistry?: boolean, readonly oneShot?: boolean } = {}
): AuthzSetup {
  checkOptions(options, AUTHZ_OPTION_RULES)
  const maxTokenLength = options.maxTokenLength ?? DEFAULT_MAX_TOKEN_LENGTH
  const { auth, file } = loadAuthConfig(options.config)
  warnOfUnsetReferences(file, logger)
  const project = storeProject(file)
  // Opened before the manager: a registry that cannot be used stops startup with nothing to release.
  const registry = openRegistry && options.permissions === undefined ? openPermissionRegistry(file, logger) : undefined
  // (A permission source given explicitly, such as the same registry opened by the caller, needs no notice.)
  if (openRegistry && (Array.isArray(options.permissions) || typeof options.permissions === 'string') && namesFeastRegistry(file)) {
    logger.info({ registry: registryForLog(file) }, 'feast-authz: permissions given explicitly; the permissions of the registry named in feature_store.yaml are not used')
  }
  let manager: AuthManager
  try {
    // A command that makes one decision and exits reads the roles once: informers would only cost
    // watches and, against a cluster that cannot be used, add restart warnings to its verdict.
    manager = options.manager ?? (oneShot ? createOneShotAuthManager : createAuthManager)(auth, { logger, oidc: options.oidc })
  } catch (error) {
    registry?.close()
    // A field the manager could not use (a missing CA bundle, no cluster connection) is named where the file sets it.
    throw placeConfigError(error, file)
  }
  return {
    config: auth,
    manager,
    maxTokenLength,
    realm: options.realm ?? 'feast',
    file,
    project,
    permissions: options.permissions ?? registry,
    registry,
    close: () => { registry?.close() }
  }
}

/**
 * Opens the Feast registry feature_store.yaml names, as the source of permissions; undefined when
 * it names none. Throws a ConfigError naming the file (unsupported registry type, unreadable or
 * invalid registry): a registry that cannot be used never means "no permissions".
 */
export function openPermissionRegistry (file: FeatureStoreFile, logger: AuthLogger): FeastRegistry | undefined {
  const registry = openRegistryFromConfig(file, { logger })
  if (registry !== undefined) {
    logger.info({ registry: registry.path, project: registry.project }, 'feast-authz: permissions come from the Feast registry')
  }
  return registry
}
