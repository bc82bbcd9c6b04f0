import type { KubernetesAuthConfig } from '../../config/auth-config.ts'
import type { AuthLogger } from '../../logging.ts'
import { createPrincipal, type Principal } from '../../principal.ts'
import { AuthError } from '../errors.ts'
import { detectClusterConnection, type ClusterConnection } from './cluster-connection.ts'
import type { ReviewedIdentity } from './identity.ts'
import { createReviewCache } from './review-cache.ts'
import { createTokenReviewer } from './token-review.ts'

export interface ServiceAccountTokenOptions {
  readonly logger: AuthLogger
  /** Default 60 s, as `token_review_cache_ttl_seconds`. */
  readonly cacheTtlSeconds?: number | undefined
  readonly audiences?: KubernetesAuthConfig['audiences'] | undefined
  readonly requestTimeoutMs?: number | undefined
  readonly now?: (() => number) | undefined
}

/**
 * Mixed tokens under `auth.type: oidc` (spec 5.3): a cluster service-account token is
 * checked by TokenReview only and becomes a principal with the username and namespaces of
 * the reviewed identity, no roles and no groups. No RBAC object is read, so the service
 * needs only `tokenreviews/create`. Reviews are cached as in kubernetes mode.
 */
export function createServiceAccountTokenVerifier (connection: ClusterConnection, options: ServiceAccountTokenOptions): (token: string) => Promise<Principal> {
  const review = createTokenReviewer(connection.kubeConfig, { logger: options.logger, audiences: options.audiences, timeoutMs: options.requestTimeoutMs ?? 5000 })
  const reviews = createReviewCache<ReviewedIdentity>({
    ttlMs: (options.cacheTtlSeconds ?? 60) * 1000,
    failureTtlMs: 5000,
    maxEntries: 10_000,
    ...(options.now === undefined ? {} : { now: options.now })
  })
  return async (token) => {
    const identity = await reviews.get(token, review)
    return createPrincipal({ username: identity.username, namespaces: identity.namespaces, source: 'kubernetes' })
  }
}

/**
 * The stand-in when the OIDC server has no cluster connection: a service-account token is
 * refused with a clear reason instead of failing signature checks against the provider.
 */
export function refuseServiceAccountTokens (): (token: string) => Promise<Principal> {
  return async () => {
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
    options.logger.info('no cluster connection: tokens with a kubernetes.io claim will be refused')
    return refuseServiceAccountTokens()
  }
  options.logger.info({ cluster: connection.description }, 'tokens with a kubernetes.io claim are checked by TokenReview (namespace only, no roles or groups)')
  return createServiceAccountTokenVerifier(connection, options)
}
