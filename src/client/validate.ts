import { loadAuthConfig, type AuthConfig, type OidcAuthConfig } from '../config/auth-config.ts'
import { ConfigError } from '../config/errors.ts'
import type { FeatureStoreFile, FeatureStoreSource } from '../config/feature-store-file.ts'

type ClientField = 'token' | 'token_env_var' | 'client_secret' | 'auth_discovery_url' | 'client_id' | 'username' | 'password'

interface Group {
  readonly name: string
  readonly fields: readonly ClientField[]
}

/**
 * The three ways a client config may name its token, which exclude each other.
 * `username`/`password` join the client-credentials group (password grant) when either is set.
 */
function groupsOf (config: OidcAuthConfig): Group[] {
  const passwordGrant = config.username !== undefined || config.password !== undefined
  return [
    { name: 'token', fields: ['token'] },
    { name: 'token_env_var', fields: ['token_env_var'] },
    {
      name: 'client_credentials',
      fields: passwordGrant
        ? ['client_secret', 'auth_discovery_url', 'client_id', 'username', 'password']
        : ['client_secret', 'auth_discovery_url', 'client_id']
    }
  ]
}

/**
 * Cross-field rules of an OIDC *client* config (the server path does not use them):
 * `token`, `token_env_var` and the client-credentials group are mutually exclusive,
 * and a group is all or nothing (`client_secret` needs `auth_discovery_url` and
 * `client_id`; `username` needs `password` and the three others). A bare `type: oidc`
 * is valid. Throws {@link ConfigError} naming the fields that go together.
 */
export function validateOidcClient (config: OidcAuthConfig, file?: FeatureStoreFile): void {
  const fail = (field: ClientField, message: string): never => {
    const pos = file?.locate(['auth', field])
    throw new ConfigError(message, { source: file?.source, field: `auth.${field}`, line: pos?.line, column: pos?.column })
  }
  const active: Group[] = []
  for (const group of groupsOf(config)) {
    const missing = group.fields.filter((field) => config[field] === undefined)
    if (missing.length === 0) { active.push(group); continue }
    if (missing.length === group.fields.length) continue
    const present = group.fields.find((field) => config[field] !== undefined) as ClientField
    fail(present, `incomplete configuration for '${group.name}': ${listOf(group.fields)} go together (configure all of them or none); missing ${listOf(missing)}${looksLikeServer(config) ? SERVER_FILE_HINT : ''}`)
  }
  if (active.length > 1) {
    const second = active[1] as Group
    fail(second.fields[0] as ClientField, `only one of token, token_env_var and client_credentials (client_secret with auth_discovery_url and client_id) may be set, got ${active.map((group) => group.name).join(' and ')}`)
  }
}

/** A server's own section: `client_id` and `auth_discovery_url`, and nothing that names a client token. */
function looksLikeServer (config: OidcAuthConfig): boolean {
  return config.client_id !== undefined && config.auth_discovery_url !== undefined &&
    config.client_secret === undefined && config.token === undefined && config.token_env_var === undefined &&
    config.username === undefined && config.password === undefined
}

const SERVER_FILE_HINT = '. This is a server\'s auth section; a client needs its own: `token`, `token_env_var`, ' +
  '`client_secret` with these two (client-credentials grant), or `type: oidc` alone to read FEAST_OIDC_TOKEN (docs/client.md)'

function listOf (fields: readonly string[]): string {
  const quoted = fields.map((field) => `\`${field}\``)
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1) ?? ''}`
}

/**
 * Reads the `auth` section of a client `feature_store.yaml` and applies the client rules
 * ({@link validateOidcClient}). Throws {@link ConfigError}.
 */
export function loadClientAuthConfig (input: FeatureStoreSource, options: { env?: NodeJS.ProcessEnv } = {}): AuthConfig {
  return loadClientAuthFile(input, options).auth
}

/** {@link loadClientAuthConfig}, with the file it read (to place errors found later in it). */
export function loadClientAuthFile (input: FeatureStoreSource, options: { env?: NodeJS.ProcessEnv } = {}): { auth: AuthConfig, file: FeatureStoreFile } {
  const { auth, file } = loadAuthConfig(input, { role: 'client', ...(options.env === undefined ? {} : { env: options.env }) })
  if (auth.type === 'oidc') validateOidcClient(auth, file)
  return { auth, file }
}
