import type { AuthConfig } from '../config/auth-config.ts'
import { checkOptions, func, listOf, type OptionRules } from '../base/option-rules.ts'
import { createRetrier, discard, RETRY_OPTION_RULES, type RetryOptions } from './retry.ts'
import { checkSendableToken } from './sendable-token.ts'
import { checksItsTokens, createTokenProvider, TOKEN_PROVIDER_OPTION_RULES, type TokenProvider, type TokenProviderOptions } from './token-provider.ts'

/** The `fetch` signature wrapped: the global one, or any compatible implementation. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/** The wrapped fetch, with the token provider it uses (call `provider.close()` when done). */
export type AuthFetch = FetchFunction & { readonly provider: TokenProvider }

/** Options of {@link createAuthFetch}: the token provider's, how to retry, plus what to wrap and where tokens may go. */
export interface AuthFetchOptions extends TokenProviderOptions, RetryOptions {
  /** The fetch to wrap. Default `globalThis.fetch`. */
  readonly fetch?: FetchFunction | undefined
  /**
   * Origins (`https://feast.example.com`) the token may be sent to. Default: every origin.
   *
   * WARNING: without it the token goes to every URL this fetch is called with. Set it when the
   * same fetch may call anything but the feature servers, so third parties never see the token.
   */
  readonly allowedOrigins?: readonly string[] | undefined
}

/** The rules of {@link AuthFetchOptions}: the token provider's, the retries', the fetch, and origins given as URLs. */
const AUTH_FETCH_OPTION_RULES: OptionRules = {
  ...TOKEN_PROVIDER_OPTION_RULES,
  ...RETRY_OPTION_RULES,
  fetch: func(),
  allowedOrigins: listOf({ expected: 'a URL (https://host[:port])', accepts: (value) => typeof value === 'string' && URL.canParse(value) })
}

/**
 * A `fetch` that sends `Authorization: Bearer <token>` on every request, with the token
 * from {@link createTokenProvider} (a provider is created from `config` when one is not given).
 * Any `Authorization` header the caller set is replaced. `init` is passed through untouched
 * otherwise, so Node's `dispatcher` option (an undici Agent, ProxyAgent, or interceptor-composed
 * dispatcher) keeps working.
 *
 * When the server answers 401, the token is dropped from the cache and the request is sent
 * once more with a fresh token, if there is a different one and the body can be sent again
 * (not a one-shot stream). Under `no_auth` requests go out without a token, otherwise unchanged.
 *
 * Transient failures are retried as Feast's Python client retries them: a 429, 500, 502, 503
 * or 504 answer (and a 413 with `Retry-After`), or a refused or broken connection, to a GET, POST,
 * PUT or DELETE whose body can be sent again, up to `retries` times (default 3). The first retry
 * goes at once, the next after 1 s, 2 s, ... (`retryBackoffMs`), or after the `Retry-After` the
 * server asked for, unless it asks for longer than `maxRetryAfterMs` (default 2 minutes): that
 * response is returned at once. The caller's AbortSignal cancels a wait (for a token being fetched
 * too), and when the retries run out the last response is returned, as `fetch` returns any status.
 * `retries: 0` switches this off.
 *
 * @example
 * ```ts
 * import { createAuthFetch, loadClientAuthConfig } from 'feast-authz/client'
 * const authFetch = createAuthFetch(loadClientAuthConfig('./feature_store.yaml'), {
 *   allowedOrigins: ['https://feast.example.com'] // the token is never sent anywhere else
 * })
 * const response = await authFetch('https://feast.example.com/get-online-features', {
 *   method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(query)
 * })
 * authFetch.provider.close()
 * ```
 */
