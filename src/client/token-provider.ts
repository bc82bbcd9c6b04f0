import { stat } from 'node:fs/promises'
import { readFailureCause, readRegularFile } from '../base/regular-file.ts'
import { pathForMessage } from '../base/credential-shape.ts'
import { describeTokenFileError, MAX_TOKEN_FILE_BYTES } from '../base/token-file.ts'
import type { AuthConfig, KubernetesAuthConfig, OidcAuthConfig } from '../config/auth-config.ts'
import { readIntraSecret } from '../config/intra-secret.ts'
import { conventionalEnvVarName } from '../config/env-var-name.ts'
import { mintIntraToken } from '../base/intra-token.ts'
import { LOGGER_OPTION, type AuthLogger } from '../base/logging.ts'
import { checkOptions, func, milliseconds, object, text, type OptionRules } from '../base/option-rules.ts'
import { TokenSourceError } from './errors.ts'
import { createIdpTokenSource, idpCredentialsOf, MAX_FAILURE_PAUSE_MS, type IdpTokenSource } from './idp-token.ts'
import { checkSendableToken } from './sendable-token.ts'
import { validateOidcClient } from './validate.ts'

/** Where a pod's service-account token is mounted. */
export const SERVICE_ACCOUNT_TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount/token'

/** Where the token came from, in the order they are tried. */
export type TokenSource =
  | 'intra'
  | 'token'
  | 'token_env_var'
  | 'client_secret'
  | 'SERVICE_OIDC_TOKEN'
  | 'FEAST_OIDC_TOKEN'
  | 'user_token'
  | 'token_path'
  | 'service_account_file'
  | 'LOCAL_K8S_TOKEN'

/** A bearer token and where it came from. */
export interface ResolvedToken {
  /** The token to send (a secret: never log it). */
  readonly token: string
  /** Where it came from, e.g. for `feast-authz token --explain`-style diagnostics. */
  readonly source: TokenSource
}

/** Options of {@link createTokenProvider}. */
export interface TokenProviderOptions {
  /** Environment read at every call. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv | undefined
  /** Service-account token file. Default {@link SERVICE_ACCOUNT_TOKEN_PATH}. */
  readonly serviceAccountTokenPath?: string | undefined
  /** Bound of each discovery and token-endpoint request. Default 10 000 ms. */
  readonly timeoutMs?: number | undefined
  /**
   * After a failed discovery or token request, how long the provider is not asked again (the
   * callers get that failure), doubled after each failure in a row up to 30 s. Default 1000 ms.
   *
   * WARNING: 0 turns the pause off, and every call then sends the credentials again: against a
   * provider with brute-force protection, a wrong secret or password locks the account.
   */
  readonly failurePauseMs?: number | undefined
  /** Receives the `verify_ssl: false` warning. Default: nothing is logged. */
  readonly logger?: AuthLogger | undefined
  /** Clock, for tests. */
  readonly now?: (() => number) | undefined
}

/** The rules of {@link TokenProviderOptions}, checked by `checkOptions` (src/base/option-rules.ts). */
export const TOKEN_PROVIDER_OPTION_RULES: OptionRules = {
  env: object(),
  serviceAccountTokenPath: text({ nonEmpty: true }),
  timeoutMs: milliseconds(1),
  failurePauseMs: milliseconds(0, MAX_FAILURE_PAUSE_MS),
  logger: LOGGER_OPTION,
  now: func()
}

/**
 * Produces the bearer token a client sends. Create one per process and share it: it holds the
 * token cache. The one {@link createTokenProvider} returns is frozen.
 */
export interface TokenProvider {
  /** `auth.type` of the configuration. */
  readonly type: AuthConfig['type']
  /** The token and its source; `undefined` under `no_auth` (send no header). Rejects with TokenSourceError or ConfigError. */
  resolve (): Promise<ResolvedToken | undefined>
  /** Shorthand for `(await resolve())?.token`. */
  getToken (): Promise<string | undefined>
  /**
   * Call when a server answered 401 to `token`: drops it from the cache so the next
   * `resolve` fetches a fresh one. True if a cached token was dropped.
   */
  invalidate (token?: string): boolean
  /** Releases keep-alive connections to the provider. */
  close (): void
}

/**
 * Builds the client's token provider from a validated `auth` section (see
 * `loadClientAuthConfig`). Resolution order, first available wins:
 *
 * - `oidc`: signed intra-server token (`INTRA_COMMUNICATION_BASE64`) → `token` →
 *   the variable named by `token_env_var` (unset or empty is an error, never a fall-through)
 *   → `client_secret` flow → `SERVICE_OIDC_TOKEN`, then `FEAST_OIDC_TOKEN` → the service-account token file.
 * - `kubernetes`: intra token → `user_token` → `token_path` (a projected, audience-bound
 *   token; re-read whenever the file changes, as the kubelet rotates it; missing is an error)
 *   → the service-account token file (re-read every time; one that cannot be read gives way to
 *   `LOCAL_K8S_TOKEN`, and is the error when that is unset too) → `LOCAL_K8S_TOKEN`.
 * - `no_auth`: no token.
 *
 * WARNING: when `INTRA_COMMUNICATION_BASE64` is set, the intra-server token wins over every
 * other source, and the servers let that identity through every permission check. Set it only
 * in the servers of one deployment, never in a user's or a notebook's environment.
 *
 * @example
 * ```ts
 * import { createTokenProvider, loadClientAuthConfig } from 'feast-authz/client'
 * const provider = createTokenProvider(loadClientAuthConfig('./feature_store.yaml'))
 * const token = await provider.getToken() // undefined under no_auth
 * const headers = token === undefined ? {} : { authorization: `Bearer ${token}` }
 * provider.close()
 * ```
 */
