import type { KubeConfig } from '@kubernetes/client-node'
import { performance } from 'node:perf_hooks'
import type { AuthLogger } from '../../base/logging.ts'
import { elapsedMs, tokenReviewChannel, type TokenReviewEvent } from '../../base/observability/channels.ts'
import { AuthError } from '../../base/errors.ts'
import { redactJwtsIn } from '../../base/observability/log-safe-url.ts'
import { createFailureReporter, type ApiOperation, type ApiTarget } from './api-failure.ts'
import { ApiStatusError, callApi, UnusableAnswer } from './api-request.ts'
import { namespacesOf, serviceAccountGroupConflict, type ReviewedIdentity } from './identity.ts'
import { read } from './json-shape.ts'

export interface TokenReviewOptions {
  readonly logger: AuthLogger
  /** Sent in the review; `status.audiences` must then contain one of them. */
  readonly audiences?: readonly string[] | undefined
  /** The API server and the caller, for failures; a review is aborted after its `timeoutMs` (→ 503). */
  readonly target: ApiTarget
}

/** Asks the API server who a token belongs to. Rejects with an AuthError (401 or 503). */
export type TokenReviewer = (token: string) => Promise<ReviewedIdentity>

/** The call a TokenReviewer makes, and the permission it needs. */
export const TOKEN_REVIEW: ApiOperation = {
  action: 'TokenReview',
  permission: 'create tokenreviews.authentication.k8s.io (cluster-wide, e.g. through the ClusterRole system:auth-delegator)'
}

const TOKEN_REVIEWS_PATH = '/apis/authentication.k8s.io/v1/tokenreviews'
const ANONYMOUS_USER = 'system:anonymous'
const UNAUTHENTICATED_GROUP = 'system:unauthenticated'
const API_VERSION = 'authentication.k8s.io/v1'
/**
 * Largest TokenReview answer read. A review is the token sent back (a few KiB) and a user: even
 * thousands of groups fit many times over; a longer answer is refused (503), never buffered.
 */
export const MAX_REVIEW_BYTES = 1024 * 1024

/** The status of a TokenReview answer, read as the API defines it (`authentication.k8s.io/v1` TokenReviewStatus). */
export interface ReviewStatus {
  /** `authenticated`; false when absent (Go omits a false). */
  readonly authenticated: boolean
  readonly error: string | undefined
  readonly audiences: readonly string[] | undefined
  readonly user: { readonly username: string | undefined, readonly groups: readonly string[] } | undefined
}

/**
 * A {@link TokenReviewer} over `authentication.k8s.io/v1` TokenReview. Identity comes only
 * from `status.user` of a review whose `status.authenticated` is true; nothing is ever read
 * from the token itself. The review object echoes the token, so it is never logged. An answer
 * that is not a TokenReview about this token as the API defines it is a 503 (the API server is
 * at fault, not the token): see {@link readTokenReview}.
 */
export function createTokenReviewer (kubeConfig: KubeConfig, options: TokenReviewOptions): TokenReviewer {
  const audiences = options.audiences === undefined ? undefined : [...options.audiences]
  const report = createFailureReporter(options.logger, options.target)
  return async (token) => {
    let status: ReviewStatus
    const startedAt = performance.now()
    try {
      const answer = await callApi(kubeConfig, {
        method: 'POST',
        path: TOKEN_REVIEWS_PATH,
        body: { apiVersion: API_VERSION, kind: 'TokenReview', spec: { token, ...(audiences === undefined ? {} : { audiences }) } },
        timeoutMs: options.target.timeoutMs,
        maxBytes: MAX_REVIEW_BYTES
      })
      status = readTokenReview(answer, token, audiences)
    } catch (error) {
      const failure = audienceValidationFailure(error, audiences) ?? report(error, TOKEN_REVIEW)
      if (tokenReviewChannel.hasSubscribers) tokenReviewChannel.publish({ outcome: 'error', error: failure.message, durationMs: elapsedMs(startedAt) } satisfies TokenReviewEvent)
      throw failure
    }
    if (tokenReviewChannel.hasSubscribers) {
      tokenReviewChannel.publish({
        outcome: status.authenticated ? 'authenticated' : 'rejected',
        ...(status.authenticated && status.user?.username !== undefined ? { username: status.user.username } : {}),
        durationMs: elapsedMs(startedAt)
      } satisfies TokenReviewEvent)
    }
    if (!status.authenticated && status.error !== undefined) {
      // The API server's reason (e.g. "token has been invalidated") helps operators. A real server's
      // reason never holds a token; a broken authenticator's might (this one, or our own credential
      // from the Authorization header), so they are cut out.
      options.logger.debug({ reason: redactJwtsIn(status.error.split(token).join('[the token]')).slice(0, 200) }, 'TokenReview did not authenticate the token')
    }
    return identityFromReview(status, audiences)
  }
}

