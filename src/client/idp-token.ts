import type { OidcAuthConfig } from '../config/auth-config.ts'
import { ConfigError } from '../config/errors.ts'
import type { AuthLogger } from '../base/logging.ts'
import { describeReadError, readFailureCause } from '../base/regular-file.ts'
import { describeKind } from '../base/describe-value.ts'
import { retryAfterMs } from '../base/http/retry-after.ts'
import { withinPause } from '../base/failure-backoff.ts'
import { DiscoveryDocumentError, parseDiscoveryDocument, unencryptedDiscoveryWarning } from '../base/http/discovery-document.ts'
import { createAgents, httpGet, ProviderRequestError } from '../base/http/http-get.ts'
import { urlForLog } from '../base/observability/log-safe-url.ts'
import { TokenSourceError } from './errors.ts'
import { reuseUntil } from './token-lifetime.ts'
import { httpPostForm } from '../base/http/http-post.ts'
import { checkSendableToken } from './sendable-token.ts'

/** The client-credentials fields, all present (the client validator guarantees it). */
export interface IdpCredentials {
  readonly auth_discovery_url: string
  readonly client_id: string
  readonly client_secret: string
  readonly username?: string | undefined
  readonly password?: string | undefined
  readonly verify_ssl: boolean
  readonly ca_cert_path?: string | undefined
  readonly token_refresh_margin_seconds: number
}

export interface IdpTokenSource {
  /** A token from the cache, or a fresh one; concurrent callers share one request, and a failure pauses the next one. */
  get (): Promise<string>
  /** Drops the cached token (only if it is `token`, when given); true if one was dropped. */
  invalidate (token?: string): boolean
  /** How many token requests were sent (for diagnostics and tests). */
  requests (): number
  close (): void
}

/** Bound of each discovery and token request when the caller sets none. */
export const DEFAULT_IDP_TIMEOUT_MS = 10_000

/**
 * After a failed token request the provider is not asked again for this long, doubled after
 * each further failure up to {@link MAX_FAILURE_PAUSE_MS}. A client calls its feature server far
 * more often than it needs a token: without a pause, a wrong secret or password would be sent
 * to the provider with every call, which providers with brute-force protection (Keycloak's, say)
 * answer by locking the account, and a provider in trouble would get a request per call.
 */
export const FIRST_FAILURE_PAUSE_MS = 1_000
/** The longest pause after failed token requests: a fixed configuration is picked up within it. */
export const MAX_FAILURE_PAUSE_MS = 30_000
/**
 * The longest wait a token endpoint's `Retry-After` (on a 429 or a 503) is followed for: a
 * provider limiting its clients gets the wait it asks for, one asking for hours does not stop
 * the client for hours.
 */
export const MAX_ASKED_PAUSE_MS = 300_000

export interface IdpTokenOptions {
  /** Bound of each discovery and token request. Default 10 000 ms. */
  readonly timeoutMs?: number | undefined
  /** The first pause after a failed request (0: none). Default {@link FIRST_FAILURE_PAUSE_MS}. */
  readonly failurePauseMs?: number | undefined
  readonly logger?: AuthLogger | undefined
  readonly now?: (() => number) | undefined
}

/** Narrows a validated client config to the client-credentials form, if it is one. */
export function idpCredentialsOf (config: OidcAuthConfig): IdpCredentials | undefined {
  if (config.client_secret === undefined || config.auth_discovery_url === undefined || config.client_id === undefined) return undefined
  return { ...config, auth_discovery_url: config.auth_discovery_url, client_id: config.client_id, client_secret: config.client_secret }
}

/**
 * Fetches tokens from the provider's token endpoint (found through discovery) with
 * `grant_type=client_credentials`, or `password` when `username` and `password` are set.
 * Client authentication is in the form body (`client_secret_post`), as Feast does.
 * A token is reused until the time `reuseUntil` (./token-lifetime.ts) gives it, minus
 * `token_refresh_margin_seconds`: its `exp` or `expires_in`, 5 minutes when it has neither, 24
 * hours at most. After a failed request callers get that failure, without a new request, for
 * `failurePauseMs` ({@link FIRST_FAILURE_PAUSE_MS}), doubled after each failure in a row up to
 * {@link MAX_FAILURE_PAUSE_MS}, or for what the token endpoint's `Retry-After` asks when it is
 * longer (up to {@link MAX_ASKED_PAUSE_MS}). A 429 is `provider_unavailable`, as a 5xx is: the
 * provider limits its clients, it does not refuse the credentials.
 */
