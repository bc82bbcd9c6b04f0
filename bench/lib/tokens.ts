/**
 * Keys and tokens for the benchmark. Tokens are signed with `node:crypto` and a private
 * KeyObject prepared once: jose's async WebCrypto signing would make generating the
 * pools slower than the benchmark itself.
 *
 * Two keys are published in the key set: RS256 (the algorithm every scenario measures, and
 * the only one fastify-jwt-jwks accepts) and ES256, used only by the memory run, where a
 * million distinct signatures are needed and RSA signing (~4k/s per core) would take minutes.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'

export const RS256_KID = 'bench-rs256'
export const ES256_KID = 'bench-es256'
export const AUDIENCE = 'feast'
export const CLIENT_ID = 'feast'

/** What every server process needs to know about the identity provider (passed as JSON in BENCH_CONFIG). */
export interface IdpDescription {
  readonly issuer: string
  readonly discoveryUrl: string
  readonly jwksUrl: string
  readonly audience: string
  readonly clientId: string
  /** SPKI PEM of the RS256 key, for peers configured with a static public key. */
  readonly rsaPublicKeyPem: string
  readonly jwks: { keys: Array<Record<string, unknown>> }
}

/** The description of the harness's provider at `urls`, for the benchmark's own keys. */
export function describeIdp (urls: { readonly discoveryUrl: string, readonly jwksUrl: string }, keys: Pick<BenchKeys, 'rsaPublicPem' | 'jwks'>, issuer: string): IdpDescription {
  const { discoveryUrl, jwksUrl } = urls
  return { issuer, discoveryUrl, jwksUrl, audience: AUDIENCE, clientId: CLIENT_ID, rsaPublicKeyPem: keys.rsaPublicPem, jwks: keys.jwks }
}

export interface BenchKeys {
  readonly rsaPrivate: KeyObject
  readonly rsaPublicPem: string
  readonly ecPrivate: KeyObject
  readonly jwks: { keys: Array<Record<string, unknown>> }
}

export function generateBenchKeys (): BenchKeys {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return publicParts(rsa.privateKey, ec.privateKey)
}

/** The public halves (PEM, JWKS) of the two private keys. */
export function publicParts (rsaPrivate: KeyObject, ecPrivate: KeyObject): BenchKeys {
  const rsaPublic = createPublicKey(rsaPrivate)
  const rsaJwk = rsaPublic.export({ format: 'jwk' })
  const ecJwk = createPublicKey(ecPrivate).export({ format: 'jwk' })
  return {
    rsaPrivate,
    rsaPublicPem: rsaPublic.export({ format: 'pem', type: 'spki' }).toString(),
    ecPrivate,
    jwks: {
      keys: [
        { ...rsaJwk, kid: RS256_KID, alg: 'RS256', use: 'sig' },
        { ...ecJwk, kid: ES256_KID, alg: 'ES256', use: 'sig' }
      ]
    }
  }
}

/** A signer for one key: `token(i)` is a distinct valid token for every distinct `i`. */
export interface TokenSigner {
  token (i: number): string
}

/**
 * The claim shape of a Keycloak access token for a Feast client: username, client roles,
 * groups, audience, issuer, expiry. About 700 bytes as RS256, like a real one.
 */
export function createSigner (options: { alg: 'RS256' | 'ES256', key: KeyObject, kid: string, issuer: string, lifetimeSeconds: number }): TokenSigner {
  const header = encode({ alg: options.alg, typ: 'JWT', kid: options.kid })
  const now = Math.floor(Date.now() / 1000)
  const exp = now + options.lifetimeSeconds
  // ES256 JWS signatures are raw r||s, not DER.
  const signOptions = options.alg === 'ES256' ? { key: options.key, dsaEncoding: 'ieee-p1363' as const } : options.key
  return {
    token (i) {
      const payload = encode({
        iss: options.issuer,
        aud: AUDIENCE,
        sub: `f3a1c2d4-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
        preferred_username: `user${i}`,
        azp: CLIENT_ID,
        resource_access: { [CLIENT_ID]: { roles: ['reader', 'writer'] } },
        groups: ['feast-users'],
        scope: 'openid profile email',
        iat: now,
        exp
      })
      const input = `${header}.${payload}`
      return `${input}.${sign('sha256', Buffer.from(input), signOptions).toString('base64url')}`
    }
  }
}

/** A token whose header names a `kid` the key set does not hold, as an attacker would send. */
export function unknownKidToken (validToken: string): string {
  const [, payload, signature] = validToken.split('.')
  const header = encode({ alg: 'RS256', typ: 'JWT', kid: randomBytes(12).toString('base64url') })
  return `${header}.${payload ?? ''}.${signature ?? ''}`
}

/** The same token with its signature altered: every peer must answer 401 to it. */
export function tamperedToken (validToken: string): string {
  const last = validToken.length - 5
  const swapped = validToken[last] === 'A' ? 'B' : 'A'
  return validToken.slice(0, last) + swapped + validToken.slice(last + 1)
}

function encode (value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}
