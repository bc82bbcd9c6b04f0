/**
 * feast-authz/client: what a client of a Feast-style server needs to send the right
 * bearer token. See docs/client.md.
 *
 * @example
 * ```ts
 * import { loadClientAuthConfig, createAuthFetch } from 'feast-authz/client'
 * const authFetch = createAuthFetch(loadClientAuthConfig('./feature_store.yaml'))
 * const response = await authFetch('https://feast.example.com/get-online-features', { method: 'POST', body })
 * ```
 */
export { loadClientAuthConfig, validateOidcClient } from './validate.ts'
export { createTokenProvider, SERVICE_ACCOUNT_TOKEN_PATH, type TokenProvider, type TokenProviderOptions, type TokenSource, type ResolvedToken } from './token-provider.ts'
export { createAuthFetch, type AuthFetch, type AuthFetchOptions, type FetchFunction } from './auth-fetch.ts'
export { TokenSourceError, type TokenSourceErrorCode } from './errors.ts'
export { mintIntraToken } from '../base/intra-token.ts'
export { ConfigError } from '../config/errors.ts'
export type { AuthConfig, OidcAuthConfig, KubernetesAuthConfig, NoAuthConfig } from '../config/auth-config.ts'