export function createIdpTokenSource (credentials: IdpCredentials, options: IdpTokenOptions = {}): IdpTokenSource {
  const timeoutMs = options.timeoutMs ?? DEFAULT_IDP_TIMEOUT_MS
  const firstPauseMs = options.failurePauseMs ?? FIRST_FAILURE_PAUSE_MS
  const now = options.now ?? Date.now
  let agents: ReturnType<typeof createAgents>
  try {
    agents = createAgents({ verify: credentials.verify_ssl, ca: credentials.ca_cert_path })
  } catch (error) {
    throw new ConfigError(`cannot read the CA bundle: ${describeReadError(error)}`, { field: 'auth.ca_cert_path' }, readFailureCause(credentials.ca_cert_path ?? '', error))
  }
  const unencrypted = unencryptedDiscoveryWarning(credentials.auth_discovery_url)
  if (unencrypted !== undefined) options.logger?.warn({ discovery: urlForLog(credentials.auth_discovery_url) }, unencrypted)
  if (!credentials.verify_ssl) {
    options.logger?.warn({ discovery: urlForLog(credentials.auth_discovery_url) }, 'verify_ssl is false: TLS certificates of the identity provider are NOT verified (development only)')
  }
  const secrets = spellingsOf([credentials.client_secret, credentials.password].filter((value): value is string => value !== undefined && value !== ''))
  let tokenEndpoint: string | undefined
  let cached: { token: string, expiresAt: number } | undefined
  let pending: Promise<string> | undefined
  let sent = 0
  // The last failure of a discovery or token request, while callers get it instead of a new request.
  let failure: { error: TokenSourceError, at: number, pauseMs: number } | undefined
  // The wait the token endpoint's last refusal asked for (Retry-After), for the pause after it.
  let askedPauseMs = 0

  const findTokenEndpoint = async (): Promise<string> => {
    if (tokenEndpoint !== undefined) return tokenEndpoint
    const url = credentials.auth_discovery_url
    const response = await call(() => httpGet(url, { agents, signal: AbortSignal.timeout(timeoutMs) }))
    if (response.status !== 200) throw new TokenSourceError('provider_unavailable', `discovery document ${urlForLog(url)} answered HTTP ${response.status}`, { status: response.status })
    let document: ReturnType<typeof parseDiscoveryDocument<'token_endpoint'>>
    try {
      document = parseDiscoveryDocument(response.body, url, 'token_endpoint')
    } catch (error) {
      if (error instanceof DiscoveryDocumentError) throw new TokenSourceError('invalid_provider_response', error.message, { cause: error })
      throw error
    }
    if (document.warning !== undefined) options.logger?.warn({ discovery: urlForLog(url) }, document.warning)
    const endpoint = document.token_endpoint
    tokenEndpoint = endpoint
    return endpoint
  }

  const fetchToken = async (): Promise<string> => {
    const endpoint = await findTokenEndpoint()
    const form = new URLSearchParams({ client_id: credentials.client_id, client_secret: credentials.client_secret })
    if (credentials.username !== undefined && credentials.password !== undefined) {
      form.set('grant_type', 'password')
      form.set('username', credentials.username)
      form.set('password', credentials.password)
    } else {
      form.set('grant_type', 'client_credentials')
    }
    sent++
    const response = await call(() => httpPostForm(endpoint, form, { agents, signal: AbortSignal.timeout(timeoutMs) }))
    if (response.status >= 300 && response.status < 400) {
      // Not a refusal of the credentials: the endpoint is elsewhere (an http-to-https redirect, a moved realm).
      throw new TokenSourceError('invalid_provider_response',
        `token endpoint ${urlForLog(endpoint)} answered HTTP ${response.status}, a redirect, which is not followed: the secret goes only to the token_endpoint that discovery names`,
        { status: response.status })
    }
    const body = parseJson(response.body) as Record<string, unknown> | undefined
    if (response.status !== 200) {
      // RFC 6749 error codes are short words; anything longer is the provider's text, cut like the description.
      const oauthError = typeof body?.error === 'string' ? scrub(body.error, secrets).slice(0, MAX_OAUTH_ERROR_LENGTH) : undefined
      const description = typeof body?.error_description === 'string' ? `: ${scrub(body.error_description, secrets).slice(0, 200)}` : ''
      // 5xx, or 429 (too many requests): the provider is in trouble or limiting its clients, not refusing our credentials.
      const transient = response.status >= 500 || response.status === 429
      const asked = transient ? retryAfterMs(response.retryAfter ?? null, now()) : undefined
      askedPauseMs = asked === undefined ? 0 : Math.min(asked, MAX_ASKED_PAUSE_MS)
      const wait = asked === undefined ? '' : ` (it asks to wait ${Math.ceil(askedPauseMs / 1000)} s)`
      throw new TokenSourceError(
        transient ? 'provider_unavailable' : 'provider_rejected',
        `token endpoint ${urlForLog(endpoint)} answered HTTP ${response.status}${oauthError === undefined ? '' : ` ${oauthError}`}${description}${wait}`,
        { status: response.status, oauthError }
      )
    }
    const token = body?.access_token
    if (typeof token !== 'string' || token === '') {
      throw new TokenSourceError('invalid_provider_response', `token endpoint ${urlForLog(endpoint)} answered 200 without an access_token`)
    }
    // Absent (or null) is taken, as providers that omit it issue bearer tokens; RFC 6749 makes it a string.
    const type = body?.token_type
    if (typeof type === 'string' && type.toLowerCase() !== 'bearer') {
      throw new TokenSourceError('invalid_provider_response', `token endpoint ${urlForLog(endpoint)} issued a ${JSON.stringify(type.slice(0, 20))} token, expected Bearer`)
    }
    if (typeof type !== 'string' && type !== undefined && type !== null) {
      throw new TokenSourceError('invalid_provider_response', `token endpoint ${urlForLog(endpoint)} answered a token_type that is ${describeKind(type)}, not a string (expected "Bearer")`)
    }
    // Before caching: a token that cannot be sent, once cached, would fail every call until its expiry
    // without the provider being asked again; refused here, it is a failed request, paused and retried.
    checkSendableToken(token, 'the token endpoint')
    cached = { token, expiresAt: reuseUntil(token, body?.expires_in, now()) }
    return token
  }

  return {
    async get () {
      const marginMs = credentials.token_refresh_margin_seconds * 1000
      const time = now()
      if (cached !== undefined && time < cached.expiresAt - marginMs) return cached.token
      if (pending === undefined && failure !== undefined && withinPause(time, failure.at, failure.pauseMs)) throw pausedAfter(failure, time)
      pending ??= fetchToken().then(
        (token) => {
          failure = undefined
          return token
        },
        (error: unknown) => {
          if (error instanceof TokenSourceError && firstPauseMs > 0) {
            const pauseMs = failure === undefined ? firstPauseMs : Math.min(2 * failure.pauseMs, MAX_FAILURE_PAUSE_MS)
            failure = { error, at: now(), pauseMs: Math.max(pauseMs, askedPauseMs) }
          }
          askedPauseMs = 0
          throw error
        }
      ).finally(() => { pending = undefined })
      return await pending
    },
    invalidate (token) {
      if (cached === undefined || (token !== undefined && cached.token !== token)) return false
      cached = undefined
      return true
    },
    requests: () => sent,
    close () {
      agents.http.destroy()
      agents.https.destroy()
    }
  }
}

