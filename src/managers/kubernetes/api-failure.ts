import { describeCaller } from './api-caller.ts'
import { ApiStatusError, UnusableAnswer } from './api-request.ts'
import type { ClusterConnection } from './cluster-connection.ts'
import type { AuthLogger } from '../../base/logging.ts'
import { AuthError } from '../../base/errors.ts'
import { tlsFailureOf } from '../../base/http/tls-failure.ts'
import { urlForLog } from '../../base/observability/log-safe-url.ts'
import { createLogThrottle } from '../../base/observability/throttle.ts'

/** What we were doing when the API server failed us, for the log and the missing permission. */
export interface ApiOperation {
  /** e.g. `TokenReview`, `list RoleBindings` */
  readonly action: string
  /** The RBAC rule the caller needs, e.g. `create tokenreviews.authentication.k8s.io (cluster-wide)`. */
  readonly permission: string
}

/** Where the calls go, as whom, and how long each may take: what a person needs to look in the right place. */
export interface ApiTarget {
  /** The API server of the kubeconfig's current cluster, as {@link urlForLog} shows it; undefined when it names none. */
  readonly server: string | undefined
  /** `requestTimeoutMs`: the timeout of each call, and of a request's calls together. */
  readonly timeoutMs: number
  /** Who the API server sees making the calls, as {@link describeCaller} words it (never a credential). */
  readonly caller: string
  /** Where the connection's settings come from: what a person fixes (a kubeconfig, or the pod's). */
  readonly source: ClusterConnection['source']
}

/**
 * How a call failed, for the wording of whoever reports it: refused by RBAC (`forbidden`), the
 * service's own credential rejected (`unauthorized`), another HTTP status (`http`), no answer in
 * time (`timeout`), a certificate signed by no CA the kubeconfig trusts (`untrusted-certificate`),
 * another TLS failure (`tls`), no connection (`network`), an answer that is not what the
 * Kubernetes API gives (`unusable`: too long, not JSON, another kind, a field of another type), or
 * anything else (`other`).
 */
export type FailureKind = 'forbidden' | 'unauthorized' | 'http' | 'timeout' | 'untrusted-certificate' | 'tls' | 'network' | 'unusable' | 'other'

/** A short, secret-free description of a failed call. */
export interface Failure {
  readonly status: number | undefined
  readonly text: string
  readonly kind: FailureKind
}

/**
 * The cause of a 503 `cluster_unavailable`: which call failed, against which server, and how, as
 * fields a command line can turn into advice. Its message repeats them in one line and, like
 * everything here, carries neither a credential nor a response body.
 */
export class ApiServerFailure extends Error {
  override readonly name = 'ApiServerFailure'

  constructor (readonly operation: ApiOperation, readonly target: ApiTarget, readonly failure: Failure) {
    const where = target.server === undefined ? '' : ` at ${target.server}`
    const missing = failure.kind === 'forbidden' ? `: ${lacksPermission(target.caller, operation.permission)}` : ''
    super(`${operation.action}${where}: ${failure.text}${missing}`)
  }
}

/** `<caller> lacks the permission <permission>`: the one wording of a 403, in the logs and in the 503's cause. */
export function lacksPermission (caller: string, permission: string): string {
  return `${caller} lacks the permission ${permission}`
}

/** The {@link ApiTarget} of calls made through `connection`. */
export function apiTargetOf (connection: Pick<ClusterConnection, 'kubeConfig' | 'source'>, timeoutMs: number): ApiTarget {
  const server = connection.kubeConfig.getCurrentCluster()?.server
  // A bare origin reads as the kubeconfig writes it: without the `/` of an empty path.
  return { server: server === undefined || server === '' ? undefined : urlForLog(server).replace(/(\/\/[^/]*)\/$/, '$1'), timeoutMs, caller: describeCaller(connection), source: connection.source }
}

/**
 * Turns any failure to get an answer from the API server (unreachable, timeout, 401 on our own
 * credentials, 403, 5xx) into a 503 `cluster_unavailable`, and logs why. A 403 names the
 * permission the caller (the service account, or the kubeconfig's user) lacks. Never logs the
 * exception's message: client-node embeds response bodies and headers in it.
 */
function clusterUnavailable (failure: Failure, operation: ApiOperation, target: ApiTarget, logger: AuthLogger, extra: Record<string, unknown>): AuthError {
  if (failure.status === 403) {
    logger.error({ ...extra, status: 403, missingPermission: operation.permission }, `the Kubernetes API server refused ${operation.action}: ${lacksPermission(target.caller, operation.permission)} (see docs/kubernetes.md)`)
  } else if (failure.status === 401) {
    logger.error({ ...extra, status: 401 }, `the Kubernetes API server rejected the credentials of ${target.caller} during ${operation.action}: they expired, were revoked, or are for another cluster`)
  } else {
    logger.error({ ...extra, status: failure.status, reason: failure.text, server: target.server }, `the Kubernetes API server could not be used for ${operation.action}: ${failure.text}`)
  }
  return unavailable(operation, target, failure)
}

