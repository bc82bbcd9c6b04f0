import { kubernetesClient } from './client-library.ts'
import type { AuthLogger } from '../../base/logging.ts'
import { AuthError } from '../../base/errors.ts'
import { createLogThrottle } from '../../base/observability/throttle.ts'

/** What we were doing when the API server failed us, for the log and the missing permission. */
export interface ApiOperation {
  /** e.g. `TokenReview`, `list RoleBindings` */
  readonly action: string
  /** The RBAC rule the service's account needs, e.g. `create tokenreviews.authentication.k8s.io (cluster-wide)`. */
  readonly permission: string
}

/**
 * Turns any failure to get an answer from the API server (unreachable, timeout, 401 on the
 * service's own credential, 403, 5xx) into a 503 `cluster_unavailable`, and logs why.
 * A 403 names the permission the service account lacks. Never logs the exception's
 * message: client-node embeds response bodies and headers in it.
 */
export function clusterUnavailable (error: unknown, operation: ApiOperation, logger: AuthLogger, extra: Record<string, unknown> = {}): AuthError {
  const reason = describeFailure(error)
  if (reason.status === 403) {
    logger.error({ ...extra, status: 403, missingPermission: operation.permission }, `the Kubernetes API server refused ${operation.action}: the service account lacks the permission ${operation.permission} (see docs/kubernetes.md)`)
  } else if (reason.status === 401) {
    logger.error({ ...extra, status: 401 }, `the Kubernetes API server rejected the service's own credentials during ${operation.action}: check the kubeconfig or the mounted service-account token`)
  } else {
    logger.error({ ...extra, status: reason.status, reason: reason.text }, `the Kubernetes API server could not be used for ${operation.action}: ${reason.text}`)
  }
  return unavailable(operation, reason)
}

// The cause is what `feast-authz inspect` reports: a refusal names the permission to grant there too.
function unavailable (operation: ApiOperation, reason: { status: number | undefined, text: string }): AuthError {
  const missing = reason.status === 403 ? `: the service account lacks the permission ${operation.permission}` : ''
  return new AuthError('cluster_unavailable', 'the Kubernetes API server could not be reached', { cause: new Error(`${operation.action}: ${reason.text}${missing}`) })
}

/**
 * {@link clusterUnavailable} with its log limited to one line per kind of failure (operation
 * and status) every `intervalMs`: during an outage every new token fails the same way, and
 * the next line reports how many were `suppressed`.
 */
export function createFailureReporter (
  logger: AuthLogger,
  options: { intervalMs?: number, now?: () => number } = {}
): (error: unknown, operation: ApiOperation) => AuthError {
  const throttle = createLogThrottle(options)
  return (error, operation) => {
    const reason = describeFailure(error)
    const { log, suppressed } = throttle(`${operation.action}|${reason.status ?? reason.text}`)
    if (!log) return unavailable(operation, reason)
    return clusterUnavailable(error, operation, logger, suppressed === 0 ? {} : { suppressed })
  }
}

/**
 * The 503 of a request whose calls to the API server (a TokenReview, then, before the first
 * sync, the RoleBinding and Role lists) took longer together than the one
 * budget of `requestTimeoutMs`, each call having a timeout of its own. Logged as the failures
 * above are, at most one line every `intervalMs`, since slow calls that each succeed log nothing.
 */
export function createOutOfTimeReporter (
  logger: AuthLogger,
  timeoutMs: number,
  options: { intervalMs?: number, now?: () => number } = {}
): () => AuthError {
  const throttle = createLogThrottle(options)
  const reason = `no answer within requestTimeoutMs (${timeoutMs} ms) for this request`
  return () => {
    const { log, suppressed } = throttle('out of time')
    if (log) logger.error({ reason: 'timed out', ...(suppressed === 0 ? {} : { suppressed }) }, `the Kubernetes API server could not be used to authenticate a request: ${reason}`)
    return unavailable({ action: 'authentication', permission: '' }, { status: undefined, text: reason })
  }
}

/** A short, secret-free description of a client-node failure. */
export function describeFailure (error: unknown): { status: number | undefined, text: string } {
  if (error instanceof kubernetesClient().ApiException) {
    return { status: error.code, text: `HTTP ${error.code}${error.code === 403 ? ' (forbidden)' : ''}` }
  }
  if (error instanceof Error) {
    if (error.name === 'AbortError' || error.name === 'TimeoutError' || (error as { type?: unknown }).type === 'request-timeout') return { status: undefined, text: 'timed out' }
    const code = (error as NodeJS.ErrnoException).code
    const status = (error as { statusCode?: unknown }).statusCode
    if (typeof status === 'number') return { status, text: `HTTP ${status}` }
    return { status: undefined, text: typeof code === 'string' ? `unreachable (${code})` : error.name }
  }
  return { status: undefined, text: 'unknown failure' }
}