/** The remembered failure, as a caller during the pause gets it: the same code and details, saying when the provider is asked again. */
function pausedAfter (failure: { error: TokenSourceError, at: number, pauseMs: number }, time: number): TokenSourceError {
  const { error } = failure
  const left = Math.max(1, Math.ceil((failure.at + failure.pauseMs - time) / 1000))
  return new TokenSourceError(error.code, `${error.message} (the last token request's failure; the provider is asked again in ${left} s)`, {
    ...(error.status === undefined ? {} : { status: error.status }),
    oauthError: error.oauthError,
    cause: error
  })
}

// Network failures become provider_unavailable; everything else keeps its own error.
async function call<T> (request: () => Promise<T>): Promise<T> {
  try {
    return await request()
  } catch (error) {
    if (error instanceof ProviderRequestError) throw new TokenSourceError('provider_unavailable', error.message, { cause: error })
    throw error
  }
}

function parseJson (body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    return undefined
  }
}

const MAX_OAUTH_ERROR_LENGTH = 100

/**
 * The secrets as a provider may echo them: as sent in the form body (form-encoded, spaces as
 * `+`), percent-encoded, and as given. Longest first, so that a spelling inside another is
 * never left half replaced.
 */
function spellingsOf (secrets: readonly string[]): string[] {
  const spellings = new Set<string>()
  for (const secret of secrets) {
    spellings.add(secret)
    spellings.add(encodeURIComponent(secret))
    spellings.add(new URLSearchParams({ s: secret }).toString().slice(2))
  }
  return [...spellings].sort((a, b) => b.length - a.length)
}

// A provider may echo what it received; never let a secret through into a message.
function scrub (text: string, secrets: readonly string[]): string {
  let result = text
  for (const secret of secrets) result = result.split(secret).join('[redacted]')
  return result
}
