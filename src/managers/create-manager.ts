import { isOidcServerConfig, type AuthConfig } from '../config/auth-config.ts'
import { ConfigError } from '../config/errors.ts'
import { LOGGER_OPTION, type AuthLogger } from '../base/logging.ts'
import { checkOptions, integer, object, required, seconds, type OptionRules } from '../base/option-rules.ts'
import { withIntraIdentity } from './intra/with-intra-identity.ts'
import { createKubernetesManager, type KubernetesManagerOptions } from './kubernetes/kubernetes-manager.ts'
import { KUBERNETES_OPTION_RULES, type KubernetesOptions } from './kubernetes/tuning.ts'
import { serviceAccountTokensForOidc } from './kubernetes/service-account-tokens.ts'
import { createNoAuthManager } from './no-auth.ts'
import { createOidcManager } from './oidc/oidc-manager.ts'
import type { AuthManager } from './types.ts'

/** Options of {@link createAuthManager}: the logger, and tuning of the OIDC key set and of the cluster connection. */
export interface ManagerOptions {
  readonly logger: AuthLogger
  /** Advanced tuning of the OIDC key set; see docs/configuration.md. */
  readonly oidc?: { unknownKidCooldownSeconds?: number, failureBackoffSeconds?: number, verifiedTokenCacheSize?: number } | undefined
  /** Cluster connection and tuning for kubernetes mode and for service-account tokens under oidc; see docs/kubernetes.md. */
  readonly kubernetes?: KubernetesOptions | undefined
}

/**
 * The rules of the OIDC key-set tuning (`oidc`): NaN or Infinity here would unbound the cache of
 * verified tokens or lift the unknown-kid rate limit.
 */
export const OIDC_TUNING_RULES: OptionRules = {
  verifiedTokenCacheSize: integer(0, 10_000_000),
  unknownKidCooldownSeconds: seconds(0, 86_400),
  failureBackoffSeconds: seconds(0, 3_600)
}

const MANAGER_OPTION_RULES: OptionRules = {
  logger: required(LOGGER_OPTION),
  oidc: object(OIDC_TUNING_RULES),
  kubernetes: object(KUBERNETES_OPTION_RULES)
}

/**
 * Builds the one manager a server uses, from a validated `auth` section. Throws an
 * `OptionError` naming the option (`kubernetes.tuning.maxConcurrentReviews`) when one is invalid.
 */
export function createAuthManager (config: AuthConfig, options: ManagerOptions): AuthManager {
  return checkedManager(config, options, 'createAuthManager', false)
}

/**
 * {@link createAuthManager} for feast-authz's own commands that make one decision and exit
 * (`inspect`, `check`): in kubernetes mode no informer starts and the roles are listed once.
 * Not exported by the package: a server needs its informer, and health() to become ready.
 */
export function createOneShotAuthManager (config: AuthConfig, options: ManagerOptions): AuthManager {
  return checkedManager(config, options, 'createOneShotAuthManager', true)
}

function checkedManager (config: AuthConfig, options: ManagerOptions, owner: string, oneShot: boolean): AuthManager {
  checkOptions(options, MANAGER_OPTION_RULES, { owner })
  // A signed intra-server token (INTRA_COMMUNICATION_BASE64 set) is checked first; see src/managers/intra/with-intra-identity.ts.
  return withIntraIdentity(buildManager(config, options, oneShot), { logger: options.logger })
}

function buildManager (config: AuthConfig, options: ManagerOptions, oneShot: boolean): AuthManager {
  // The public option types `connection.kubeConfig` loosely (see ClusterConnectionOption): it is a client-node KubeConfig.
  const kubernetes = options.kubernetes as Omit<KubernetesManagerOptions, 'logger'> | undefined
  switch (config.type) {
    case 'no_auth':
      return createNoAuthManager(options.logger)
    case 'oidc':
      if (!isOidcServerConfig(config)) throw new ConfigError('an OIDC server needs auth_discovery_url and client_id', { field: 'auth' })
      return createOidcManager(config, {
        logger: options.logger,
        ...options.oidc,
        // Spec 5.3: tokens with a kubernetes.io claim go to TokenReview (or are refused off-cluster).
        serviceAccountTokens: serviceAccountTokensForOidc({
          logger: options.logger,
          ...kubernetes,
          audiences: config.service_account_audiences,
          requestTimeoutMs: kubernetes?.tuning?.requestTimeoutMs
        })
      })
    case 'kubernetes':
      // Set last: whatever the public options carry, only createOneShotAuthManager turns the informer off.
      return createKubernetesManager(config, { logger: options.logger, ...kubernetes, oneShot })
  }
}
