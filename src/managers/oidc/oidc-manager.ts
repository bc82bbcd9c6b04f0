import { errors, jwtVerify, type FlattenedJWSInput, type JWSHeaderParameters } from 'jose'
import type { OidcServerConfig } from '../../config/auth-config.ts'
import { ConfigError } from '../../config/errors.ts'
import type { AuthLogger } from '../../base/logging.ts'
import { urlForLog } from '../../base/observability/log-safe-url.ts'
import { createLogThrottle } from '../../base/observability/throttle.ts'
import type { Principal } from '../../base/principal.ts'
import { isCompactJws } from '../../base/jwt-segments.ts'
import { AuthError, sharedRefusal } from '../../base/errors.ts'
import { withinDeadline } from '../../base/deadline.ts'
import type { AuthManager } from '../types.ts'
import { offerReturnedRefusals } from '../returned-refusals.ts'
import { principalFromClaims } from './claims.ts'
import { createDiscovery } from './discovery.ts'
import { unencryptedDiscoveryWarning } from '../../base/http/discovery-document.ts'
import { createAgents, ProviderRequestError } from '../../base/http/http-get.ts'
import { describeReadError, readFailureCause } from '../../base/regular-file.ts'
import { mayBeCredential, pathForMessage } from '../../base/credential-shape.ts'
import { BAD_SIGNATURE, UNKNOWN_KID, verifyFast, type ClaimRules, type PreparedKey } from './fast-verify.ts'
import { createKeySet, type KeySet } from './key-set.ts'
import { createVerifiedCache } from './verified-cache.ts'
import { carriesServiceAccountClaim, looksLikeServiceAccountToken } from './peek.ts'

/**
 * Asymmetric algorithms only. `none` and HS* can never pass: a provider's public key
 * must not double as an HMAC secret. Each key is further pinned to its own `kty`/`crv`/`alg`.
 */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const

const UNKNOWN_KEY_MESSAGE = 'the token was not signed by a key of the identity provider'

// The refusals a flood of bad tokens gets, decided without I/O.
const MALFORMED = sharedRefusal('malformed_token', 'the token is not a compact JWS of three canonical unpadded base64url segments')
const INVALID_SIGNATURE = sharedRefusal('invalid_signature', 'the token signature is invalid')
const UNKNOWN_KEY = sharedRefusal('unknown_key', UNKNOWN_KEY_MESSAGE)

/** Seconds of clock skew tolerated on `exp`/`nbf`/`iat`, as Feast's leeway. */
export const CLOCK_TOLERANCE_SECONDS = 10

export interface OidcManagerOptions {
  readonly logger: AuthLogger
  /** Validates tokens carrying a `kubernetes.io` claim (spec 5.3); absent → they follow the JWKS path. */
  readonly serviceAccountTokens?: ((token: string) => Promise<Principal>) | undefined
  /** Minimum seconds between two key-set refetches caused by unknown `kid`s. Default 30. */
  readonly unknownKidCooldownSeconds?: number | undefined
  /** Seconds a failed discovery or key-set fetch is not retried. Default 1. */
  readonly failureBackoffSeconds?: number | undefined
  /** Verified tokens remembered (LRU), so a repeated token costs a hash, not a signature check. Default 10,000; 0 disables. */
  readonly verifiedTokenCacheSize?: number | undefined
}

