import { createPublicKey, verify as verifySignature, constants, type JsonWebKey, type KeyObject } from 'node:crypto'
import { decodeJsonSegment, parseJsonObject } from '../../base/jwt-segments.ts'
import { derSignature } from './ecdsa-der.ts'

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
  /** ECDSA: the byte size of r and of s in the token's signature (r ‖ s). */
  readonly half?: number
}

const ALGORITHMS: Readonly<Record<string, AlgorithmRule>> = {
  RS256: { kty: 'RSA', hash: 'sha256' },
  RS384: { kty: 'RSA', hash: 'sha384' },
  RS512: { kty: 'RSA', hash: 'sha512' },
  PS256: { kty: 'RSA', hash: 'sha256', pss: 32 },
  PS384: { kty: 'RSA', hash: 'sha384', pss: 48 },
  PS512: { kty: 'RSA', hash: 'sha512', pss: 64 },
  ES256: { kty: 'EC', crv: 'P-256', hash: 'sha256', half: 32 },
  ES384: { kty: 'EC', crv: 'P-384', hash: 'sha384', half: 48 },
  ES512: { kty: 'EC', crv: 'P-521', hash: 'sha512', half: 66 },
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

/** A key of the provider's set that is not used, and why (for a one-time log line). */
export interface IgnoredKey {
  readonly kid: string | undefined
  readonly reason: string
  /** Canonical JSON of the JWK, to log each ignored key once across refetches. */
  readonly fingerprint: string
  /** An encryption key or one not meant for verification: normal in a provider's set, not worth a warning. */
  readonly expected: boolean
}

/**
 * The one key-selection rule of the OIDC path: which JWKs of the provider's set are used at
 * all. jose is handed exactly `accepted` and the fast path indexes the same keys in `byKid`,
 * so a warm server (fast path), a cold one and `inspect` (jose) pick the same key for a token.
 */
export interface KeySelection {
  /** Accepted keys that have a `kid`, as `node:crypto` objects, by `kid`. */
  readonly byKid: Map<string, PreparedKey[]>
  /** Every accepted JWK (with or without a `kid`), as the provider sent it: jose's key set. */
  readonly accepted: readonly Record<string, unknown>[]
  readonly ignored: readonly IgnoredKey[]
}

/**
 * Selects the keys jose may use (public, importable, RSA of at least 2048 bits, meant for
 * signatures) and prepares those with a `kid` for `crypto.verify`, reusing the objects of
 * `previous` for unchanged keys (cached verdicts stay valid for them). A key jose would refuse
 * to import is left out of jose's set too: a token naming it is then an unknown key (401),
 * not a failed import (500).
 */
export function selectKeys (jwks: readonly unknown[], previous?: PreparedKeys): KeySelection {
  const reusable = new Map<string, PreparedKey>()
  for (const list of previous?.values() ?? []) for (const prepared of list) reusable.set(prepared.fingerprint, prepared)
  const byKid = new Map<string, PreparedKey[]>()
  const accepted: Record<string, unknown>[] = []
  const ignored: IgnoredKey[] = []
  for (const jwk of jwks) {
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
      ignored.push({ kid: undefined, reason: 'not a JSON object', fingerprint: JSON.stringify(jwk) ?? 'undefined', expected: false })
      continue
    }
    const fingerprint = JSON.stringify(jwk)
    let prepared = reusable.get(fingerprint)
    if (prepared === undefined) {
      const refusal = refusalOf(jwk as Record<string, unknown>)
      if (typeof refusal !== 'object' || !('key' in refusal)) {
        const kid = (jwk as Record<string, unknown>).kid
        ignored.push({ kid: typeof kid === 'string' ? kid : undefined, reason: refusal.reason, fingerprint, expected: refusal.expected })
        continue
      }
      const usable = jwk as UsableJwk
      prepared = { kid: usable.kid ?? '', kty: usable.kty, crv: usable.crv, alg: usable.alg, key: refusal.key, fingerprint }
    }
    accepted.push(jwk as Record<string, unknown>)
    if (typeof (jwk as UsableJwk).kid !== 'string') continue
    const list = byKid.get(prepared.kid)
    if (list === undefined) byKid.set(prepared.kid, [prepared])
    else list.push(prepared)
  }
  return { byKid, accepted, ignored }
}

