import { createPublicKey, verify as verifySignature, constants, type JsonWebKey, type KeyObject } from 'node:crypto'

/**
 * Signature checking with `node:crypto` key objects prepared once per JWKS key,
 * instead of a WebCrypto import and verify per call (2-3x the cost).
 *
 * This path only ever *accepts* canonical tokens that jose would accept too: compact
 * JWS in strict base64url, a `kid` naming exactly one usable key, no `crit`, valid
 * claims. Anything else returns `undefined` and jose (the oracle) decides, so the
 * verdict is jose's by construction; test/managers/oidc/fast-verify.test.ts
 * checks it on a corpus.
 */

interface AlgorithmRule {
  readonly kty: 'RSA' | 'EC' | 'OKP'
  readonly crv?: string
  readonly hash: string | null
  readonly pss?: number
}

const ALGORITHMS: Readonly<Record<string, AlgorithmRule>> = {
  RS256: { kty: 'RSA', hash: 'sha256' },
  RS384: { kty: 'RSA', hash: 'sha384' },
  RS512: { kty: 'RSA', hash: 'sha512' },
  PS256: { kty: 'RSA', hash: 'sha256', pss: 32 },
  PS384: { kty: 'RSA', hash: 'sha384', pss: 48 },
  PS512: { kty: 'RSA', hash: 'sha512', pss: 64 },
  ES256: { kty: 'EC', crv: 'P-256', hash: 'sha256' },
  ES384: { kty: 'EC', crv: 'P-384', hash: 'sha384' },
  ES512: { kty: 'EC', crv: 'P-521', hash: 'sha512' },
  EdDSA: { kty: 'OKP', crv: 'Ed25519', hash: null },
  Ed25519: { kty: 'OKP', crv: 'Ed25519', hash: null }
}

/** One public key of the provider's set, ready for `crypto.verify`. */
export interface PreparedKey {
  readonly kid: string
  readonly kty: string
  readonly crv: string | undefined
  /** The JWK's own `alg`, which then is the only algorithm it may verify. */
  readonly alg: string | undefined
  readonly key: KeyObject
  /** Canonical JSON of the JWK: the same key across refetches keeps its object. */
  readonly fingerprint: string
}

export type PreparedKeys = ReadonlyMap<string, readonly PreparedKey[]>

/**
 * Indexes the keys jose would consider for a token with a `kid`, reusing the
 * objects of `previous` for unchanged keys (cached verdicts stay valid for them).
 * Keys jose would refuse (private, weak RSA, unusable `use`/`key_ops`) are left out.
 */
export function prepareKeys (jwks: readonly unknown[], previous?: PreparedKeys): Map<string, PreparedKey[]> {
  const reusable = new Map<string, PreparedKey>()
  for (const list of previous?.values() ?? []) for (const prepared of list) reusable.set(prepared.fingerprint, prepared)
  const byKid = new Map<string, PreparedKey[]>()
  for (const jwk of jwks) {
    if (!isUsable(jwk)) continue
    const fingerprint = JSON.stringify(jwk)
    let prepared = reusable.get(fingerprint)
    if (prepared === undefined) {
      const key = importPublic(jwk)
      if (key === undefined) continue
      prepared = { kid: jwk.kid, kty: jwk.kty, crv: jwk.crv, alg: jwk.alg, key, fingerprint }
    }
    const list = byKid.get(prepared.kid)
    if (list === undefined) byKid.set(prepared.kid, [prepared])
    else list.push(prepared)
  }
  return byKid
}

interface UsableJwk {
  kid: string
  kty: string
  crv?: string
  alg?: string
  [member: string]: unknown
}

function isUsable (jwk: unknown): jwk is UsableJwk {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return false
  const { kid, kty, crv, alg, use, key_ops: keyOps, ext, d } = jwk as Record<string, unknown>
  if (typeof kid !== 'string' || typeof kty !== 'string') return false
  if (crv !== undefined && typeof crv !== 'string') return false
  if (alg !== undefined && typeof alg !== 'string') return false
  if (use !== undefined && use !== 'sig') return false
  if (ext !== undefined && typeof ext !== 'boolean') return false
  if (keyOps !== undefined) {
    if (!Array.isArray(keyOps) || !keyOps.includes('verify')) return false
    if (keyOps.some((op, index) => typeof op !== 'string' || keyOps.indexOf(op) !== index)) return false
  }
  // A private member would make jose refuse the whole key ("must be public keys").
  return d === undefined
}