export function createTokenProvider (config: AuthConfig, options: TokenProviderOptions = {}): TokenProvider {
  checkOptions(options, TOKEN_PROVIDER_OPTION_RULES, { owner: 'createTokenProvider' })
  const env = (): NodeJS.ProcessEnv => options.env ?? process.env
  const saPath = options.serviceAccountTokenPath ?? SERVICE_ACCOUNT_TOKEN_PATH
  let idp: IdpTokenSource | undefined
  const tokenFile = config.type === 'kubernetes' && config.token_path !== undefined ? createTokenFile(config.token_path) : undefined
  if (config.type === 'oidc') {
    validateOidcClient(config)
    const credentials = idpCredentialsOf(config)
    const { timeoutMs, failurePauseMs, logger, now } = options
    if (credentials !== undefined) idp = createIdpTokenSource(credentials, { timeoutMs, failurePauseMs, logger, now })
  }

  const intra = async (): Promise<ResolvedToken | undefined> => {
    const secret = readIntraSecret(env())
    return secret === undefined ? undefined : { token: await mintIntraToken(secret, (options.now ?? Date.now)()), source: 'intra' }
  }

  const resolve = async (): Promise<ResolvedToken | undefined> => {
    if (config.type === 'no_auth') return undefined
    const resolved = (await intra()) ?? (config.type === 'oidc' ? await resolveOidc(config, idp, env(), saPath) : await resolveKubernetes(config, env(), saPath, tokenFile))
    checkSendableToken(resolved.token, sourceDescription(resolved.source, config, saPath))
    return resolved
  }

  // Frozen: createAuthFetch trusts its getToken to be this one, which checks (see checksItsTokens).
  const provider: TokenProvider = Object.freeze({
    type: config.type,
    resolve,
    getToken: async () => (await resolve())?.token,
    invalidate: (token?: string) => idp?.invalidate(token) ?? false,
    close: () => idp?.close()
  })
  CHECKING_PROVIDERS.add(provider)
  return provider
}

/**
 * The providers {@link createTokenProvider} made. Their `resolve` checks every token with
 * `checkSendableToken`, naming its source (`auth.token`, the file...), so `createAuthFetch`
 * need not check it again on every request; a provider given in code is checked there. A
 * private set rather than a mark on the object: `{ ...provider, getToken }` copies every property
 * (symbols too) but is a provider of its own, and stays checked. They are frozen, so no method of
 * a provider in the set can be swapped for one that does not check.
 */
const CHECKING_PROVIDERS = new WeakSet<TokenProvider>()

/** True when `provider` came from {@link createTokenProvider}: its tokens were checked as sendable when resolved. */
export function checksItsTokens (provider: TokenProvider): boolean {
  return CHECKING_PROVIDERS.has(provider)
}

async function resolveOidc (config: OidcAuthConfig, idp: IdpTokenSource | undefined, env: NodeJS.ProcessEnv, saPath: string): Promise<ResolvedToken> {
  if (config.token !== undefined) return { token: config.token, source: 'token' }
  if (config.token_env_var !== undefined) {
    const value = fromEnv(env, config.token_env_var)
    if (value === undefined) {
      const shown = conventionalEnvVarName(config.token_env_var)
      throw new TokenSourceError('env_var_unset', shown !== undefined
        ? `token_env_var='${shown}' is configured but the environment variable ${shown} is not set or is empty`
        : 'token_env_var is configured but the environment variable it names is not set or is empty (its name is not shown: ' +
          'it is not in upper case, as variable names are by convention, and may be the token itself, which goes under `token`)')
    }
    return { token: value, source: 'token_env_var' }
  }
  if (idp !== undefined) return { token: await idp.get(), source: 'client_secret' }
  for (const name of ['SERVICE_OIDC_TOKEN', 'FEAST_OIDC_TOKEN'] as const) {
    const value = fromEnv(env, name)
    if (value !== undefined) return { token: value, source: name }
  }
  const fromFile = await readServiceAccountToken(saPath)
  if (fromFile !== undefined) return { token: fromFile, source: 'service_account_file' }
  throw new TokenSourceError('no_token_source', `no OIDC token source configured: set one of \`token\`, \`token_env_var\` or \`client_secret\` (with \`auth_discovery_url\` and \`client_id\`) in the auth section, set SERVICE_OIDC_TOKEN or FEAST_OIDC_TOKEN, or run in a pod with a service-account token at ${pathForMessage(saPath)}`)
}

