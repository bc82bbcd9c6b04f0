import type { KubeConfig } from '@kubernetes/client-node'
import type { AuthLogger } from '../../base/logging.ts'
import type { Principal } from '../../base/principal.ts'
import { isCompactJws } from '../../base/jwt-segments.ts'
import { isToken68 } from '../../base/http/bearer.ts'
import { AuthError } from '../../base/errors.ts'
import { createLogThrottle } from '../../base/observability/throttle.ts'
import type { ReviewedIdentity } from './identity.ts'
import { createReviewCache } from './review-cache.ts'
import { withSharedAgent } from './shared-agent.ts'
import { createTokenReviewer } from './token-review.ts'
import type { ApiTarget } from './api-failure.ts'
import type { KubernetesTuning } from './tuning.ts'

/**
 * A token the cluster vouched for, as cached. `principal` and `builtFrom` belong to the
 * caller: the principal it built from this identity and the view (e.g. the RoleBinding
 * index) it was built with, so a repeated token reuses it until that view changes.
 */
export interface ReviewedToken {
  readonly identity: ReviewedIdentity
  principal: Principal | undefined
  builtFrom: unknown
}

export interface CachedTokenReview {
  /** The reviewed token if the cache still vouches for it; no I/O, no promise. */
  cached (token: string): ReviewedToken | undefined
  /**
   * The reviewed token, from the cache or a TokenReview. Rejects with 401
   * `malformed_token` (no API call) when the token is not a compact JWS (unless opaque
   * tokens are accepted; even then, when it is not one token68), another 401 when
   * the cluster rejects it, and 503 when the API server cannot answer or too many reviews
   * are already waiting for it.
   */
  review (token: string): Promise<ReviewedToken>
  readonly size: () => number
  clear (): void
}

export interface CachedTokenReviewOptions {
  readonly logger: AuthLogger
  readonly audiences?: readonly string[] | undefined
  /** `accept_opaque_tokens`: send tokens that are not JWTs to TokenReview too. Default false. */
  readonly acceptOpaqueTokens?: boolean | undefined
  /** Longest reuse of a review, in seconds (`token_review_cache_ttl_seconds`). */
  readonly ttlSeconds: number
  /** Where the reviews go and as whom (`apiTargetOf`); its `timeoutMs` bounds each review. */
  readonly target: ApiTarget
  readonly tuning?: KubernetesTuning | undefined
}

/**
 * Throws 401 `malformed_token` unless the token is a compact JWS. Service-account tokens
 * (and every token a cluster's OIDC or projected-token issuer mints) are JWTs, so anything
 * else would only cost a TokenReview to be told "no".
 */
function requireCompactJws (token: string): void {
  if (!isCompactJws(token)) throw new AuthError('malformed_token', 'the token is not a compact JWS of three unpadded base64url segments (Kubernetes service-account tokens are JWTs)')
}

/**
 * Throws 401 `malformed_token` unless the token is one token68, as a bearer header carries it.
 * The API server reviews a token as the header `Bearer <token>`: an empty token is a 400 (which
 * would be a 503 here) and only what precedes a space is reviewed, so `good junk` would pass as
 * `good` under a cache key of its own.
 */
function requireToken68 (token: string): void {
  if (!isToken68(token)) throw new AuthError('malformed_token', 'the token is not a single bearer token (token68): empty, or with spaces or other characters a bearer header cannot carry')
}

/**
 * Throws 401 `malformed_token` unless the token has a shape worth a TokenReview: a compact JWS,
 * or with `acceptOpaqueTokens`, any single token68.
 */
export function requireReviewableShape (token: string, acceptOpaqueTokens: boolean): void {
  if (acceptOpaqueTokens) requireToken68(token)
  else requireCompactJws(token)
}

/**
 * The one place a TokenReviewer and its cache are built, for kubernetes mode and for
 * service-account tokens under oidc alike, from the same tuning options.
 */
export function createCachedTokenReview (kubeConfig: KubeConfig, options: CachedTokenReviewOptions): CachedTokenReview {
  const { logger } = options
  const tuning = options.tuning ?? {}
  const now = tuning.now ?? Date.now
  const reviewer = createTokenReviewer(withSharedAgent(kubeConfig), {
    logger,
    audiences: options.audiences,
    target: options.target
  })
  const load = async (token: string): Promise<ReviewedToken> => ({ identity: await reviewer(token), principal: undefined, builtFrom: undefined })
  const warnSaturated = throttledWarning(logger, now)
  const reviews = createReviewCache<ReviewedToken>({
    ttlMs: options.ttlSeconds * 1000,
    failureTtlMs: tuning.failureCacheMs ?? 5000,
    maxEntries: tuning.maxCachedTokens ?? 10_000,
    maxRejections: tuning.maxCachedRejections ?? 1000,
    maxInFlight: tuning.maxConcurrentReviews ?? 64,
    onSaturated: warnSaturated,
    now
  })
  return {
    cached: (token) => reviews.peek(reviews.keyOf(token)),
    async review (token) {
      requireReviewableShape(token, options.acceptOpaqueTokens === true)
      return await reviews.get(token, load)
    },
    size: reviews.size,
    clear: reviews.clear
  }
}

/** One warning per 10 s while reviews are saturated, with how many tokens were turned away. */
function throttledWarning (logger: AuthLogger, now: () => number): (inFlight: number) => void {
  const throttle = createLogThrottle({ now })
  return (inFlight) => {
    const { log, suppressed } = throttle('saturated')
    if (!log) return
    logger.warn({ inFlight, refused: suppressed + 1 }, `${inFlight} TokenReviews are already waiting for the Kubernetes API server: new tokens get 503 until they finish (tuning.maxConcurrentReviews)`)
  }
}
