import type { KubernetesAuthConfig } from '../../config/auth-config.ts'
import type { AuthLogger } from '../../base/logging.ts'
import { createPrincipal, type Principal } from '../../base/principal.ts'
import { AuthError } from '../../base/errors.ts'
import { createCachedTokenReview } from './cached-token-review.ts'
import { detectClusterConnection, type ClusterConnection } from './cluster-connection.ts'
import { apiTargetOf } from './api-failure.ts'
import { DEFAULT_REQUEST_TIMEOUT_MS, type KubernetesTuning } from './tuning.ts'

export interface ServiceAccountTokenOptions {
  readonly logger: AuthLogger
  /** Default 60 s, as `token_review_cache_ttl_seconds`. */
  readonly cacheTtlSeconds?: number | undefined
  readonly audiences?: KubernetesAuthConfig['audiences'] | undefined
  /** The same tuning as kubernetes mode (cache sizes, failure TTL, concurrent reviews, timeouts). */
  readonly tuning?: KubernetesTuning | undefined
  /** Overrides `tuning.requestTimeoutMs`. */
  readonly requestTimeoutMs?: number | undefined
  /** Overrides `tuning.now`. */
  readonly now?: (() => number) | undefined
}

/**
 * Mixed tokens under `auth.type: oidc` (spec 5.3): a cluster service-account token is
 * checked by TokenReview only and becomes a principal with the username and namespaces of
 * the reviewed identity, no roles and no groups. No RBAC object is read, so the service
 * needs only `tokenreviews/create`. Reviews are cached as in kubernetes mode.
 */
export function createServiceAccountTokenVerifier (connection: ClusterConnection, options: ServiceAccountTokenOptions): (token: string) => Promise<Principal> {
  const tuning: KubernetesTuning = {
    ...options.tuning,
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.now === undefined ? {} : { now: options.now })
  }
  const tokens = createCachedTokenReview(connection.kubeConfig, {
    logger: options.logger,
    target: apiTargetOf(connection, tuning.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
    audiences: options.audiences,
    ttlSeconds: options.cacheTtlSeconds ?? 60,
    tuning
  })
  return async (token) => {
    const reviewed = await tokens.review(token)
    // Built once per cached review: the principal depends on nothing but the identity.
    reviewed.principal ??= createPrincipal({ username: reviewed.identity.username, namespaces: reviewed.identity.namespaces, source: 'kubernetes' })
    return reviewed.principal
  }
}

/**
 * The one startup warning of a server that accepts service-account tokens of any audience:
 * such a token also works against the API server, so one leaked anywhere can be replayed here.
 */
export function warnUnboundAudience (logger: AuthLogger, field: string): void {
  logger.warn({ field }, `no audience restriction (${field} is not set): any service-account token of the cluster is accepted, including tokens meant for the API server itself, so a token leaked from any pod, log or proxy can be replayed here; give clients audience-bound projected tokens and set ${field} (docs/kubernetes.md#audiences)`)
}

/**
 * The stand-in when the OIDC server has no cluster connection: a service-account token is
 * refused with a clear reason instead of failing signature checks against the provider.
 */
export function refuseServiceAccountTokens (logger?: AuthLogger): (token: string) => Promise<Principal> {
  let told = false
  return async () => {
    // Said when it matters, once: a server that never sees such a token has nothing to hear.
    if (!told && logger !== undefined) {
      told = true
      logger.info('a token with a kubernetes.io claim was refused: this OIDC server has no cluster connection to review service-account tokens')
    }
    throw new AuthError('token_review_rejected', 'Kubernetes service-account tokens are not accepted: this server has no cluster connection to review them')
  }
}

export interface MixedTokenOptions extends ServiceAccountTokenOptions {
  readonly connection?: ClusterConnection | undefined
  readonly env?: NodeJS.ProcessEnv | undefined
  readonly serviceAccountDir?: string | undefined
}

/**
 * The `serviceAccountTokens` hook of the OIDC manager. The server counts as "on a cluster"
 * when it runs in a pod (`KUBERNETES_SERVICE_HOST` and the mounted service-account token)
 * or `KUBECONFIG` names a kubeconfig; a personal `~/.kube/config` alone does not count.
 * Without a connection, service-account tokens are refused (401), never allowed.
 */
export function serviceAccountTokensForOidc (options: MixedTokenOptions): (token: string) => Promise<Principal> {
  let connection = options.connection
  if (connection === undefined) {
    try {
      connection = detectClusterConnection({ env: options.env, serviceAccountDir: options.serviceAccountDir, useHomeConfig: false })
    } catch (error) {
      options.logger.warn({ reason: (error as Error).message }, 'the kubeconfig could not be loaded: Kubernetes service-account tokens will be refused')
    }
  }
  if (connection === undefined) {
    options.logger.debug('no cluster connection: tokens with a kubernetes.io claim will be refused')
    return refuseServiceAccountTokens(options.logger)
  }
  options.logger.info({ cluster: connection.description }, 'tokens with a kubernetes.io claim are checked by TokenReview (namespace only, no roles or groups)')
  if (options.audiences === undefined) warnUnboundAudience(options.logger, 'auth.service_account_audiences')
  return createServiceAccountTokenVerifier(connection, options)
}
