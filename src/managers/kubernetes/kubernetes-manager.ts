import type { KubernetesAuthConfig } from '../../config/auth-config.ts'
import { ConfigError } from '../../config/errors.ts'
import type { AuthLogger } from '../../base/logging.ts'
import { createPrincipal, type Principal } from '../../base/principal.ts'
import type { AuthManager } from '../types.ts'
import { createCachedTokenReview, requireCompactJws, type ReviewedToken } from './cached-token-review.ts'
import { detectClusterConnection, type ClusterConnection } from './cluster-connection.ts'
import { createRoleBindingSource } from './role-binding-source.ts'
import type { RoleIndex } from './role-binding-index.ts'
import { resolveServiceNamespace } from './service-namespace.ts'
import { DEFAULT_REQUEST_TIMEOUT_MS, type KubernetesTuning } from './tuning.ts'

export type { KubernetesTuning } from './tuning.ts'
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

  const tokens = createCachedTokenReview(connection.kubeConfig, { logger, audiences: config.audiences, ttlSeconds: config.token_review_cache_ttl_seconds, tuning })
  const bindings = createRoleBindingSource(connection.kubeConfig, {
    ...tuning.informer,
    logger,
    namespace,
    requestTimeoutMs: tuning.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...(tuning.now === undefined ? {} : { now: tuning.now })
  })

  /** The token's principal under `index`: built once per token and bindings generation. */
  const principalFor = (reviewed: ReviewedToken, index: RoleIndex): Principal => {
    if (reviewed.builtFrom === index && reviewed.principal !== undefined) return reviewed.principal
    const { username, groups, namespaces } = reviewed.identity
    const principal = createPrincipal({ username, roles: index.rolesFor(reviewed.identity), groups, namespaces, source: 'kubernetes' })
    reviewed.principal = principal
    reviewed.builtFrom = index
    return principal
  }

  return {
    type: 'kubernetes',
    // The hot path of a repeated token: one HMAC, one map lookup, one index comparison.
    authenticateCached (token: string): Principal | undefined {
      const reviewed = tokens.cached(token)
      if (reviewed === undefined) return undefined
      const index = bindings.indexNow()
      return index === undefined ? undefined : principalFor(reviewed, index)
    },
    async authenticate (token: string): Promise<Principal> {
      // Before anything else: a token that cannot be a service-account token costs no API call.
      requireCompactJws(token)
      bindings.start()
      const reviewed = await tokens.review(token)
      return principalFor(reviewed, bindings.indexNow() ?? await bindings.index())
    },
    async warmUp () {
      bindings.start()
      await bindings.settled()
    },
    health () {
      const status = bindings.status()
      return {
        ready: status.synced,
        detail: { namespace, namespaceSource: source, cluster: connection.source, bindingsSynced: status.synced, bindings: status.bindings, informerRestarts: status.restarts, lastSyncAt: status.lastSyncAt, cachedTokens: tokens.size() }
      }
    },
    async close () {
      await bindings.stop()
      tokens.clear()
    }
  }
}
