import { closest, editDistance } from '../base/did-you-mean.ts'
import { ConfigError } from './errors.ts'
import { describeValue } from '../base/describe-value.ts'
import { urlTextForLog } from '../base/observability/log-safe-url.ts'
import { envVarNameProblem } from './env-var-name.ts'
import { checkOptions, object, oneOf, type OptionRules } from '../base/option-rules.ts'
import { readFeatureStoreFile, type FeatureStoreFile, type FeatureStoreSource } from './feature-store-file.ts'

/**
 * `auth.type: no_auth` (also what a file without an `auth` section means): nothing is checked.
 *
 * WARNING: every route is open to anyone who can reach the server, and `requirePermission`
 * allows every request (there is no caller to check). Use it only behind another gate, or
 * for local development.
 */
export interface NoAuthConfig {
  readonly type: 'no_auth'
}

/**
 * `auth.type: oidc`. The server uses the discovery, key-set and claim fields;
 * a client uses the token-source fields. A bare `type: oidc` is a valid client config.
 */
export interface OidcAuthConfig {
  readonly type: 'oidc'
  /** The client whose roles are read from tokens (`resource_access.<client_id>.roles`); a client's id for the token flows. */
  readonly client_id?: string
  /** The provider's `/.well-known/openid-configuration` URL. */
  readonly auth_discovery_url?: string
  /**
   * Whether TLS certificates of the provider are checked (default `true`).
   *
   * WARNING: `false` turns off TLS certificate checks for discovery, JWKS and token requests:
   * anyone on the network path can then serve their own signing keys, and every token they
   * sign is accepted. Prefer `ca_cert_path` for a private or self-signed CA.
   */
  readonly verify_ssl: boolean
  /** A PEM file of the CA certificates trusted for the provider (they replace Node's default list). */
  readonly ca_cert_path?: string
  /** When set, a token's `aud` must contain it (401 `audience_mismatch` otherwise). */
  readonly audience?: string
  /** When set, a token's `iss` must equal it (401 `issuer_mismatch` otherwise). */
  readonly issuer?: string
  /** How long fetched signing keys are kept before being fetched again (default 300). */
  readonly jwks_cache_lifespan_seconds: number
  /** Bound of each discovery and key-set request (default 10). */
  readonly jwks_request_timeout_seconds: number
  /** Client side: a fixed bearer token to send (a secret: never logged). */
  readonly token?: string
  /** Client side: the name of the environment variable that holds the token to send (letters, digits and `_`, not starting with a digit). */
  readonly token_env_var?: string
  /** Client side: the secret of the client-credentials (or password) flow (never logged). */
  readonly client_secret?: string
  /** Client side: the user of the resource-owner password flow. */
  readonly username?: string
  /** Client side: that user's password (never logged). */
  readonly password?: string
  /** Client side: how long before its expiry a fetched token is replaced (default 30). */
  readonly token_refresh_margin_seconds: number
  /** Read by Feast's UI only; accepted so that Feast's own files load unchanged. */
  readonly ui_client_id?: string
  /**
   * Server side: audiences a Kubernetes service-account token (mixed tokens, spec 5.3) must be
   * bound to, sent as TokenReview `spec.audiences`; a token for another audience is a 401.
   */
  readonly service_account_audiences?: readonly string[]
}

/** The server form of {@link OidcAuthConfig}: what validating tokens needs. */
export interface OidcServerConfig extends OidcAuthConfig {
  readonly client_id: string
  readonly auth_discovery_url: string
}

