import { parse as parseYaml } from 'yaml'
import { ConfigError } from '../config/errors.ts'

/** The Secret keys read for OIDC; any other key is ignored (as the Feast operator does). */
export const OIDC_SECRET_KEYS = ['auth_discovery_url', 'client_id', 'client_secret', 'username', 'password', 'audience', 'issuer'] as const
export type OidcSecretKey = typeof OIDC_SECRET_KEYS[number]
/** The OIDC values read from the FeatureStore's secret, by `auth` field name. */
export type OidcSecretValues = Partial<Record<OidcSecretKey, string>>

/** Where the Secret came from, for messages: a file name, or `secret "<name>"`. */
interface SecretContext { readonly source: string | undefined, readonly name: string }

/**
 * Reads the OIDC settings from a Secret: `data` (base64) and `stringData` (plain, and winning
 * over `data` for the same key, as the API server merges them). With `secretKeyName`, that one
 * key holds all settings as a YAML mapping, which may not carry `type` or `registry_type` (the
 * Feast operator refuses those). Values are trimmed; empty ones count as absent.
 * Errors name the Secret and the key, never a value.
 */
export function readOidcSecret (
  secret: Record<string, unknown>,
  options: { source?: string | undefined, secretKeyName?: string | undefined }
): OidcSecretValues {
  const name = String((secret.metadata as { name?: unknown } | undefined)?.name)
  const context: SecretContext = { source: options.source, name }
  const entries = mergedEntries(secret, context)
  let properties: Record<string, unknown> = entries
  if (options.secretKeyName !== undefined) {
    if (!Object.hasOwn(entries, options.secretKeyName)) {
      fail(context, `data.${options.secretKeyName}`, `key "${options.secretKeyName}" (spec.authz.oidc.secretKeyName) does not exist in secret "${name}"`)
    }
    properties = parseBlob(entries[options.secretKeyName] as string, options.secretKeyName, context)
    // The Feast operator reads this entry with its store-settings reader, which refuses a type
    // it was not asked for; for OIDC it asks for none, so any type fails its reconcile.
    for (const tag of ['type', 'registry_type']) {
      if (Object.hasOwn(properties, tag) && properties[tag] !== '') {
        fail(context, `data.${options.secretKeyName}`, `key "${options.secretKeyName}" of secret "${name}" has a \`${tag}\` entry, which the Feast operator refuses (the auth type comes from spec.authz): remove it`)
      }
    }
  }
  const values: OidcSecretValues = {}
  for (const key of OIDC_SECRET_KEYS) {
    if (!Object.hasOwn(properties, key)) continue
    const value = properties[key]
    if (value === null || value === undefined) continue
    if (typeof value === 'object') fail(context, key, `key "${key}" of secret "${name}" must be a string, got a ${Array.isArray(value) ? 'list' : 'mapping'}`)
    // Numbers and booleans in a YAML blob are taken as written: an audience of 1234 is the string "1234".
    const text = String(value).trim()
    if (text !== '') values[key] = text
  }
  return values
}

function mergedEntries (secret: Record<string, unknown>, context: SecretContext): Record<string, string> {
  const result: Record<string, string> = {}
  const data = section(secret, 'data', context)
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(value)) {
      fail(context, `data.${key}`, `key "${key}" of secret "${context.name}" is not base64 (values under data are base64; use stringData for plain text)`)
    }
    result[key] = Buffer.from(value, 'base64').toString('utf8')
  }
  const stringData = section(secret, 'stringData', context)
  for (const [key, value] of Object.entries(stringData)) {
    if (value === null || typeof value === 'object') fail(context, `stringData.${key}`, `key "${key}" of secret "${context.name}" must be a string`)
    result[key] = String(value)
  }
  return result
}

function section (secret: Record<string, unknown>, name: 'data' | 'stringData', context: SecretContext): Record<string, unknown> {
  const value = secret[name]
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) fail(context, name, `${name} of secret "${context.name}" must be a mapping of keys to values`)
  return value as Record<string, unknown>
}

function parseBlob (text: string, key: string, context: SecretContext): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = parseYaml(text, { maxAliasCount: 0 })
  } catch {
    fail(context, `data.${key}`, `key "${key}" of secret "${context.name}" is not valid YAML (expected a mapping of OIDC settings)`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    fail(context, `data.${key}`, `key "${key}" of secret "${context.name}" must hold a YAML mapping of OIDC settings`)
  }
  return parsed as Record<string, unknown>
}

function fail (context: SecretContext, field: string, message: string): never {
  throw new ConfigError(message, { source: context.source, field })
}
