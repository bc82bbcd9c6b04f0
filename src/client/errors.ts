import { FeastAuthzError } from '../base/errors.ts'

/** Why no token could be produced. Stable: scripts and tests match on it. */
export type TokenSourceErrorCode =
  | 'no_token_source'
  | 'env_var_unset'
  | 'service_account_file_unreadable'
  | 'token_file_unreadable'
  | 'provider_unavailable'
  | 'provider_rejected'
  | 'invalid_provider_response'
  | 'malformed_token'

/**
 * The client could not obtain a bearer token (the configuration itself was valid).
 * Messages name the source that failed and never contain a secret or a token.
 */
export class TokenSourceError extends FeastAuthzError {
  override readonly name = 'TokenSourceError'
  declare readonly code: TokenSourceErrorCode
  /** HTTP status of the provider's answer: for `provider_rejected`, and for `provider_unavailable` when the provider answered (a 5xx, a 429). */
  readonly status: number | undefined
  /** The provider's OAuth `error` code (RFC 6749 5.2), for `provider_rejected`, when it sent one. */
  readonly oauthError: string | undefined

  constructor (code: TokenSourceErrorCode, message: string, details: { status?: number, oauthError?: string | undefined, cause?: unknown } = {}) {
    super(code, message, details)
    this.status = details.status
    this.oauthError = details.oauthError
  }
}