/** `auth.type: kubernetes`. */
export interface KubernetesAuthConfig {
  readonly type: 'kubernetes'
  /** Client side: the token to send instead of the pod's service-account token (a secret: never logged). */
  readonly user_token?: string
  /**
   * Audiences the server requires of tokens, sent as TokenReview `spec.audiences`; the review
   * must confirm one of them (a token bound to another audience is a 401). Unset, any token of
   * the cluster, including full-power API-server tokens, is accepted (a startup warning says so).
   */
  readonly audiences?: readonly string[]
  /**
   * Client side: a file holding the token to send (a projected, audience-bound service-account
   * token); re-read whenever it changes, as the kubelet rotates it. Wins over the pod's default token.
   */
  readonly token_path?: string
  /**
   * Compatibility with Feast's operator, whose Roles have no rules: a binding to a Role without
   * the Feast marker rule grants that role too. Default false: anyone who may create RoleBindings
   * in the namespace can bind a rule-less Role to themselves.
   */
  readonly allow_ruleless_roles?: boolean
  /**
   * Accept bearer tokens that are not JWTs (OpenShift `sha256~`, EKS `k8s-aws-v1.`...) and send
   * them to TokenReview, behind the same rejection cache and concurrency cap. Default false.
   */
  readonly accept_opaque_tokens?: boolean
  /**
   * ClusterRoles whose RoleBindings in the service namespace grant a Feast role of the same name.
   * Default none: `admin`, `edit`, `view` never become Feast roles by accident.
   */
  readonly cluster_roles?: readonly string[]
  /** How long the last known RoleBindings keep serving during an API-server outage (default 60). */
  readonly outage_grace_seconds?: number
  /** The service's namespace when it cannot be discovered (pod file, `POD_NAMESPACE`, kubeconfig). */
  readonly namespace?: string
  /** How long a TokenReview result is reused for the same token (default 60). */
  readonly token_review_cache_ttl_seconds: number
}

/** A validated `auth` section of `feature_store.yaml`; narrow it on `type`. */
export type AuthConfig = NoAuthConfig | OidcAuthConfig | KubernetesAuthConfig
/** The supported values of `auth.type`: `no_auth`, `oidc`, `kubernetes`. */
export type AuthType = AuthConfig['type']
export const AUTH_TYPES: readonly AuthType[] = ['no_auth', 'oidc', 'kubernetes']

/** Upper bound of every duration field: the longest `setTimeout` Node.js honours, in whole seconds. */
export const MAX_DURATION_SECONDS = 2_147_483

type FieldKind = 'string' | 'url' | 'boolean' | 'positive-number' | 'string-list' | 'env-var-name'
interface FieldSpec {
  readonly kind: FieldKind
  readonly secret?: boolean
  readonly default?: unknown
}

const OIDC_FIELDS: Readonly<Record<string, FieldSpec>> = {
  client_id: { kind: 'string' },
  auth_discovery_url: { kind: 'url' },
  verify_ssl: { kind: 'boolean', default: true },
  ca_cert_path: { kind: 'string' },
  audience: { kind: 'string' },
  issuer: { kind: 'string' },
  jwks_cache_lifespan_seconds: { kind: 'positive-number', default: 300 },
  jwks_request_timeout_seconds: { kind: 'positive-number', default: 10 },
  token: { kind: 'string', secret: true },
  token_env_var: { kind: 'env-var-name' },
  client_secret: { kind: 'string', secret: true },
  username: { kind: 'string' },
  password: { kind: 'string', secret: true },
  token_refresh_margin_seconds: { kind: 'positive-number', default: 30 },
  // Read by Feast's UI only; accepted so that Feast's own files load unchanged.
  ui_client_id: { kind: 'string' },
  service_account_audiences: { kind: 'string-list' }
}

const KUBERNETES_FIELDS: Readonly<Record<string, FieldSpec>> = {
  user_token: { kind: 'string', secret: true },
  audiences: { kind: 'string-list' },
  namespace: { kind: 'string' },
  token_review_cache_ttl_seconds: { kind: 'positive-number', default: 60 },
  token_path: { kind: 'string' },
  allow_ruleless_roles: { kind: 'boolean' },
  accept_opaque_tokens: { kind: 'boolean' },
  cluster_roles: { kind: 'string-list' },
  outage_grace_seconds: { kind: 'positive-number' }
}

const FIELDS: Readonly<Record<AuthType, Readonly<Record<string, FieldSpec>>>> = {
  no_auth: {},
  oidc: OIDC_FIELDS,
  kubernetes: KUBERNETES_FIELDS
}

