import { AuthError, sharedRefusal } from '../errors.ts'
import { isCompactJws } from '../jwt-segments.ts'

/** Default upper bound of a bearer token, checked before any decoding. */
export const DEFAULT_MAX_TOKEN_LENGTH = 8 * 1024

const SCHEME_LENGTH = 'bearer'.length

// The usual refusals of requests without a usable token.
const NO_HEADER = sharedRefusal('missing_token', 'no Authorization header')
const OTHER_SCHEME = sharedRefusal('missing_token', 'the Authorization header does not use the Bearer scheme')
const NOT_TOKEN68 = sharedRefusal('malformed_header', 'the bearer token has characters outside token68 or more than one token')

/**
 * Reads the token of an `Authorization: Bearer <token>` header (RFC 6750 2.1, RFC 7235):
 * scheme case-insensitive, one or more spaces, then exactly one token68.
 *
 * `rawHeaders` is Node's raw header list: Node silently keeps only the first of
 * two `Authorization` headers, and a request carrying two is refused rather than
 * letting the two ends of a proxy chain disagree on which one counts.
 *
 * A refused header is returned as an AuthError, not thrown: requests without a usable token
 * are common (scanners, forgotten credentials), and a `throw` costs V8 a message with the
 * thrower's source position, many times what the check itself costs.
 */
export function bearerTokenOf (
  authorization: string | string[] | undefined,
  rawHeaders: readonly string[] | undefined,
  maxTokenLength: number = DEFAULT_MAX_TOKEN_LENGTH
): string | AuthError {
  if (authorization === undefined || authorization === '') return NO_HEADER
  if (typeof authorization !== 'string' || countAuthorizationHeaders(rawHeaders) > 1) {
    return new AuthError('malformed_header', 'more than one Authorization header')
  }
  if (authorization.length === SCHEME_LENGTH && authorization.toLowerCase() === 'bearer') {
    // Node trims the header value, so `Bearer ` with nothing after it arrives as `Bearer`.
    return new AuthError('missing_token', 'the Bearer scheme is not followed by a token')
  }
  // The usual spelling first: lower-casing a copy of the scheme allocates, on every request.
  if (authorization.length < SCHEME_LENGTH || (!authorization.startsWith('Bearer') && authorization.slice(0, SCHEME_LENGTH).toLowerCase() !== 'bearer')) {
    // Another scheme (Basic, Negotiate, ...) carries no bearer token at all: answer as for a missing one.
    return OTHER_SCHEME
  }
  let start = SCHEME_LENGTH
  while (authorization.charCodeAt(start) === 0x20) start++
  if (start === SCHEME_LENGTH) return OTHER_SCHEME
  let end = authorization.length
  while (end > start && authorization.charCodeAt(end - 1) === 0x20) end--
  if (end - start > maxTokenLength) {
    return new AuthError('token_too_long', `the bearer token is longer than ${maxTokenLength} characters`)
  }
  if (end === start) return new AuthError('malformed_header', 'the Bearer scheme is not followed by a token')
  const token = authorization.slice(start, end)
  // A canonical compact JWS (the common case, which the verifier checks next anyway) is token68.
  if (!isCompactJws(token) && !TOKEN68.test(token)) return NOT_TOKEN68
  return token
}

// token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
// (A regex: V8 runs this character class several times faster than a charCodeAt loop.)
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/

/** Whether `token` is one RFC 7235 token68: what an `Authorization: Bearer` header can carry. */
export function isToken68 (token: string): boolean {
  return TOKEN68.test(token)
}

/** Whether the request carried at most one `Authorization` header (see {@link bearerTokenOf}). */
export function hasSingleAuthorizationHeader (rawHeaders: readonly string[] | undefined): boolean {
  return countAuthorizationHeaders(rawHeaders) <= 1
}

function countAuthorizationHeaders (rawHeaders: readonly string[] | undefined): number {
  if (rawHeaders === undefined) return 1
  let count = 0
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]
    // The two usual spellings first, for the same reason.
    if (name !== undefined && name.length === 13 && (name === 'authorization' || name === 'Authorization' || name.toLowerCase() === 'authorization')) count++
  }
  return count
}