interface UsableJwk {
  kid?: string
  kty: string
  crv?: string
  alg?: string
  [member: string]: unknown
}

type Refusal = { readonly reason: string, readonly expected: boolean }

// jose's own rules for a key-set member (its jwks/local.js, isUsableJWK) plus the
// import itself: a private member, a weak RSA modulus or a key node:crypto cannot read.
function refusalOf (jwk: Record<string, unknown>): Refusal | { readonly key: KeyObject } {
  const { kid, kty, crv, alg, use, key_ops: keyOps, ext, d } = jwk
  if (kid !== undefined && typeof kid !== 'string') return { reason: '"kid" is not a string', expected: false }
  if (typeof kty !== 'string') return { reason: 'no "kty"', expected: false }
  if (crv !== undefined && typeof crv !== 'string') return { reason: '"crv" is not a string', expected: false }
  if (alg !== undefined && typeof alg !== 'string') return { reason: '"alg" is not a string', expected: false }
  if (ext !== undefined && typeof ext !== 'boolean') return { reason: '"ext" is not a boolean', expected: false }
  if (use !== undefined && use !== 'sig') return { reason: `"use" is ${JSON.stringify(use)}, not "sig"`, expected: true }
  if (keyOps !== undefined) {
    if (!Array.isArray(keyOps) || keyOps.some((op, index) => typeof op !== 'string' || keyOps.indexOf(op) !== index)) return { reason: '"key_ops" is not a list of distinct strings', expected: false }
    if (!keyOps.includes('verify')) return { reason: '"key_ops" does not include "verify"', expected: true }
  }
  if (d !== undefined) return { reason: 'it holds private key material', expected: false }
  let key: KeyObject
  try {
    key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' })
  } catch {
    return { reason: `it is not a valid public ${kty} key`, expected: false }
  }
  const bits = key.asymmetricKeyDetails?.modulusLength
  if (key.asymmetricKeyType === 'rsa' && (bits === undefined || bits < 2048)) return { reason: `its RSA modulus has ${String(bits)} bits (at least 2048 required)`, expected: false }
  if (key.asymmetricKeyType === 'x25519' || key.asymmetricKeyType === 'x448') return { reason: 'it is a key-agreement key, not a signing key', expected: true }
  return { key }
}

export interface ClaimRules {
  readonly audience: string | undefined
  readonly issuer: string | undefined
  readonly clockToleranceSeconds: number
}

export type FastVerdict =
  | { readonly ok: true, readonly payload: Record<string, unknown>, readonly key: PreparedKey }
  | { readonly ok: false, readonly reason: 'bad_signature' | 'unknown_kid' }

/** The signature did not verify with the one key the token names: jose would say the same. */
export const BAD_SIGNATURE: FastVerdict = Object.freeze({ ok: false, reason: 'bad_signature' })
/**
 * A well-formed header (an algorithm we allow, no `crit`) naming a `kid` the set does not hold:
 * jose would look that `kid` up and find nothing. The caller decides whether to refetch.
 */
export const UNKNOWN_KID: FastVerdict = Object.freeze({ ok: false, reason: 'unknown_kid' })

/**
 * `token` must have passed `isCompactJws` (the caller checks it once, for every verifier).
 *
 * @returns a verdict when certain, `undefined` when jose must decide.
 */
