import type { IncomingHttpHeaders } from 'node:http'
import { bearerTokenOf, hasSingleAuthorizationHeader } from '../base/http/bearer.ts'
import { debugEnabled, levelEnabled, type AuthLogger } from '../base/logging.ts'
import { AuthError } from '../base/errors.ts'
import type { AuthManager } from '../managers/types.ts'
import { returnedRefusalsOf } from '../managers/returned-refusals.ts'
import { authenticateChannel, elapsedMs, tokenFingerprint, type AuthenticateEvent } from '../base/observability/channels.ts'
import { createLogThrottle } from '../base/observability/throttle.ts'
import { ANONYMOUS, type Principal } from '../base/principal.ts'

const outageThrottle = createLogThrottle()

export interface AuthenticationStep {
  readonly manager: AuthManager
  readonly maxTokenLength: number
}

/**
 * The one authentication step both adapters and the CLI run: the anonymous principal
 * under `no_auth`, otherwise the bearer token through the manager.
 *
 * Returns the principal synchronously when the manager already vouches for the token
 * (a cache hit), so the hot path of a repeated token allocates no promise. Throws or
 * rejects with an AuthError.
 */
export function authenticateRequest (
  step: AuthenticationStep,
  headers: IncomingHttpHeaders,
  rawHeaders: readonly string[] | undefined
): Principal | Promise<Principal> {
  const outcome = cachedPrincipal(step, headers, rawHeaders) ?? authenticateUncached(step, headers, rawHeaders)
  if (outcome instanceof AuthError) throw outcome
  return outcome
}

/**
 * {@link authenticateRequest} for a request {@link cachedPrincipal} found nothing for, with the
 * refusals decided without I/O returned rather than thrown (see managers/returned-refusals.ts):
 * the adapters answer a flood of bad tokens without paying for an exception per request.
 */
export function authenticateUncached (
  step: AuthenticationStep,
  headers: IncomingHttpHeaders,
  rawHeaders: readonly string[] | undefined
): Principal | AuthError | Promise<Principal> {
  const { manager } = step
  if (manager.type === 'no_auth') return ANONYMOUS
  const token = bearerTokenOf(headers.authorization, rawHeaders, step.maxTokenLength)
  if (token instanceof AuthError) return token
  const refusing = returnedRefusalsOf(manager)
  return refusing === undefined ? manager.authenticate(token) : refusing(token)
}

/**
 * The principal of a request whose token the manager already vouches for, found without I/O
 * and without throwing; `undefined` means "authenticate it" ({@link authenticateRequest}).
 *
 * Only the common spelling (`Bearer <token>`) is looked up, before the full header check: only
 * tokens that passed that check were ever verified, and so cached, so a hit gives the same
 * verdict (a second `Authorization` header is still refused on a hit).
 */
export function cachedPrincipal (
  step: AuthenticationStep,
  headers: IncomingHttpHeaders,
  rawHeaders: readonly string[] | undefined
): Principal | undefined {
  const { manager } = step
  const { authorization } = headers
  if (manager.authenticateCached === undefined || typeof authorization !== 'string') return undefined
  let token: string
  if (authorization === lastHeader) {
    token = lastToken
  } else {
    if (!authorization.startsWith('Bearer ') || authorization.length - 7 > step.maxTokenLength) return undefined
    token = authorization.slice(7)
    lastHeader = authorization
    lastToken = token
  }
  const hit = manager.authenticateCached(token)
  return hit !== undefined && hasSingleAuthorizationHeader(rawHeaders) ? hit : undefined
}

// The last header looked up and the token sliced from it. A caller repeats its header, and each
// request brings it as a new string: comparing two whole headers is a flat comparison, where
// comparing a token sliced from each goes through V8's slow path for sliced strings (≈ 500
// instructions for an 800-character token). Handing the manager the same token object again
// also makes its own "same token as last time" checks an identity comparison.
let lastHeader: string | undefined
let lastToken = ''

/**
 * Logs and publishes the outcome of an authentication. Levels keep production logs quiet:
 * success at debug, a rejected credential at info, an outage or a bug at error.
 */
export function reportAuthentication (
  log: AuthLogger,
  authorization: string | string[] | undefined,
  startedAt: number,
  outcome: { principal: Principal } | { error: unknown }
): void {
  // Reporting must never decide a request: a throwing logger or subscriber is ignored here.
  try {
    const publish = authenticateChannel.hasSubscribers
    const failed = 'error' in outcome
    const level = !failed ? 'debug' : outcome.error instanceof AuthError && outcome.error.status === 401 ? 'info' : 'error'
    if (!publish && (level === 'debug' ? !debugEnabled(log) : !levelEnabled(log, level))) return
    const event: AuthenticateEvent = {
      outcome: !failed ? 'success' : level === 'info' ? 'failure' : 'error',
      ...(failed ? { code: outcome.error instanceof AuthError ? outcome.error.code : 'internal_error' } : { username: outcome.principal.username, source: outcome.principal.source }),
      ...fingerprintOf(authorization),
      durationMs: elapsedMs(startedAt)
    }
    if (publish) authenticateChannel.publish(event)
    const message = !failed ? 'authenticated' : level === 'info' ? 'authentication rejected' : 'authentication could not be completed'
    if (level !== 'error') {
      log[level]({ event: 'authentication', ...event }, message)
      return
    }
    // An outage fails every request alike: one error line per code and 10 s, the rest at debug.
    const { log: first, suppressed } = outageThrottle(event.code ?? 'internal_error')
    if (first) log.error({ event: 'authentication', ...event, ...(suppressed > 0 ? { suppressed } : {}), err: (outcome as { error: unknown }).error }, message)
    else log.debug({ event: 'authentication', ...event }, message)
  } catch {}
}

// The credential part of the header, only for the fingerprint (the token itself is never logged).
function fingerprintOf (authorization: string | string[] | undefined): { fingerprint?: string } {
  if (typeof authorization !== 'string') return {}
  const space = authorization.indexOf(' ')
  const credential = space === -1 ? '' : authorization.slice(space + 1).trim()
  return credential === '' ? {} : { fingerprint: tokenFingerprint(credential) }
}
