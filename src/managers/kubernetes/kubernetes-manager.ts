import type { KubernetesAuthConfig } from '../../config/auth-config.ts'
import { ConfigError } from '../../config/errors.ts'
import type { AuthLogger } from '../../logging.ts'
import { createPrincipal, type Principal } from '../../principal.ts'
import type { AuthManager } from '../types.ts'
import { detectClusterConnection, type ClusterConnection } from './cluster-connection.ts'
import type { ReviewedIdentity } from './identity.ts'
import { createReviewCache } from './review-cache.ts'
import { createRoleBindingSource, type RoleBindingSourceOptions } from './role-binding-source.ts'
import { resolveServiceNamespace } from './service-namespace.ts'
import { createTokenReviewer } from './token-review.ts'

/** Tuning knobs with safe defaults; tests shorten them. */
export interface KubernetesTuning {
  /** Timeout of each API call. Default 5000 ms. */
  readonly requestTimeoutMs?: number
  /** How long a rejected token's 401 is remembered. Default 5000 ms. */
  readonly failureCacheMs?: number
  /** Reviewed tokens kept. Default 10 000. */
  readonly maxCachedTokens?: number
  readonly informer?: Omit<RoleBindingSourceOptions, 'logger' | 'namespace' | 'requestTimeoutMs' | 'now'>
  readonly now?: () => number
}

export interface KubernetesManagerOptions {
  readonly logger: AuthLogger
  /** The cluster connection; default: detected (in-cluster service account, `KUBECONFIG`, `~/.kube/config`). */
  readonly connection?: ClusterConnection | undefined
  readonly env?: NodeJS.ProcessEnv | undefined
  /** The pod's service-account directory (namespace file). Default `/var/run/secrets/kubernetes.io/serviceaccount`. */
  readonly serviceAccountDir?: string | undefined
  readonly tuning?: KubernetesTuning | undefined
}

/**
 * `auth.type: kubernetes`: the bearer token is reviewed by the cluster (TokenReview) and
 * the caller's roles are the Roles bound to it by RoleBindings of the service's namespace.
 * Steady state costs no API call per request: reviews are cached per token and the
 * bindings are held by an informer.
 */
export function createKubernetesManager (config: KubernetesAuthConfig, options: KubernetesManagerOptions): AuthManager {
  const { logger } = options
  const tuning = options.tuning ?? {}
  const connection = options.connection ?? detectClusterConnection({ env: options.env, serviceAccountDir: options.serviceAccountDir })
  if (connection === undefined) {
    throw new ConfigError('auth type kubernetes needs a cluster connection: none found (no in-cluster service account, no KUBECONFIG, no ~/.kube/config)', { field: 'auth.type' })
  }
  const { namespace, source } = resolveServiceNamespace({
    serviceAccountDir: options.serviceAccountDir,
    env: options.env,
    kubeConfig: connection.kubeConfig,
    configured: config.namespace
  })
  logger.info({ namespace, namespaceSource: source, cluster: connection.description }, `kubernetes auth: roles come from RoleBindings in namespace ${namespace} (from ${source})`)

  const requestTimeoutMs = tuning.requestTimeoutMs ?? 5000
  const review = createTokenReviewer(connection.kubeConfig, { logger, audiences: config.audiences, timeoutMs: requestTimeoutMs })
  const reviews = createReviewCache<ReviewedIdentity>({
    ttlMs: config.token_review_cache_ttl_seconds * 1000,
    failureTtlMs: tuning.failureCacheMs ?? 5000,
    maxEntries: tuning.maxCachedTokens ?? 10_000,
    ...(tuning.now === undefined ? {} : { now: tuning.now })
  })
  const bindings = createRoleBindingSource(connection.kubeConfig, {
    ...tuning.informer,
    logger,
    namespace,
    requestTimeoutMs,
    ...(tuning.now === undefined ? {} : { now: tuning.now })
  })

  return {
    type: 'kubernetes',
    async authenticate (token: string): Promise<Principal> {
      bindings.start()
      const identity = await reviews.get(token, review)
      const roles = await bindings.rolesFor(identity)
      return createPrincipal({ username: identity.username, roles, groups: identity.groups, namespaces: identity.namespaces, source: 'kubernetes' })
    },
    async warmUp () {
      bindings.start()
      await bindings.settled()
    },
    health () {
      const status = bindings.status()
      return {
        ready: status.synced,
        detail: { namespace, namespaceSource: source, cluster: connection.source, bindingsSynced: status.synced, bindings: status.bindings, informerRestarts: status.restarts, lastSyncAt: status.lastSyncAt, cachedTokens: reviews.size() }
      }
    },
    async close () {
      await bindings.stop()
      reviews.clear()
    }
  }
}
