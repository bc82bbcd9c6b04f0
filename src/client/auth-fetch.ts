import type { AuthConfig } from '../config/auth-config.ts'
import { checkOptions, func, listOf, type OptionRules } from '../base/option-rules.ts'
import { createTokenProvider, TOKEN_PROVIDER_OPTION_RULES, type TokenProvider, type TokenProviderOptions } from './token-provider.ts'

/** The `fetch` signature wrapped: the global one, or any compatible implementation. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/** The wrapped fetch, with the token provider it uses (call `provider.close()` when done). */
export type AuthFetch = FetchFunction & { readonly provider: TokenProvider }

/** Options of {@link createAuthFetch}: the token provider's, plus what to wrap and where tokens may go. */
export interface AuthFetchOptions extends TokenProviderOptions {
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

/** The rules of {@link AuthFetchOptions}: the token provider's, the fetch, and origins given as URLs. */
const AUTH_FETCH_OPTION_RULES: OptionRules = {
  ...TOKEN_PROVIDER_OPTION_RULES,
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
 * (not a one-shot stream). Under `no_auth` requests go out unchanged.
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

  const authFetch: FetchFunction = async (input, init) => {
    if (provider.type === 'no_auth' || (allowed !== undefined && !allowed.has(originOf(input)))) return await baseFetch(input, init)
    const token = await provider.getToken()
    if (token === undefined) return await baseFetch(input, init)
    // A Request's body can be read once: keep a copy for the retry before the first send.
    const spare = input instanceof Request && input.body !== null ? input.clone() : input
    const response = await baseFetch(input, withToken(input, init, token))
    if (response.status !== 401 || !replayable(init)) return response
    provider.invalidate(token)
    const fresh = await provider.getToken()
    if (fresh === undefined || fresh === token) return response
    await response.body?.cancel()
    return await baseFetch(spare, withToken(spare, init, fresh))
  }
  return Object.assign(authFetch, { provider })
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

function originOf (input: string | URL | Request): string {
  return new URL(input instanceof Request ? input.url : input).origin
}