export function createAuthFetch (config: AuthConfig | TokenProvider, options: AuthFetchOptions = {}): AuthFetch {
  checkOptions(options, AUTH_FETCH_OPTION_RULES, { owner: 'createAuthFetch' })
  const provider = isProvider(config) ? config : createTokenProvider(config, options)
  const baseFetch = options.fetch ?? globalThis.fetch
  const allowed = options.allowedOrigins === undefined ? undefined : new Set(options.allowedOrigins.map((origin) => new URL(origin).origin))

  const retrying = createRetrier(options, options.now ?? Date.now)
  // fetch would put a header value it refuses, token included, in its error. Our own provider
  // checked its token when resolving it, naming the source: checking it again at every request
  // would only cost. A provider given in code is checked here, every time.
  const checked = checksItsTokens(provider)
  const sendableToken = async (signal: AbortSignal | undefined): Promise<string | undefined> => {
    const token = await untilAborted(async () => await provider.getToken(), signal)
    if (token !== undefined && !checked) checkSendableToken(token, 'the token provider')
    return token
  }

  const authFetch: FetchFunction = async (input, init) => {
    const resendable = replayable(init)
    const signal = signalOf(input, init)
    // A Request's body can be read once: every send reads a copy, so that one is left for the next.
    const copy = (): string | URL | Request => input instanceof Request && input.body !== null ? input.clone() : input
    const sendWith = async (token: string | undefined): Promise<Response> => await baseFetch(copy(), token === undefined ? init : withToken(input, init, token))
    let replayed = false
    const send = async (): Promise<Response> => {
      if (provider.type === 'no_auth' || (allowed !== undefined && !allowed.has(originOf(input)))) return await sendWith(undefined)
      // Asked at every attempt: the provider caches, and a token refreshed meanwhile is the one sent.
      const token = await sendableToken(signal)
      const response = await sendWith(token)
      if (token === undefined || response.status !== 401 || replayed) return response
      replayed = true
      provider.invalidate(token)
      // A body that went once cannot go again; the refused token is dropped all the same, for the next call.
      if (!resendable) return response
      let fresh: string | undefined
      try {
        fresh = await sendableToken(signal)
      } catch (error) {
        // The caller gets the error, never this response: release its connection.
        await discard(response)
        throw error
      }
      if (fresh === undefined || fresh === token) return response
      await discard(response)
      return await sendWith(fresh)
    }
    return await retrying(send, { method: methodOf(input, init), signal, resendable })
  }
  return Object.assign(authFetch, { provider })
}

/**
 * What `ask` gives, or the signal's reason as soon as it aborts; nothing is asked once it has.
 * The caller's signal bounds the whole call, and a token request may last the provider's timeout
 * (10 s for discovery, as much for the token), which goes on for the other callers sharing it.
 */
async function untilAborted<T> (ask: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return await ask()
  signal.throwIfAborted()
  let onAbort = (): void => {}
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => { reject(signal.reason) }
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([ask(), aborted])
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

function isProvider (value: AuthConfig | TokenProvider): value is TokenProvider {
  return typeof (value as TokenProvider).resolve === 'function'
}

function withToken (input: string | URL | Request, init: RequestInit | undefined, token: string): RequestInit {
  // Headers in init replace a Request's own headers in fetch, so start from those when init has none.
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
  headers.set('authorization', `Bearer ${token}`)
  return { ...init, headers }
}

/** A stream or async iterable body is gone after the first send; everything else can be sent again. */
function replayable (init: RequestInit | undefined): boolean {
  const body = init?.body
  if (body === undefined || body === null) return true
  return !(body instanceof ReadableStream) && typeof (body as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] !== 'function'
}

function methodOf (input: string | URL | Request, init: RequestInit | undefined): string {
  return init?.method ?? (input instanceof Request ? input.method : 'GET')
}

/** The signal fetch obeys: one given in `init`, even `null` (none), replaces the Request's. */
function signalOf (input: string | URL | Request, init: RequestInit | undefined): AbortSignal | undefined {
  if (init?.signal !== undefined) return init.signal ?? undefined
  return input instanceof Request ? input.signal : undefined
}

function originOf (input: string | URL | Request): string {
  return new URL(input instanceof Request ? input.url : input).origin
}
