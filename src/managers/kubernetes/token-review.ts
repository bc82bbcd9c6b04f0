import type { KubeConfig, V1TokenReview } from '@kubernetes/client-node'
import { performance } from 'node:perf_hooks'
import type { AuthLogger } from '../../base/logging.ts'
import { elapsedMs, tokenReviewChannel, type TokenReviewEvent } from '../../base/observability/channels.ts'
import { AuthError } from '../../base/errors.ts'
import { createFailureReporter, type ApiOperation, type ApiTarget } from './api-failure.ts'
import { namespacesOf, type ReviewedIdentity } from './identity.ts'
import { kubernetesClient } from './client-library.ts'
import { withTimeout } from './request-timeout.ts'

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

/**
 * A {@link TokenReviewer} over `authentication.k8s.io/v1` TokenReview. Identity comes only
 * from `status.user` of a review whose `status.authenticated` is true; nothing is ever read
 * from the token itself. The review object echoes the token, so it is never logged.
 */
export function createTokenReviewer (kubeConfig: KubeConfig, options: TokenReviewOptions): TokenReviewer {
  const api = kubeConfig.makeApiClient(kubernetesClient().AuthenticationV1Api)
  const audiences = options.audiences === undefined ? undefined : [...options.audiences]
  const report = createFailureReporter(options.logger, options.target)
  return async (token) => {
    let review: V1TokenReview
    const startedAt = performance.now()
    try {
      review = await api.createTokenReview({
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(audiences === undefined ? {} : { audiences }) } }
      }, withTimeout(options.target.timeoutMs))
    } catch (error) {
      const failure = audienceValidationFailure(error, audiences) ?? report(error, TOKEN_REVIEW)
      if (tokenReviewChannel.hasSubscribers) tokenReviewChannel.publish({ outcome: 'error', error: failure.message, durationMs: elapsedMs(startedAt) } satisfies TokenReviewEvent)
      throw failure
    }
    if (tokenReviewChannel.hasSubscribers) {
      const authenticated = review.status?.authenticated === true
      tokenReviewChannel.publish({
        outcome: authenticated ? 'authenticated' : 'rejected',
        ...(authenticated && typeof review.status?.user?.username === 'string' ? { username: review.status.user.username } : {}),
        durationMs: elapsedMs(startedAt)
      } satisfies TokenReviewEvent)
    }
    if (review.status?.authenticated !== true && typeof review.status?.error === 'string') {
      // The API server's reason (e.g. "token has been invalidated") helps operators; it never contains the token.
      options.logger.debug({ reason: review.status.error.slice(0, 200) }, 'TokenReview did not authenticate the token')
    }
    return identityFromReview(review, audiences)
  }
}

/**
 * The API server answers 500 "error validating audiences" when an audience-unaware
 * authenticator (a webhook) vouched for the token with other audiences than requested: the
 * token is not for us, which is the token's fault (401), not an outage.
 */
function audienceValidationFailure (error: unknown, audiences: readonly string[] | undefined): AuthError | undefined {
  if (audiences === undefined || !(error instanceof kubernetesClient().ApiException)) return undefined
  if ((error as { code?: unknown }).code !== 500) return undefined
  const body: unknown = (error as { body?: unknown }).body
  const message = typeof body === 'string' ? body : (body as { message?: unknown } | undefined)?.message
  if (typeof message !== 'string' || !message.includes('error validating audiences')) return undefined
  return new AuthError('token_review_rejected', 'the token was not issued for this service\'s audience')
}

/** Checks a review's verdict and extracts the identity. Exported for unit tests. */
export function identityFromReview (review: V1TokenReview, audiences: readonly string[] | undefined): ReviewedIdentity {
  const status = review.status
  if (status?.authenticated !== true) throw new AuthError('token_review_rejected', 'the Kubernetes API server did not authenticate the token')
  if (audiences !== undefined) {
    // An empty status.audiences means "valid for the API server itself", which is not us.
    const confirmed = status.audiences ?? []
    if (!confirmed.some((audience) => audiences.includes(audience))) {
      throw new AuthError('token_review_rejected', 'the token was not issued for this service\'s audience')
    }
  }
  const username = status.user?.username ?? ''
  if (username === '') throw new AuthError('missing_username', 'the token review named no user')
  const groups = (status.user?.groups ?? []).filter((group) => typeof group === 'string' && group !== '')
  return { username, groups, namespaces: namespacesOf(username, groups) }
}
