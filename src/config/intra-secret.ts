import { ConfigError } from './errors.ts'

/** The environment variable holding the base64-encoded intra-server secret. */
export const INTRA_ENV = 'INTRA_COMMUNICATION_BASE64'

/** Shortest secret accepted, in bytes after decoding: the HS256 key size (RFC 7518 3.2). */
export const MIN_SECRET_BYTES = 32

/**
 * Values that must never be used: Feast's Helm chart ships `base64("intra-server-communication")`
 * to every deployment, so anyone can know it. The raw string is listed too, for people who
 * copy it without encoding.
 */
const PUBLIC_DEFAULTS: readonly string[] = ['aW50cmEtc2VydmVyLWNvbW11bmljYXRpb24=', 'aW50cmEtc2VydmVyLWNvbW11bmljYXRpb24', 'intra-server-communication']

/**
 * Reads and checks the intra-server secret from the environment.
 * Returns undefined when the variable is unset or empty (intra identity off).
 * Throws {@link ConfigError} (never showing the value) when it is set but unusable:
 * not base64, shorter than {@link MIN_SECRET_BYTES} once decoded, or a publicly known default.
 */
export function readIntraSecret (env: NodeJS.ProcessEnv = process.env): Uint8Array | undefined {
  const raw = env[INTRA_ENV]
  if (raw === undefined || raw.trim() === '') return undefined
  return decodeIntraSecret(raw)
}

/** Decodes and checks one secret value; see {@link readIntraSecret}. */
export function decodeIntraSecret (raw: string): Uint8Array {
  const value = raw.trim()
  const fix = 'generate one with `openssl rand -base64 32` and give the same value to every server of the deployment'
  if (PUBLIC_DEFAULTS.includes(value)) {
    throw new ConfigError(`is the publicly known default of Feast's Helm chart; anyone could forge the intra-server identity with it: ${fix}`, { source: INTRA_ENV })
  }
  // Standard or URL-safe alphabet, optional padding; anything else is refused rather than guessed.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) && !/^[A-Za-z0-9_-]+={0,2}$/.test(value)) {
    throw new ConfigError(`is not valid base64 (expected the base64 encoding of at least ${MIN_SECRET_BYTES} random bytes): ${fix}`, { source: INTRA_ENV })
  }
  const bytes = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64')
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new ConfigError(`decodes to ${bytes.length} bytes; at least ${MIN_SECRET_BYTES} are required for an HMAC-SHA256 key: ${fix}`, { source: INTRA_ENV })
  }
  return new Uint8Array(bytes)
}
