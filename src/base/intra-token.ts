import { randomUUID } from 'node:crypto'
import { isCompactJws } from './compact-jws.ts'
import { decodeSegment } from './jwt-segments.ts'
import { errors, jwtVerify, SignJWT } from 'jose'
import { AuthError } from './errors.ts'

/**
 * `typ` header of an intra-server token. Provider tokens never carry it, and the
 * server only tries the intra key on tokens that do, so the two cannot be confused.
 */
export const INTRA_TOKEN_TYPE = 'feast-intra+jwt'
/** `iss` and `aud` of every intra token: one more thing a provider token cannot match. */
const INTRA_ISSUER = 'feast-authz/intra'
/** Username of the intra-server principal. */
export const INTRA_USERNAME = 'feast-authz:intra-server'
/** Lifetime of a minted token: long enough for one call, short enough that a leaked one soon dies. */
export const INTRA_TOKEN_LIFETIME_SECONDS = 60
/** Clock skew tolerated between servers of one deployment. */
const INTRA_CLOCK_TOLERANCE_SECONDS = 5

/**
 * Mints a short-lived intra-server token: a JWS signed with HMAC-SHA256 keyed by the
 * decoded `INTRA_COMMUNICATION_BASE64` secret. The secret itself is never in the token.
 *
 * WARNING: the intra-server identity passes every permission check (it stands for the servers
 * themselves). Whoever holds the secret can mint such tokens: keep it in a Secret mounted only
 * into the servers of one deployment, and rotate it if it leaks.
 */
export async function mintIntraToken (secret: Uint8Array, now: number = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000)
  return await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: INTRA_TOKEN_TYPE })
    .setIssuer(INTRA_ISSUER)
    .setAudience(INTRA_ISSUER)
    .setSubject(INTRA_USERNAME)
    .setIssuedAt(iat)
    .setExpirationTime(iat + INTRA_TOKEN_LIFETIME_SECONDS)
    .setJti(randomUUID())
    .sign(secret)
}

/**
 * Routing only: does the unverified protected header say "intra token"? Nothing else
 * is read before the signature check, and the answer only picks the verifier.
 */
export function looksLikeIntraToken (token: string): boolean {
  return token.includes('.') && decodeSegment(token, 0)?.typ === INTRA_TOKEN_TYPE
}

/**
 * Verifies an intra token: HS256 only (so `none` and every other algorithm fail),
 * the right `typ`, `iss`, `aud` and `sub`, an `exp`, and an `iat` no older than the
 * lifetime. Rejects with a 401 {@link AuthError}; resolves when the token is good.
 */
export async function verifyIntraToken (token: string, secret: Uint8Array, now: number = Date.now()): Promise<void> {
  if (!isCompactJws(token)) throw new AuthError('malformed_token', 'the intra-server token is not a compact JWS of three unpadded base64url segments')
  try {
    await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      typ: INTRA_TOKEN_TYPE,
      issuer: INTRA_ISSUER,
      audience: INTRA_ISSUER,
      subject: INTRA_USERNAME,
      requiredClaims: ['exp', 'iat'],
      maxTokenAge: INTRA_TOKEN_LIFETIME_SECONDS,
      clockTolerance: INTRA_CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(now)
    })
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new AuthError('token_expired', 'the intra-server token has expired')
    if (error instanceof errors.JWSSignatureVerificationFailed) throw new AuthError('invalid_signature', 'the intra-server token signature is invalid')
    if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
      throw new AuthError('unsupported_algorithm', 'the intra-server token is not signed with HS256')
    }
    if (error instanceof errors.JWTClaimValidationFailed) throw new AuthError('invalid_claims', `the intra-server token's "${error.claim}" claim is invalid`)
    throw new AuthError('malformed_token', 'the intra-server token is not a well-formed signed JWT')
  }
}