export function createOidcManager (config: OidcServerConfig, options: OidcManagerOptions): AuthManager {
  const { logger } = options
  const timeoutMs = config.jwks_request_timeout_seconds * 1000
  const failureBackoffMs = (options.failureBackoffSeconds ?? 1) * 1000
  const agents = createProviderAgents(config)
  if (!config.verify_ssl) {
    logger.warn({ discovery: urlForLog(config.auth_discovery_url) }, 'verify_ssl is false: TLS certificates of the identity provider are NOT verified (development only)')
  }
  const unencrypted = unencryptedDiscoveryWarning(config.auth_discovery_url)
  if (unencrypted !== undefined) logger.warn({ discovery: urlForLog(config.auth_discovery_url) }, unencrypted)
  const unchecked = [config.audience === undefined ? 'audience' : undefined, config.issuer === undefined ? 'issuer' : undefined].filter((field) => field !== undefined)
  if (unchecked.length > 0) {
    logger.info({ discovery: urlForLog(config.auth_discovery_url), unchecked },
      `OIDC: ${unchecked.join(' and ')} not checked: any unexpired token signed by the provider's keys is accepted, ` +
      `${config.audience === undefined ? 'whichever client it was issued for' : 'whichever issuer it names'}; ` +
      `set auth.${unchecked.join(' and auth.')} in feature_store.yaml to accept only tokens meant for this server`)
  }
  // One error line per kind of provider failure and 10 s, not one per request of an outage.
  const throttle = createLogThrottle()
  const discovery = createDiscovery(config.auth_discovery_url, {
    agents,
    timeoutMs,
    failureBackoffMs,
    onWarning: (warning) => { logger.warn({ discovery: urlForLog(config.auth_discovery_url) }, warning) }
  })
  let keySet: KeySet | undefined
  // Set by close(): a fetch it cut short (the agents destroyed under it) is not an outage to report.
  let closed = false

  const getKeySet = async (): Promise<KeySet> => {
    if (keySet !== undefined) return keySet
    let jwksUri: string
    try {
      jwksUri = (await discovery.get()).jwks_uri
    } catch (error) {
      const { log, suppressed } = closed ? { log: false, suppressed: 0 } : throttle('discovery')
      if (log) logger.error({ err: error, discovery: urlForLog(config.auth_discovery_url), ...(suppressed > 0 ? { suppressed } : {}) }, 'OIDC discovery failed')
      throw new AuthError('provider_unavailable', 'the discovery document of the identity provider could not be fetched', { cause: error })
    }
    keySet ??= createKeySet(jwksUri, {
      agents,
      timeoutMs,
      failureBackoffMs,
      lifespanMs: config.jwks_cache_lifespan_seconds * 1000,
      cooldownMs: (options.unknownKidCooldownSeconds ?? 30) * 1000,
      onIgnoredKey: (key) => {
        const log = key.expected ? logger.debug : logger.warn
        log.call(logger, { kid: key.kid, reason: key.reason }, 'a key of the identity provider\'s key set is not used')
      },
      onRefreshError: (error) => {
        const { log, suppressed } = throttle('jwks-refresh')
        if (log) logger.warn({ err: error, ...(suppressed > 0 ? { suppressed } : {}) }, 'refreshing the OIDC signing keys failed; the current keys stay in use until their lifespan ends')
      }
    })
    return keySet
  }

  const verifyOptions = {
    algorithms: [...ALLOWED_ALGORITHMS],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['exp'],
    ...(config.audience === undefined ? {} : { audience: config.audience }),
    ...(config.issuer === undefined ? {} : { issuer: config.issuer })
  }
  const claimRules: ClaimRules = { audience: config.audience, issuer: config.issuer, clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS }
  const cache = createVerifiedCache(options.verifiedTokenCacheSize ?? 10_000)
  const { serviceAccountTokens } = options

  /**
   * Spec 5.2.9: jwks_request_timeout_seconds bounds how long the provider can hold a request. Each
   * fetch has that timeout, and a token may need several in a row (discovery, then the key set,
   * then a refetch for an unknown kid): the request gets one budget for all of them.
   */
  const outOfTime = (): AuthError => new AuthError('provider_unavailable', 'the identity provider did not answer in time', {
    cause: new ProviderRequestError(`the identity provider did not answer: timed out after jwks_request_timeout_seconds (${config.jwks_request_timeout_seconds} s) for this request`)
  })

  /** jose, the oracle, for whatever the fast path could not decide (and to fetch keys). */
  const verifyWithJose = async (token: string): Promise<{ payload: Record<string, unknown>, key: PreparedKey | undefined }> => {
    try {
      const { payload, protectedHeader } = await withinDeadline(jwtVerify(
        token,
        async (header: JWSHeaderParameters, jws: FlattenedJWSInput) => await (await getKeySet()).resolve(header, jws),
        verifyOptions
      ), timeoutMs, outOfTime)
      const candidates = protectedHeader.kid === undefined ? undefined : keySet?.preparedKeys()?.get(protectedHeader.kid)
      return { payload, key: candidates?.length === 1 ? candidates[0] : undefined }
    } catch (error) {
      const failure = toAuthError(error)
      if (failure.status === 503) {
        const { log, suppressed } = throttle('jwks')
        if (log) logger.error({ err: error, ...(suppressed > 0 ? { suppressed } : {}) }, 'OIDC key set unavailable')
      }
      throw failure
    }
  }

  const cached = (cacheKey: string): Principal | undefined => {
    const hit = cache.get(cacheKey)
    if (hit === undefined) return undefined
    const now = Date.now()
    if (hit.expiresAt > now && keySet?.isCurrent(hit.key, now) === true) return hit.principal
    cache.delete(cacheKey)
    return undefined
  }

  /** `cacheKey`: where to remember the verdict; undefined for a token verified for the first time (recently), which is only marked. */
  const admit = (token: string, cacheKey: string | undefined, payload: Record<string, unknown>, key: PreparedKey | undefined): Principal => {
    // JSON numbers such as 1e400 parse to Infinity, which passes every "exp > now" check.
    if (!Number.isFinite(payload.exp)) throw new AuthError('invalid_claims', 'the token\'s "exp" claim is not a finite number')
    const principal = principalFromClaims(payload, config.client_id)
    // Only verdicts tied to a known key are remembered: they die with the key or at `exp`.
    if (cacheKey === undefined) cache.mark(token)
    else if (key !== undefined && typeof payload.exp === 'number') cache.set(cacheKey, { principal, expiresAt: payload.exp * 1000, key })
    return principal
  }

  /**
   * Synchronous whenever no I/O is needed: a cached verdict, or a canonical token checked with
   * node:crypto against fresh keys, and the refusals reached that way are returned, not thrown
   * (see returned-refusals.ts). Only the rest (first requests, refetches, odd tokens that jose
   * must judge, service-account tokens) returns a promise.
   */
  const decide = (token: string): Principal | AuthError | Promise<Principal> => {
    // A token not verified before (recently) is neither hashed nor looked up nor stored.
    const cacheKey = cache.seen(token) ? cache.keyOf(token) : undefined
    if (cacheKey !== undefined) {
      const hit = cached(cacheKey)
      if (hit !== undefined) return hit
    }
    // Routing (spec 5.3) is read from the payload the provider's keys verified when they do: the raw
    // payload is then neither searched nor decoded a second time. Any other token (a
    // non-canonical one included) is routed on its unverified payload before a verdict is given on it.
    const compact = isCompactJws(token)
    const keys = compact ? keySet?.preparedKeys() : undefined
    const verdict = keys === undefined ? undefined : verifyFast(token, keys, claimRules, Math.floor(Date.now() / 1000))
    if (verdict?.ok === true) {
      if (serviceAccountTokens !== undefined && carriesServiceAccountClaim(verdict.payload)) return serviceAccountTokens(token)
      return admit(token, cacheKey, verdict.payload, verdict.key)
    }
    if (serviceAccountTokens !== undefined && looksLikeServiceAccountToken(token)) return serviceAccountTokens(token)
    if (!compact) return MALFORMED
    if (verdict === BAD_SIGNATURE) return INVALID_SIGNATURE
    // While the cooldown runs, jose would find no key and refetch nothing: answer without it.
    if (verdict === UNKNOWN_KID && keySet?.refusesUnknownKid() === true) return UNKNOWN_KEY
    return verifyWithJose(token).then(({ payload, key }) =>
      serviceAccountTokens !== undefined && carriesServiceAccountClaim(payload) ? serviceAccountTokens(token) : admit(token, cacheKey, payload, key))
  }

  const authenticate = (token: string): Principal | Promise<Principal> => {
    const outcome = decide(token)
    if (outcome instanceof AuthError) throw outcome
    return outcome
  }

  return offerReturnedRefusals({
    type: 'oidc',
    authenticate,
    authenticateCached: (token) => cache.seen(token) ? cached(cache.keyOf(token)) : undefined,
    async warmUp () {
      try {
        await (await getKeySet()).reload()
      } catch (error) {
        if (closed) logger.debug({ err: error }, 'loading the OIDC signing keys stopped: the server is closing')
        else {
          logger.warn({ err: error }, 'could not load the OIDC signing keys at startup: requests with a token get 503 provider_unavailable until they load (each retries); ' +
            'check auth_discovery_url and that the provider is up (`feast-authz inspect` with this feature_store.yaml says which)')
        }
      }
    },
    health () {
      const keys = keySet?.keys()
      return { ready: keys !== undefined, detail: { discovery: discovery.loaded(), keys: keys?.length ?? 0, fresh: keySet?.fresh() ?? false } }
    },
    async close () {
      closed = true
      agents.http.destroy()
      agents.https.destroy()
    }
  }, decide)
}