export function verifyFast (token: string, keys: PreparedKeys, rules: ClaimRules, nowSeconds: number): FastVerdict | undefined {
  const first = token.indexOf('.')
  const second = token.indexOf('.', first + 1)
  if (second === token.length - 1) return undefined

  const header = headerOf(token.slice(0, first), keys)
  if (header === undefined) return undefined
  const candidates = keys.get(header.kid)
  if (candidates === undefined) return UNKNOWN_KID
  const rule = header.rule
  const key = pickKey(candidates, header.alg, rule)
  if (key === undefined) return undefined

  // The signing input, the signature and the payload are decoded into one buffer (see `scratch`).
  const buffer = bufferFor(token.length)
  const signingInputEnd = buffer.write(token, 0, second, 'latin1')
  const signatureEnd = signingInputEnd + buffer.write(token.slice(second + 1), signingInputEnd, 'base64url')
  const valid = signatureValid(rule, key.key, buffer.subarray(0, signingInputEnd), buffer.subarray(signingInputEnd, signatureEnd))
  if (valid === undefined) return undefined
  if (!valid) return BAD_SIGNATURE

  const payloadEnd = signatureEnd + buffer.write(token.slice(first + 1, second), signatureEnd, 'base64url')
  // jose decodes strictly: bytes that were not UTF-8 (or were U+FFFD) are left for jose to judge.
  const payload = parseJsonObject(buffer.toString('utf8', signatureEnd, payloadEnd), true)
  if (payload === undefined || !claimsAccepted(payload, rules, nowSeconds)) return undefined
  return { ok: true, payload, key }
}

/**
 * `undefined` where Node refuses the check itself (a malformed signature, say): jose decides then.
 * The key goes to `crypto.verify` bare wherever the algorithm allows (see ecdsa-der.ts for why);
 * RSA-PSS cannot name its padding any other way, and keeps the options object.
 */
function signatureValid (rule: AlgorithmRule, key: KeyObject, input: Uint8Array, signature: Uint8Array): boolean | undefined {
  try {
    if (rule.pss !== undefined) return verifySignature(rule.hash, input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: rule.pss }, signature)
    if (rule.half === undefined) return verifySignature(rule.hash, input, key, signature)
    const der = derSignature(signature, rule.half)
    return der === undefined ? undefined : verifySignature(rule.hash, input, key, der)
  } catch {
    return undefined
  }
}

/**
 * One buffer reused for every token: `verifyFast` is synchronous, so no two tokens share it at
 * once, and a token then costs no allocation (nor, every few tokens, a refill of Node's buffer
 * pool) for its signing input, signature and payload. It holds a token of the default maximum
 * length; a longer one (`maxTokenLength` raised) gets a buffer of its own. Only the bytes
 * written for the current token are ever read.
 */
const SCRATCH_BYTES = 16 * 1024
const scratch = Buffer.alloc(SCRATCH_BYTES)

// The signing input takes a byte per character, and the two base64url segments decode to 3/4 of theirs.
function bufferFor (tokenLength: number): Buffer {
  const needed = 2 * tokenLength
  return needed <= SCRATCH_BYTES ? scratch : Buffer.allocUnsafe(needed)
}

/** What the fast path reads from a protected header it can judge. */
interface HeaderInfo { readonly alg: string, readonly kid: string, readonly rule: AlgorithmRule }

/**
 * A provider signs every token with one of a few headers, so a decoded header is remembered by
 * its segment: most tokens then cost a map lookup instead of a base64 decode and a JSON parse.
 * Only well-formed headers naming a `kid` of the key set are remembered (a flood of random
 * `kid`s cannot evict the provider's), bounded in count and length (headers come from anyone).
 */
const headers = new Map<string, HeaderInfo>()
const HEADER_CACHE_ENTRIES = 64
const HEADER_CACHE_MAX_LENGTH = 512

function headerOf (segment: string, keys: PreparedKeys): HeaderInfo | undefined {
  const known = headers.get(segment)
  if (known !== undefined) return known
  const info = readHeader(segment)
  if (info !== undefined && segment.length <= HEADER_CACHE_MAX_LENGTH && keys.has(info.kid)) {
    if (headers.size >= HEADER_CACHE_ENTRIES) headers.clear()
    headers.set(segment, info)
  }
  return info
}

function readHeader (segment: string): HeaderInfo | undefined {
  const header = decodeJsonSegment(segment, true)
  if (header === undefined || Object.hasOwn(header, 'crit')) return undefined
  const { alg, kid } = header
  if (typeof alg !== 'string' || typeof kid !== 'string' || !Object.hasOwn(ALGORITHMS, alg)) return undefined
  return Object.freeze({ alg, kid, rule: ALGORITHMS[alg] as AlgorithmRule })
}

function pickKey (candidates: readonly PreparedKey[], alg: string, rule: AlgorithmRule): PreparedKey | undefined {
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
