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
  override readonly name = 'AuthError'
  readonly code: AuthErrorCode
  readonly status: 401 | 503
  /** Seconds a client should wait before retrying, for 503s. */
  readonly retryAfterSeconds: number | undefined

  constructor (code: AuthErrorCode, message: string, options: { cause?: unknown, retryAfterSeconds?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.status = code === 'provider_unavailable' || code === 'cluster_unavailable' ? 503 : 401
    this.retryAfterSeconds = this.status === 503 ? (options.retryAfterSeconds ?? 5) : undefined
  }
}