function createProviderAgents (config: OidcServerConfig): ReturnType<typeof createAgents> {
  try {
    return createAgents({ verify: config.verify_ssl, ca: config.ca_cert_path })
  } catch (error) {
    const path = config.ca_cert_path ?? ''
    const shown = mayBeCredential(path) ? pathForMessage(path) : JSON.stringify(path)
    throw new ConfigError(`cannot read the CA bundle ${shown}: ${describeReadError(error)}`, { field: 'auth.ca_cert_path' }, readFailureCause(path, error))
  }
}

/**
 * Maps jose's failures to stable codes with messages safe to show to the caller. Anything
 * that is not a judgement of the token is rethrown: the adapters answer it with a logged
 * 500, never with a 401 that would blame the caller.
 */
export function toAuthError (error: unknown): AuthError {
  if (error instanceof AuthError) return error
  if (error instanceof errors.JWTExpired) return new AuthError('token_expired', 'the token has expired')
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'exp' && error.reason === 'missing') return new AuthError('missing_exp', 'the token has no "exp" claim')
    if (error.claim === 'nbf' && error.reason === 'check_failed') return new AuthError('token_not_yet_valid', 'the token is not valid yet')
    if (error.claim === 'aud') return new AuthError('audience_mismatch', 'the token is not meant for this audience')
    if (error.claim === 'iss') return new AuthError('issuer_mismatch', 'the token was issued by another issuer')
    return new AuthError('invalid_claims', `the token's "${error.claim}" claim is invalid`)
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return new AuthError('invalid_signature', 'the token signature is invalid')
  // jose reports an unrecognised `crit` extension as "not supported" too: that is a token
  // defect (RFC 7515 4.1.11), not an algorithm choice.
  if (error instanceof errors.JOSENotSupported && /Extension Header Parameter/.test(error.message)) {
    return new AuthError('malformed_token', 'the token names a critical header extension this server does not understand')
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return new AuthError('unsupported_algorithm', 'the token is not signed with an algorithm the provider\'s keys allow')
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return new AuthError('unknown_key', UNKNOWN_KEY_MESSAGE)
  }
  // No cause: jose's message can quote what it decoded from the token, and a refusal is
  // answered and logged; the code says all the caller can act on.
  if (error instanceof errors.JOSEError) return new AuthError('malformed_token', 'the token is not a well-formed signed JWT')
  // Not jose's verdict on the token: a fault of ours or of the provider's answers. Never a 401.
  throw error
}
