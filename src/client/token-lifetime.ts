import { decodeSegment } from '../base/jwt-segments.ts'

/**
 * The longest a fetched token is reused, whatever it or the token endpoint says: 24 hours. An
 * opaque token has only `expires_in` to say when it ends, and a JWT's unverified `exp` is what
 * its issuer wrote: a provider answering `expires_in: 1e306` (or 1e12, or 1e400, which JSON
 * reads as Infinity), or issuing a JWT with `exp: 1e306` or an `exp` past what a `Date` holds
 * (8.64e12 s), would have the token sent until a server refused it. 24 hours is Auth0's default
 * lifetime for API tokens, longer than most providers' (Keycloak 5 minutes, Google and Okta 1
 * hour): the bound shortens hardly any lifetime a provider meant, and a wrong one costs one token
 * request a day (and a 401 drops the token at once anyway). The token itself is sent as it came;
 * only its reuse is bounded. golang.org/x/oauth2 clamps `expires_in` at 2^31-1 s (68 years) and
 * oauth4webapi sets no bound: both only keep the arithmetic finite, which a cache needs but does
 * not make it refresh.
 */
export const MAX_TOKEN_REUSE_SECONDS = 24 * 60 * 60

/**
 * How long a token that says nothing about its lifetime is reused: 5 minutes. RFC 6749 5.1 makes
 * `expires_in` RECOMMENDED and, when it is left out, has the provider document the lifetime
 * instead, which a client cannot read. Feast's Python client then fetches a token for every call;
 * simple-oauth2 and openid-client 5 (and golang.org/x/oauth2) reuse it for ever. Reuse spares the
 * provider a token request per call, and a token refused meanwhile costs one 401, after which
 * `createAuthFetch` drops it and sends the request again with a fresh one. 5 minutes is the
 * shortest default among the common providers (Keycloak's), so a token is seldom sent past its
 * end, and one that is has been refetched within 5 minutes even without a 401 in between.
 */
export const UNKNOWN_LIFETIME_SECONDS = 5 * 60

/**
 * Until when (epoch ms) a token just fetched may be reused, before the refresh margin: the
 * earlier of its `exp` claim (read without verification, only to schedule a refresh) and now +
 * `expires_in`; now + {@link UNKNOWN_LIFETIME_SECONDS} when neither says anything usable; never
 * later than now + {@link MAX_TOKEN_REUSE_SECONDS}. An `exp` or `expires_in` already past (zero or
 * negative) is a time already past: the token is used once, not reused.
 */
export function reuseUntil (token: string, expiresIn: unknown, now: number): number {
  const candidates: number[] = []
  const exp = readExp(token)
  if (exp !== undefined) candidates.push(exp * 1000)
  const lifetime = lifetimeOf(expiresIn)
  if (lifetime !== undefined) candidates.push(now + lifetime * 1000)
  if (candidates.length === 0) candidates.push(now + UNKNOWN_LIFETIME_SECONDS * 1000)
  // Math.min also bounds an exp of Infinity (`1e400` in the JSON) and of 1e306 (Infinity once in ms).
  return Math.min(...candidates, now + MAX_TOKEN_REUSE_SECONDS * 1000)
}

/**
 * `expires_in` in seconds; undefined when it says nothing usable. RFC 6749 5.1 makes it a number,
 * but some providers (Azure AD v1, PayPal) send a string of digits, which is read as that number.
 * Zero or negative is a lifetime already over. Anything else (another string, `"1e3"`, `null`, a
 * list) is not a lifetime, and counts as a missing `expires_in`.
 */
function lifetimeOf (expiresIn: unknown): number | undefined {
  if (typeof expiresIn === 'number') return Math.max(expiresIn, 0)
  if (typeof expiresIn === 'string' && /^[0-9]+$/.test(expiresIn)) return Number(expiresIn)
  return undefined
}

/**
 * The `exp` claim of a JWT, when it is a number (RFC 7519 NumericDate; JSON gives no NaN, but may
 * give ±Infinity for `1e400`); undefined for an opaque token, a payload that is not JSON, and an
 * `exp` of another type, which says nothing (and which servers refuse anyway).
 */
function readExp (token: string): number | undefined {
  if (token.split('.').length !== 3) return undefined
  const exp = decodeSegment(token, 1)?.exp
  return typeof exp === 'number' ? exp : undefined
}
