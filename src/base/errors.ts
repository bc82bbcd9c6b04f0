/**
 * The base of every error feast-authz throws on purpose. `code` is stable (a breaking change
 * when it changes), so callers can branch on it; `name` says which family it belongs to:
 * `AuthError` (a request's credential), `ConfigError` (feature_store.yaml), `PermissionError`
 * (a permission definition), `OptionError` (an option given in code), `TokenSourceError`
 * (a client could not get a token). Anything else thrown is a bug.
 */
export class FeastAuthzError extends Error {
  override readonly name: string = 'FeastAuthzError'
  /** Stable identifier of the failure. */
  readonly code: string

  constructor (code: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
  }
}

/**
 * An option given in code (to the plugin, the middleware, `requirePermission`, a renderer) is
 * invalid: a programming error, reported when the option is given, never at request time.
 */
export class OptionError extends FeastAuthzError {
  override readonly name = 'OptionError'
  override readonly code = 'FEAST_AUTHZ_OPTION'
  /** Dotted path of the offending option when one is to blame, e.g. `kubernetes.tuning.maxConcurrentReviews`. */
  readonly option: string | undefined

  constructor (message: string, details: { option?: string | undefined } = {}) {
    super('FEAST_AUTHZ_OPTION', `feast-authz: ${message}`)
    this.option = details.option
  }
}

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
export class AuthError extends FeastAuthzError {
  override readonly name = 'AuthError'
  declare readonly code: AuthErrorCode
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
      super(code, message, options)
    } finally {
      Error.stackTraceLimit = limit
    }
    this.status = status
    this.retryAfterSeconds = status === 503 ? (options.retryAfterSeconds ?? 5) : undefined
  }
}

const sharedRefusals = new WeakSet<AuthError>()

/**
 * A refusal shared by every request it answers (frozen): a 401 of a fixed message carries nothing
 * of the request, and building an Error costs V8 a stack-capture call, so the usual refusals of
 * a flood are built once. Answers to them are cached by identity (see {@link isSharedRefusal}).
 */
export function sharedRefusal (code: AuthErrorCode, message: string): AuthError {
  const refusal = Object.freeze(new AuthError(code, message))
  sharedRefusals.add(refusal)
  return refusal
}

/** Whether `error` came from {@link sharedRefusal}: the same object answers many requests. */
export function isSharedRefusal (error: AuthError): boolean {
  return sharedRefusals.has(error)
}