/**
 * The public message of the 503, by how the call failed: it reaches whoever sent the request, so
 * it says what happened and nothing of where (no address, no caller, no permission). The API
 * server refusing us is not "could not be reached": the way to fix it is not the network.
 */
const UNAVAILABLE: Readonly<Record<FailureKind, string>> = {
  network: 'the Kubernetes API server could not be reached',
  timeout: 'the Kubernetes API server did not answer in time',
  'untrusted-certificate': 'the certificate of the Kubernetes API server is not trusted',
  tls: 'the TLS connection to the Kubernetes API server failed',
  unauthorized: 'the Kubernetes API server rejected the credentials feast-authz uses',
  forbidden: 'the Kubernetes API server refused feast-authz a permission it needs',
  http: 'the Kubernetes API server answered with an error',
  unusable: 'the Kubernetes API server gave no usable answer',
  other: 'the Kubernetes API server gave no usable answer'
}

// The cause is what `feast-authz inspect` reports: a refusal names the permission to grant there too.
function unavailable (operation: ApiOperation, target: ApiTarget, failure: Failure): AuthError {
  return new AuthError('cluster_unavailable', UNAVAILABLE[failure.kind], { cause: new ApiServerFailure(operation, target, failure) })
}

/**
 * {@link clusterUnavailable} with its log limited to one line per kind of failure (operation
 * and status) every `intervalMs`: during an outage every new token fails the same way, and
 * the next line reports how many were `suppressed`.
 */
export function createFailureReporter (
  logger: AuthLogger,
  target: ApiTarget,
  options: { intervalMs?: number, now?: () => number } = {}
): (error: unknown, operation: ApiOperation) => AuthError {
  const throttle = createLogThrottle(options)
  return (error, operation) => {
    const failure = describeFailure(error)
    const { log, suppressed } = throttle(`${operation.action}|${failure.status ?? failure.text}`)
    if (!log) return unavailable(operation, target, failure)
    return clusterUnavailable(failure, operation, target, logger, suppressed === 0 ? {} : { suppressed })
  }
}

/**
 * The 503 of a request whose calls to the API server (a TokenReview, then, before the first
 * sync, the RoleBinding and Role lists) took longer together than the one
 * budget of `requestTimeoutMs`, each call having a timeout of its own. Logged as the failures
 * above are, at most one line every `intervalMs`, since slow calls that each succeed log nothing.
 * `operation` is the call the request was waiting for when its time ran out.
 */
export function createOutOfTimeReporter (
  logger: AuthLogger,
  target: ApiTarget,
  options: { intervalMs?: number, now?: () => number } = {}
): (operation: ApiOperation) => AuthError {
  const throttle = createLogThrottle(options)
  const reason = `no answer within requestTimeoutMs (${target.timeoutMs} ms) for this request`
  return (operation) => {
    const { log, suppressed } = throttle('out of time')
    if (log) logger.error({ reason: 'timed out', waitingFor: operation.action, ...(suppressed === 0 ? {} : { suppressed }) }, `the Kubernetes API server could not be used to authenticate a request: ${reason}`)
    return unavailable(operation, target, { status: undefined, text: reason, kind: 'timeout' })
  }
}

/** A short, secret-free description of a failed call (api-request.ts, a watch, the network). */
export function describeFailure (error: unknown): Failure {
  if (error instanceof ApiStatusError) return httpFailure(error.statusCode)
  // Its message names what is wrong and where, never a value: made to be logged.
  if (error instanceof UnusableAnswer) return { status: undefined, text: error.message, kind: 'unusable' }
  if (error instanceof Error) {
    if (error.name === 'AbortError' || error.name === 'TimeoutError') return { status: undefined, text: 'timed out', kind: 'timeout' }
    const code = (error as NodeJS.ErrnoException).code
    const status = (error as { statusCode?: unknown }).statusCode
    if (typeof status === 'number') return httpFailure(status)
    if (typeof code !== 'string') return { status: undefined, text: error.name, kind: 'other' }
    const tls = tlsFailureOf(code)
    if (tls === 'untrusted') return { status: undefined, text: `TLS certificate not trusted (${code})`, kind: 'untrusted-certificate' }
    if (tls === 'other') return { status: undefined, text: `TLS failed (${code})`, kind: 'tls' }
    return { status: undefined, text: `unreachable (${code})`, kind: 'network' }
  }
  return { status: undefined, text: 'unknown failure', kind: 'other' }
}

function httpFailure (status: number): Failure {
  if (status === 403) return { status, text: 'HTTP 403 (forbidden)', kind: 'forbidden' }
  return { status, text: `HTTP ${status}`, kind: status === 401 ? 'unauthorized' : 'http' }
}
