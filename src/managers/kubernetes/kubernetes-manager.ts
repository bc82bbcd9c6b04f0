import type { KubernetesAuthConfig } from '../../config/auth-config.ts'
import { ConfigError } from '../../config/errors.ts'
import { LOGGER_OPTION, type AuthLogger } from '../../base/logging.ts'
import { createPrincipal, type Principal } from '../../base/principal.ts'
import type { AuthManager } from '../types.ts'
import { createCachedTokenReview, requireReviewableShape, type ReviewedToken } from './cached-token-review.ts'
import { detectClusterConnection, type ClusterConnection } from './cluster-connection.ts'
import type { RoleView } from './role-index.ts'
import { createRoleSource } from './role-source.ts'
import { warnUnboundAudience } from './service-account-tokens.ts'
import { resolveServiceNamespace } from './service-namespace.ts'
import { withinDeadline } from '../../base/deadline.ts'
import { apiTargetOf, createOutOfTimeReporter, type ApiOperation } from './api-failure.ts'
import { TOKEN_REVIEW } from './token-review.ts'
import { DEFAULT_REQUEST_TIMEOUT_MS, KUBERNETES_OPTION_RULES, type KubernetesTuning } from './tuning.ts'
import { boolean, checkOptions, required } from '../../base/option-rules.ts'

export type { KubernetesTuning } from './tuning.ts'
export interface KubernetesManagerOptions {
  readonly logger: AuthLogger
  /** The cluster connection; default: detected (in-cluster service account, `KUBECONFIG`, `~/.kube/config`). */
  readonly connection?: ClusterConnection | undefined
  readonly env?: NodeJS.ProcessEnv | undefined
  /** The pod's service-account directory (namespace file). Default `/var/run/secrets/kubernetes.io/serviceaccount`. */
  readonly serviceAccountDir?: string | undefined
  readonly tuning?: KubernetesTuning | undefined
  /**
   * For feast-authz's own commands that make one decision and exit (`inspect`, `check`; see
   * `createOneShotAuthManager`): no informer starts, the roles are listed once per request. A
   * watch would only cost API calls and, against a cluster that cannot be used, add its restart
   * warnings to the failure the command reports already. Not a public option: such a manager's
   * health() never reports the roles synced, which no server may live with. Default false.
   */
  readonly oneShot?: boolean | undefined
}

/**
 * `auth.type: kubernetes`: the bearer token is reviewed by the cluster (TokenReview) and
 * the caller's roles are the Roles bound to it by RoleBindings of the service's namespace.
 * Steady state costs no API call per request: reviews are cached per token and the
 * bindings are held by an informer.
 */
export function createKubernetesManager (config: KubernetesAuthConfig, options: KubernetesManagerOptions): AuthManager {
  checkOptions(options, { ...KUBERNETES_OPTION_RULES, logger: required(LOGGER_OPTION), oneShot: boolean() }, { path: 'kubernetes' })
  const { logger } = options
  const tuning = options.tuning ?? {}
  const connection = options.connection ?? detectClusterConnection({ env: options.env, serviceAccountDir: options.serviceAccountDir })
  if (connection === undefined) {
    throw new ConfigError('auth type kubernetes needs a cluster connection: none found (no in-cluster service account, no KUBECONFIG, no ~/.kube/config); ' +
      'run it in a pod, or set KUBECONFIG to a kubeconfig of the cluster whose service-account tokens it reviews (docs/kubernetes.md#how-the-service-reaches-the-cluster)', { field: 'auth.type' })
  }
  const { namespace, source } = resolveServiceNamespace({
    serviceAccountDir: options.serviceAccountDir,
    env: options.env,
    kubeConfig: connection.kubeConfig,
    configured: config.namespace
  })
  logger.info({ namespace, namespaceSource: source, cluster: connection.description }, `kubernetes auth: roles come from RoleBindings in namespace ${namespace} (from ${source})`)
  if (config.audiences === undefined) warnUnboundAudience(logger, 'auth.audiences')

  const requestTimeoutMs = tuning.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  const opaque = config.accept_opaque_tokens === true
  if (opaque) logger.info('auth.accept_opaque_tokens is true: bearer tokens that are not JWTs are sent to TokenReview too (behind the rejection cache and the review cap)')
  // Computed once: naming the caller of a pod reads its service account's token file.
  const target = apiTargetOf(connection, requestTimeoutMs)
  const tokens = createCachedTokenReview(connection.kubeConfig, {
    logger,
    target,
    audiences: config.audiences,
    ttlSeconds: config.token_review_cache_ttl_seconds,
    acceptOpaqueTokens: opaque,
    tuning
  })
  const bindings = createRoleSource(connection.kubeConfig, {
    ...tuning.informer,
    watch: options.oneShot !== true,
    ...(config.outage_grace_seconds === undefined ? {} : { staleGraceMs: config.outage_grace_seconds * 1000 }),
    logger,
    namespace,
    policy: { allowRulelessRoles: config.allow_ruleless_roles === true, clusterRoles: config.cluster_roles ?? [] },
    target,
    ...(tuning.now === undefined ? {} : { now: tuning.now })
  })
  const outOfTime = createOutOfTimeReporter(logger, target, tuning.now === undefined ? {} : { now: tuning.now })

  /** The token's principal under `view`: built once per token and state of the roles. */
  const principalFor = (reviewed: ReviewedToken, view: RoleView): Principal => {
    const key = view.key
    if (reviewed.builtFrom === key && reviewed.principal !== undefined) return reviewed.principal
    const { username, groups, namespaces } = reviewed.identity
    const principal = createPrincipal({ username, roles: view.rolesFor(reviewed.identity), groups, namespaces, source: 'kubernetes' })
    reviewed.principal = principal
    reviewed.builtFrom = key
    return principal
  }

  /** `waiting.for` follows the request from call to call, so that running out of time names the one it was in. */
  const reviewedPrincipal = async (token: string, waiting: { for: ApiOperation }): Promise<Principal> => {
    const reviewed = await tokens.review(token)
    waiting.for = bindings.listing
    return principalFor(reviewed, bindings.viewNow() ?? await bindings.view())
  }

  return {
    type: 'kubernetes',
    // The hot path of a repeated token: one hash, one map lookup, one key comparison.
    authenticateCached (token: string): Principal | undefined {
      const reviewed = tokens.cached(token)
      if (reviewed === undefined) return undefined
      const view = bindings.viewNow()
      return view === undefined ? undefined : principalFor(reviewed, view)
    },
    async authenticate (token: string): Promise<Principal> {
      // Before the informer starts and the budget's timer is set: a token that cannot be a
      // service-account token costs none of them (review() checks again, for its other callers).
      requireReviewableShape(token, opaque)
      bindings.start()
      // One budget for the whole wait: each call below has its own timeout, and before the first
      // sync a request needs a review and then the paged lists.
      const waiting = { for: TOKEN_REVIEW }
      return await withinDeadline(reviewedPrincipal(token, waiting), requestTimeoutMs, () => outOfTime(waiting.for))
    },
    async warmUp () {
      bindings.start()
      await bindings.settled()
    },
    health () {
      const status = bindings.status()
      return {
        ready: status.synced,
        detail: {
          namespace,
          namespaceSource: source,
          cluster: connection.source,
          bindingsSynced: status.synced,
          bindings: status.bindings,
          roles: status.roles,
          informerRestarts: status.restarts,
          lastSyncAt: status.lastSyncAt,
          cachedTokens: tokens.size()
        }
      }
    },
    async close () {
      await bindings.stop()
      tokens.clear()
    }
  }
}
