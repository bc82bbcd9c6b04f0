/**
 * Stable reasons an authentication can fail. They appear as `code` in 401/503
 * bodies and logs, so changing one is a breaking change.
 */
export type AuthErrorCode =
  | 'missing_token'
  | 'malformed_header'
  | 'token_too_long'
  | 'malformed_token'
  | 'unsupported_algorithm'
  | 'unknown_key'
  | 'invalid_signature'
  | 'token_expired'
  | 'token_not_yet_valid'
  | 'missing_exp'
  | 'audience_mismatch'
  | 'issuer_mismatch'
  | 'invalid_claims'
  | 'missing_username'
  | 'token_review_rejected'
  | 'provider_unavailable'
  | 'cluster_unavailable'

/**
 * Why a request could not be authenticated. `status` is 401 when the caller's
 * credential is at fault and 503 when we could not find out (provider or API
 * server unreachable): an outage must never read as "bad token", nor as "allowed".
 */
export class AuthError extends Error {
  readonly code: AuthErrorCode
  readonly status: 401 | 503
  /** Seconds a client should wait before retrying, for 503s. */
  readonly retryAfterSeconds: number | undefined

  constructor (code: AuthErrorCode, message: string, options: { cause?: unknown, retryAfterSeconds?: number } = {}) {
    const status = code === 'provider_unavailable' || code === 'cluster_unavailable' ? 503 : 401
    // A 401 judges the caller's credential, on the hot path of every refused request: its stack
    // would only name our own frames and cost microseconds to capture. Outages (503) keep theirs
    // for the logs. The limit is restored at once; nothing else runs in between.
    const limit = Error.stackTraceLimit
    if (status === 401) Error.stackTraceLimit = 0
    try {
      super(message, options.cause === undefined ? undefined : { cause: options.cause })
    } finally {
      Error.stackTraceLimit = limit
    }
    this.code = code
    this.status = status
    this.retryAfterSeconds = status === 503 ? (options.retryAfterSeconds ?? 5) : undefined
  }
}

Object.defineProperty(AuthError.prototype, 'name', { value: 'AuthError', writable: true, configurable: true })