function importPublic (jwk: UsableJwk): KeyObject | undefined {
  try {
    const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' })
    const bits = key.asymmetricKeyDetails?.modulusLength
    if (key.asymmetricKeyType === 'rsa' && (bits === undefined || bits < 2048)) return undefined
    return key
  } catch {
    return undefined
  }
}

export interface ClaimRules {
  readonly audience: string | undefined
  readonly issuer: string | undefined
  readonly clockToleranceSeconds: number
}

export type FastVerdict =
  | { readonly ok: true, readonly payload: Record<string, unknown>, readonly key: PreparedKey }
  | { readonly ok: false }

/** The signature did not verify with the one key the token names: jose would say the same. */
export const BAD_SIGNATURE: FastVerdict = Object.freeze({ ok: false })

/**
 * @returns a verdict when certain, `undefined` when jose must decide.
 */
export function verifyFast (token: string, keys: PreparedKeys, rules: ClaimRules, nowSeconds: number, options: { shapeChecked?: boolean } = {}): FastVerdict | undefined {
  // `shapeChecked`: the caller has already matched three segments of the base64url alphabet.
  if (options.shapeChecked !== true && !CANONICAL_JWS.test(token)) return undefined
  const first = token.indexOf('.')
  const second = token.indexOf('.', first + 1)
  // Lengths no base64 can have: Buffer would decode them silently, jose would not.
  if (first % 4 === 1 || (second - first - 1) % 4 === 1 || (token.length - second - 1) % 4 === 1 || second === token.length - 1) return undefined

  const header = parseObject(token.slice(0, first))
  if (header === undefined || Object.hasOwn(header, 'crit')) return undefined
  const { alg, kid } = header
  if (typeof alg !== 'string' || typeof kid !== 'string' || !Object.hasOwn(ALGORITHMS, alg)) return undefined
  const rule = ALGORITHMS[alg] as AlgorithmRule
  const key = pickKey(keys.get(kid), alg, rule)
  if (key === undefined) return undefined

  const signature = Buffer.from(token.slice(second + 1), 'base64url')
  const signingInput = Buffer.from(token.slice(0, second), 'latin1')
  let valid: boolean
  try {
    valid = verifySignature(rule.hash, signingInput, rule.pss === undefined
      ? { key: key.key, dsaEncoding: 'ieee-p1363' }
      : { key: key.key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: rule.pss }, signature)
  } catch {
    return undefined
  }
  if (!valid) return BAD_SIGNATURE

  const payload = parseObject(token.slice(first + 1, second))
  if (payload === undefined || !claimsAccepted(payload, rules, nowSeconds)) return undefined
  return { ok: true, payload, key }
}

function pickKey (candidates: readonly PreparedKey[] | undefined, alg: string, rule: AlgorithmRule): PreparedKey | undefined {
  if (candidates === undefined) return undefined
  let found: PreparedKey | undefined
  for (const candidate of candidates) {
    if (candidate.kty !== rule.kty) continue
    if (candidate.alg !== undefined && candidate.alg !== alg) continue
    if (rule.crv !== undefined && candidate.crv !== rule.crv) continue
    if (found !== undefined) return undefined // several keys match: jose refuses, let it say so
    found = candidate
  }
  return found
}

// jose's claim rules with requiredClaims ['exp'] and the configured audience/issuer.
function claimsAccepted (claims: Record<string, unknown>, rules: ClaimRules, now: number): boolean {
  const { exp, nbf, iat } = claims
  if (typeof exp !== 'number' || exp <= now - rules.clockToleranceSeconds) return false
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now + rules.clockToleranceSeconds)) return false
  if (iat !== undefined && typeof iat !== 'number') return false
  if (rules.issuer !== undefined && (!Object.hasOwn(claims, 'iss') || claims.iss !== rules.issuer)) return false
  if (rules.audience !== undefined) {
    const aud = claims.aud
    if (!Object.hasOwn(claims, 'aud')) return false
    if (typeof aud === 'string' ? aud !== rules.audience : !(Array.isArray(aud) && aud.includes(rules.audience))) return false
  }
  return true
}

function parseObject (segment: string): Record<string, unknown> | undefined {
  const text = Buffer.from(segment, 'base64url').toString('utf8')
  // jose decodes strictly; a replacement character means bytes that were not UTF-8 (or were U+FFFD): let jose judge.
  if (text.includes('\uFFFD')) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined
}

// Three non-empty segments in the canonical base64url alphabet, without padding.
const CANONICAL_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/