/**
 * `type` and every field of an auth type: none is a top-level key of Feast's feature_store.yaml
 * (RepoConfig), so one found there belongs under `auth:`.
 */
const AUTH_FIELD_NAMES: ReadonlySet<string> = new Set(['type', ...Object.values(FIELDS).flatMap((fields) => Object.keys(fields))])

/** Names of fields whose values must never appear in logs or messages. */
export const SECRET_FIELDS: readonly string[] = ['token', 'client_secret', 'password', 'user_token']

/** Options of {@link loadAuthConfig}. */
export interface LoadOptions {
  /**
   * `server` (default) also requires what token validation needs (`auth_discovery_url`
   * and `client_id` for oidc); `client` accepts a bare `type: oidc`.
   */
  readonly role?: 'server' | 'client'
  /** Where `FEATURE_STORE_YAML_BASE64` is read from when no file is given. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv
}

// A misspelt role must not quietly load a server's config as a client's, or the reverse.
const LOAD_OPTION_RULES: OptionRules = { role: oneOf('server', 'client'), env: object() }

/** What {@link loadAuthConfig} returns: the validated `auth` section and the file it came from. */
export interface LoadedAuthConfig {
  readonly auth: AuthConfig
  /** The whole parsed file, for sections other modules read (project, registry). */
  readonly file: FeatureStoreFile
}

/**
 * Reads and fully validates the `auth` section of a `feature_store.yaml`.
 * Throws {@link ConfigError} naming the file, line, field, bad value and what was expected.
 *
 * @example
 * ```ts
 * import { loadAuthConfig } from 'feast-authz'
 * const { auth } = loadAuthConfig('./feature_store.yaml')
 * if (auth.type === 'oidc') console.log(auth.auth_discovery_url, auth.verify_ssl)
 * ```
 */
export function loadAuthConfig (input: FeatureStoreSource, options: LoadOptions = {}): LoadedAuthConfig {
  checkOptions(options, LOAD_OPTION_RULES, { owner: 'loadAuthConfig' })
  const file = readFeatureStoreFile(input, options.env)
  return { auth: parseAuthSection(file, options.role ?? 'server'), file }
}

export function parseAuthSection (file: FeatureStoreFile, role: 'server' | 'client'): AuthConfig {
  const fail = (path: string[], message: string): never => {
    const pos = file.locate(path)
    throw new ConfigError(message, { source: file.source, field: path.join('.'), line: pos?.line, column: pos?.column })
  }

  // An auth field at the top level (the `auth:` line forgotten, or the fields not indented under
  // it) would be ignored: authentication off, or an `audience` never checked, without a word.
  const stray = Object.keys(file.data).find((key) => AUTH_FIELD_NAMES.has(key))
  if (stray !== undefined) {
    const missing = Object.hasOwn(file.data, 'auth') ? '' : ' (there is no `auth:` line: without one the server would run unauthenticated)'
    return fail([stray], `is a field of the \`auth\` section, written at the top level: indent it under \`auth:\`${missing}`)
  }
  if (!Object.hasOwn(file.data, 'auth')) {
    // A misspelt section would otherwise switch authentication off without a word.
    const lookalike = Object.keys(file.data).find((key) => key !== 'auth' && (key.toLowerCase().startsWith('auth') || editDistance(key.toLowerCase(), 'auth') <= 1))
    if (lookalike !== undefined) {
      return fail([lookalike], 'unknown top-level key: did you mean `auth`? Without an `auth` section the server runs unauthenticated (no_auth)')
    }
    return { type: 'no_auth' }
  }
  if (file.data.auth === null || file.data.auth === undefined) {
    return fail(['auth'], `is empty: expected a mapping with a \`type\` field (one of ${AUTH_TYPES.join(', ')}); write \`type: no_auth\` to run without authentication on purpose`)
  }
  const section = file.data.auth
  if (typeof section !== 'object' || Array.isArray(section)) {
    return fail(['auth'], `expected a mapping with a \`type\` field, got ${describeValue(section)}`)
  }
  const raw = section as Record<string, unknown>
  const type = raw.type
  if (!Object.hasOwn(raw, 'type')) return fail(['auth'], `missing \`type\`: expected one of ${AUTH_TYPES.join(', ')}`)
  if (typeof type !== 'string' || !(AUTH_TYPES as readonly string[]).includes(type)) {
    return fail(['auth', 'type'], `unknown auth type ${describeValue(type)}: expected one of ${AUTH_TYPES.join(', ')}`)
  }
  const fields = FIELDS[type as AuthType]
  const result: Record<string, unknown> = { type }
  for (const key of Object.keys(raw)) {
    if (key === 'type') continue
    const spec = Object.hasOwn(fields, key) ? fields[key] : undefined
    if (spec === undefined) {
      const known = Object.keys(fields)
      const guess = closest(key, known)
      return fail(['auth', key], `unknown field for auth type ${type}${guess === undefined ? '' : ` (did you mean ${guess}?)`}: expected ${known.length === 0 ? 'no other field' : `one of ${known.join(', ')}`}`)
    }
    const value = raw[key]
    // An explicit null reads as "not set", as in Feast's own files.
    if (value === null) continue
    const problem = checkField(spec, value)
    if (problem !== undefined) return fail(['auth', key], problem)
    result[key] = spec.kind === 'url' ? new URL(value as string).href : value
  }
  for (const [key, spec] of Object.entries(fields)) {
    if (!Object.hasOwn(result, key) && spec.default !== undefined) result[key] = spec.default
  }
  if (role === 'server' && type === 'oidc') {
    for (const key of ['auth_discovery_url', 'client_id']) {
      if (!Object.hasOwn(result, key)) {
        fail(['auth', key], `is required for an OIDC server (with ${key === 'client_id' ? 'auth_discovery_url' : 'client_id'}): expected ${key === 'client_id' ? 'the client whose roles are read from tokens' : "the URL of the provider's /.well-known/openid-configuration"}`)
      }
    }
  }
  return result as unknown as AuthConfig
}

/** What is wrong with `value` for a field of `spec`, as "expected ..., got ..."; undefined when it fits. */
function checkField (spec: FieldSpec, value: unknown): string | undefined {
  if (spec.kind === 'env-var-name') return envVarNameProblem(value)
  const expected = expectedOf(spec.kind, value)
  if (expected === undefined) return undefined
  // A URL refused is still shown, without its userinfo and query: `htps://user:pass@...` holds a password.
  return `${expected}, got ${describeValue(spec.kind === 'url' && typeof value === 'string' ? urlTextForLog(value) : value, spec.secret)}`
}

function expectedOf (kind: Exclude<FieldKind, 'env-var-name'>, value: unknown): string | undefined {
  switch (kind) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'expected true or false'
    case 'positive-number':
      if (!(typeof value === 'number' && Number.isFinite(value) && value > 0)) return 'expected a finite number of seconds > 0'
      // Past 2^31-1 ms Node fires timers after 1 ms: a huge timeout would abort every key-set fetch.
      return value <= MAX_DURATION_SECONDS ? undefined : `expected at most ${MAX_DURATION_SECONDS} seconds (about 24 days, the longest timer Node.js can set)`
    case 'string':
      return typeof value === 'string' && value.trim() !== '' ? undefined : 'expected a non-empty string'
    case 'url':
      return isHttpUrl(value) ? undefined : 'expected an http(s) URL'
    case 'string-list':
      return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item !== '')
        ? undefined
        : 'expected a non-empty list of non-empty strings'
  }
}

function isHttpUrl (value: unknown): boolean {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

/** Narrows a validated OIDC config to the server form (the loader has already checked it). */
export function isOidcServerConfig (config: AuthConfig): config is OidcServerConfig {
  return config.type === 'oidc' && config.auth_discovery_url !== undefined && config.client_id !== undefined
}