/**
 * The API server answers 500 "error validating audiences" when an audience-unaware
 * authenticator (a webhook) vouched for the token with other audiences than requested: the
 * token is not for us, which is the token's fault (401), not an outage.
 */
function audienceValidationFailure (error: unknown, audiences: readonly string[] | undefined): AuthError | undefined {
  if (audiences === undefined || !(error instanceof ApiStatusError) || error.statusCode !== 500) return undefined
  if (error.serverMessage?.includes('error validating audiences') !== true) return undefined
  return new AuthError('token_review_rejected', 'the token was not issued for this service\'s audience')
}

/**
 * The status of a TokenReview answer for `token`, or an {@link UnusableAnswer} when the answer is
 * not one a correct API server gives: another kind (a `Status`, a proxy's JSON), a field of
 * another type, a review of another token (`spec.token`, which the API server sends back, names a
 * token we did not send: a proxy mixing up answers), `authenticated` together with an `error`
 * (the union authenticator returns an error only when no authenticator said yes), audiences we
 * asked for beside others (the API server answers only from the intersection with ours; none of
 * ours at all is the token's 401, in {@link identityFromReview}), or a service account with the
 * service-account group of another namespace. Exported for unit tests.
 */
export function readTokenReview (answer: unknown, token: string, audiences: readonly string[] | undefined): ReviewStatus {
  const review = read.object(answer, 'the TokenReview answer')
  read.exactly(review.kind, 'the TokenReview answer\'s kind', 'TokenReview')
  read.exactly(review.apiVersion, 'the TokenReview answer\'s apiVersion', API_VERSION)
  const spec = read.optionalObject(review.spec, 'the TokenReview answer\'s spec')
  const echoed = read.optionalText(spec?.token, 'the TokenReview answer\'s spec.token')
  if (echoed !== undefined && echoed !== token) throw new UnusableAnswer('the TokenReview answer is about another token than the one sent (spec.token differs)')
  const status = read.object(review.status, 'the TokenReview answer\'s status')
  const authenticated = read.optionalBoolean(status.authenticated, 'TokenReview status.authenticated') ?? false
  const error = read.optionalText(status.error, 'TokenReview status.error')
  const confirmed = read.optionalTexts(status.audiences, 'TokenReview status.audiences')
  const user = read.optionalObject(status.user, 'TokenReview status.user')
  const username = read.optionalText(user?.username, 'TokenReview status.user.username')
  const groups = read.optionalTexts(user?.groups, 'TokenReview status.user.groups') ?? []
  if (authenticated && error !== undefined && error !== '') throw new UnusableAnswer('TokenReview status.authenticated is true and status.error is set: a review is one or the other')
  // None of ours is the token's fault, a 401 (identityFromReview); ours and others, the server's.
  const asked = (audience: string): boolean => audiences?.includes(audience) === true
  if (authenticated && audiences !== undefined && confirmed !== undefined && confirmed.some(asked) && !confirmed.every(asked)) {
    throw new UnusableAnswer('TokenReview status.audiences names, beside an audience asked for, one that was not')
  }
  const conflict = authenticated && username !== undefined ? serviceAccountGroupConflict(username, groups) : undefined
  if (conflict !== undefined) throw new UnusableAnswer(`TokenReview status.user: ${conflict}`)
  return { authenticated, error, audiences: confirmed, user: user === undefined ? undefined : { username, groups } }
}

/** Checks a review's verdict and extracts the identity: 401s only (the token is at fault). Exported for unit tests. */
export function identityFromReview (status: ReviewStatus, audiences: readonly string[] | undefined): ReviewedIdentity {
  if (!status.authenticated) throw new AuthError('token_review_rejected', 'the Kubernetes API server did not authenticate the token')
  if (audiences !== undefined) {
    // An empty status.audiences means "valid for the API server itself", which is not us.
    const confirmed = status.audiences ?? []
    if (!confirmed.some((audience) => audiences.includes(audience))) {
      throw new AuthError('token_review_rejected', 'the token was not issued for this service\'s audience')
    }
  }
  const username = status.user?.username ?? ''
  if (username === '') throw new AuthError('missing_username', 'the token review named no user')
  const groups = (status.user?.groups ?? []).filter((group) => group !== '')
  // kube-apiserver's anonymous authenticator names requests that carry no credential it could
  // judge (apiserver pkg/authentication/request/anonymous): whatever a review says, a token that
  // makes its bearer anonymous identifies nobody, and bindings to system:unauthenticated are
  // for requests without a token.
  if (username === ANONYMOUS_USER || groups.includes(UNAUTHENTICATED_GROUP)) throw new AuthError('token_review_rejected', 'the token review named the anonymous user: the token identifies nobody')
  return { username, groups, namespaces: namespacesOf(username, groups) }
}