async function resolveKubernetes (
  config: KubernetesAuthConfig,
  env: NodeJS.ProcessEnv,
  saPath: string,
  tokenFile: (() => Promise<string>) | undefined
): Promise<ResolvedToken> {
  if (config.user_token !== undefined) return { token: config.user_token, source: 'user_token' }
  if (tokenFile !== undefined) return { token: await tokenFile(), source: 'token_path' }
  // As in Feast's client, a file that is there but cannot be read does not stop the chain:
  // LOCAL_K8S_TOKEN, set on purpose, still wins; without it the read error is the answer.
  let unreadable: TokenSourceError | undefined
  try {
    const fromFile = await readServiceAccountToken(saPath)
    if (fromFile !== undefined) return { token: fromFile, source: 'service_account_file' }
  } catch (error) {
    if (!(error instanceof TokenSourceError)) throw error
    unreadable = error
  }
  const local = fromEnv(env, 'LOCAL_K8S_TOKEN')
  if (local !== undefined) return { token: local, source: 'LOCAL_K8S_TOKEN' }
  if (unreadable !== undefined) throw unreadable
  throw new TokenSourceError('no_token_source', `no Kubernetes token: set \`user_token\` in the auth section, run in a pod with a service-account token at ${pathForMessage(saPath)}, or set LOCAL_K8S_TOKEN to the token of a service account on the server's cluster`)
}

/** Where a token came from, in words, for messages. */
function sourceDescription (source: TokenSource, config: OidcAuthConfig | KubernetesAuthConfig, saPath: string): string {
  switch (source) {
    case 'intra': return 'INTRA_COMMUNICATION_BASE64'
    case 'token': return 'auth.token'
    case 'user_token': return 'auth.user_token'
    case 'token_env_var': {
      const shown = config.type === 'oidc' && config.token_env_var !== undefined ? conventionalEnvVarName(config.token_env_var) : undefined
      return shown === undefined ? 'the variable named by auth.token_env_var' : `the variable ${shown} (auth.token_env_var)`
    }
    case 'client_secret': return 'the token endpoint'
    case 'token_path': return `the file ${config.type === 'kubernetes' ? config.token_path ?? '' : ''} (auth.token_path)`
    case 'service_account_file': return `the service-account token file ${pathForMessage(saPath)}`
    case 'SERVICE_OIDC_TOKEN': case 'FEAST_OIDC_TOKEN': case 'LOCAL_K8S_TOKEN': return `the variable ${source}`
  }
}

function fromEnv (env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

/**
 * The token of `token_path`, read again only when the file changed (its inode, size or
 * modification time: the kubelet swaps projected tokens in atomically, so each rotation is a new
 * file). A configured file that is missing or empty is an error, never a silent fall-through.
 */
function createTokenFile (path: string): () => Promise<string> {
  let cached: { signature: string, token: string } | undefined
  return async () => {
    let signature: string
    try {
      const info = await stat(path)
      signature = `${info.ino}:${info.size}:${info.mtimeMs}`
    } catch (error) {
      throw new TokenSourceError('token_file_unreadable', `token_path is ${pathForMessage(path)}, which cannot be read: ${describeTokenFileError(error)} (is the projected token volume mounted there?)`, { cause: readFailureCause(path, error) })
    }
    if (cached?.signature === signature) return cached.token
    let token: string | undefined
    try {
      token = readTokenFile(path)
    } catch (error) {
      throw new TokenSourceError('token_file_unreadable', `token_path is ${pathForMessage(path)}, which cannot be read: ${describeTokenFileError(error)}`, { cause: readFailureCause(path, error) })
    }
    if (token === undefined) throw new TokenSourceError('token_file_unreadable', `token_path is ${pathForMessage(path)}, which is empty or missing`)
    cached = { signature, token }
    return token
  }
}

/** Read on every call, so a token rotated by the kubelet is picked up. Absent or empty → undefined. */
async function readServiceAccountToken (path: string): Promise<string | undefined> {
  try {
    return readTokenFile(path)
  } catch (error) {
    throw new TokenSourceError('service_account_file_unreadable', `cannot read the service-account token ${pathForMessage(path)}: ${describeTokenFileError(error)}`, { cause: readFailureCause(path, error) })
  }
}

/**
 * The token in the file, trimmed; undefined when the file is absent or empty. A regular file
 * only, read up to {@link MAX_TOKEN_FILE_BYTES}: a named pipe or a device would hold the request
 * forever. Other read errors are thrown as they come, for the caller to name its source.
 */
function readTokenFile (path: string): string | undefined {
  let text: string
  try {
    text = readRegularFile(path, MAX_TOKEN_FILE_BYTES).toString('utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw error
  }
  const token = text.trim()
  return token === '' ? undefined : token
}
