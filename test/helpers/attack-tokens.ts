/**
 * Builds the attack-token corpus of fixtures/attack-tokens/recipes.json. Keys cannot live
 * in a fixture (the provider's key is made at test time), so the file holds recipes and this
 * module turns them into tokens: HMAC keyed with the provider's public key, attacker keys and
 * certificates, and a "trusted" key that the provider's key set publishes (added by the
 * test through the fault proxy) so that claim checks are exercised behind a valid signature.
 */
import { execFile } from 'node:child_process'
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign as cryptoSign, type KeyObject } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { JWK } from 'jose'
import corpus from '../../fixtures/attack-tokens/recipes.json' with { type: 'json' }

export interface AttackRecipe {
  readonly name: string
  readonly group: string
  readonly header?: Record<string, unknown>
  readonly headerText?: string
  readonly claims?: Record<string, unknown> | string
  readonly claimsText?: string
  readonly keepNull?: boolean
  readonly signer: string
  readonly raw?: readonly string[]
  readonly mutate?: string
  readonly expect: readonly string[]
}

export interface AttackToken {
  readonly name: string
  readonly group: string
  readonly token: string
  /** Acceptable `code`s of the 401 body. */
  readonly expect: readonly string[]
}

/** What the corpus needs to know about the provider under attack. */
export interface AttackTarget {
  readonly issuer: string
  readonly audience: string
  readonly providerKid: string
  readonly providerPublicPem: string
  readonly providerPublicJwk: JWK
  /** The raw intra secret the server was given (base64 text of INTRA_COMMUNICATION_BASE64). */
  readonly intraSecretB64: string
  /** A URL on an attacker-controlled server: nothing may ever fetch it. */
  readonly attackerJwksUrl: string
}

/** Keys made once per run: the attacker's, and the extra keys the provider's key set is made to publish. */
export interface CorpusKeys {
  readonly attacker: { kid: string, rsa: KeyObject, ec: KeyObject, publicJwk: JWK, certDerBase64: string }
  /** An RSA key the test adds to the provider's key set: tokens it signs pass the signature check. */
  readonly trusted: { kid: string, privateKey: KeyObject, publicJwk: JWK }
  /** An EC public key also added to the key set, to try its `kid` with another algorithm. */
  readonly ec: { kid: string, publicJwk: JWK }
}

export const RECIPES: readonly AttackRecipe[] = corpus.recipes as AttackRecipe[]

/** Feast's Helm chart default, `base64("intra-server-communication")`. */
const FEAST_DEFAULT_INTRA = Buffer.from('intra-server-communication')

export async function createCorpusKeys (): Promise<CorpusKeys> {
  const attackerRsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const attackerEc = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const trusted = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const attackerKid = 'attacker-key'
  return {
    attacker: {
      kid: attackerKid,
      rsa: attackerRsa.privateKey,
      ec: attackerEc.privateKey,
      publicJwk: { ...attackerRsa.publicKey.export({ format: 'jwk' }), kid: attackerKid, alg: 'RS256', use: 'sig' } as JWK,
      certDerBase64: await selfSignedCertificate(attackerRsa.privateKey)
    },
    trusted: { kid: 'corpus-trusted', privateKey: trusted.privateKey, publicJwk: { ...trusted.publicKey.export({ format: 'jwk' }), kid: 'corpus-trusted', alg: 'RS256', use: 'sig' } as JWK },
    ec: { kid: 'corpus-ec', publicJwk: { ...ec.publicKey.export({ format: 'jwk' }), kid: 'corpus-ec', alg: 'ES256', use: 'sig' } as JWK }
  }
}

/** Adds the corpus's trusted and EC keys to a key-set document (for the fault proxy's `transform`). */
export function publishCorpusKeys (keySetJson: string, keys: CorpusKeys): string {
  const keySet = JSON.parse(keySetJson) as { keys: JWK[] }
  return JSON.stringify({ keys: [...keySet.keys, keys.trusted.publicJwk, keys.ec.publicJwk] })
}

/** A valid token signed by the trusted key: the positive control of the claim-level recipes. */
export function trustedToken (target: AttackTarget, keys: CorpusKeys, claims: Record<string, unknown> = {}): string {
  const header = { alg: 'RS256', kid: keys.trusted.kid, typ: 'JWT' }
  return signWith('trusted-rsa', b64(JSON.stringify(header)), b64(JSON.stringify({ ...defaultClaims(target), ...claims })), header, target, keys)
}

export function buildAttackTokens (target: AttackTarget, keys: CorpusKeys, recipes: readonly AttackRecipe[] = RECIPES): AttackToken[] {
  return recipes.map((recipe) => ({ name: recipe.name, group: recipe.group, expect: recipe.expect, token: build(recipe, target, keys) }))
}

function build (recipe: AttackRecipe, target: AttackTarget, keys: CorpusKeys): string {
  const values = placeholders(target, keys)
  const substitute = (value: unknown): unknown => {
    if (typeof value === 'string') return Object.hasOwn(values, value) ? values[value] : value
    if (Array.isArray(value)) return value.map(substitute)
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v)]))
    return value
  }
  const substituteText = (text: string): string => text.replace(/\$[A-Za-z0-9]+/g, (name) => {
    const value = values[name]
    return value === undefined ? name : typeof value === 'string' ? value : JSON.stringify(value)
  })

  if (recipe.signer === 'raw') return (recipe.raw ?? []).map((segment) => b64(substituteText(segment))).join('.')

  const baseHeader: Record<string, unknown> = { alg: 'RS256', kid: recipe.signer === 'trusted-rsa' ? keys.trusted.kid : target.providerKid, typ: 'JWT' }
  const header = merge(baseHeader, substitute(recipe.header ?? {}) as Record<string, unknown>, false)
  const headerSegment = recipe.headerText === undefined ? b64(JSON.stringify(header)) : b64(substituteText(recipe.headerText))

  let claimsSegment: string
  if (recipe.claimsText === '$invalidUtf8') claimsSegment = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]).toString('base64url')
  else if (recipe.claimsText !== undefined) claimsSegment = b64(substituteText(recipe.claimsText))
  else {
    const claims = typeof recipe.claims === 'string' ? substitute(recipe.claims) as Record<string, unknown> : merge(defaultClaims(target), substitute(recipe.claims ?? {}) as Record<string, unknown>, recipe.keepNull === true)
    claimsSegment = b64(JSON.stringify(claims))
  }

  const token = signWith(recipe.signer, headerSegment, claimsSegment, header, target, keys)
  return mutate(token, recipe.mutate)
}

function signWith (
  signer: string,
  headerSegment: string,
  claimsSegment: string,
  header: Record<string, unknown>,
  target: AttackTarget,
  keys: CorpusKeys
): string {
  const input = `${headerSegment}.${claimsSegment}`
  const hmacHash = (): string => {
    const alg = typeof header.alg === 'string' ? header.alg : 'HS256'
    return `sha${alg.slice(2)}`
  }
  const hmac = (key: Buffer | string): string => `${input}.${createHmac(hmacHash(), key).update(input).digest('base64url')}`
  switch (signer) {
    case 'none': return `${input}.`
    case 'garbage': return `${input}.${randomBytes(64).toString('base64url')}`
    case 'hmac-pem': return hmac(target.providerPublicPem)
    case 'hmac-pem-trimmed': return hmac(target.providerPublicPem.trimEnd())
    case 'hmac-jwk': return hmac(JSON.stringify(target.providerPublicJwk))
    case 'hmac-der': return hmac(createPublicKey(target.providerPublicPem).export({ format: 'der', type: 'spki' }))
    case 'attacker-rsa': return `${input}.${cryptoSign('sha256', Buffer.from(input), keys.attacker.rsa).toString('base64url')}`
    case 'attacker-ec': return `${input}.${cryptoSign('sha256', Buffer.from(input), { key: keys.attacker.ec, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`
    case 'trusted-rsa': return `${input}.${cryptoSign('sha256', Buffer.from(input), keys.trusted.privateKey).toString('base64url')}`
    case 'intra-secret': return hmac(Buffer.from(target.intraSecretB64, 'base64'))
    case 'feast-default-intra': return hmac(FEAST_DEFAULT_INTRA)
    case 'wrong-intra': return hmac(randomBytes(32))
    default: throw new Error(`unknown signer ${signer} in recipes.json`)
  }
}

function mutate (token: string, how: string | undefined): string {
  const [h = '', p = '', s = ''] = token.split('.')
  switch (how) {
    case undefined: return token
    case 'pad-signature': return `${h}.${p}.${s}${'='.repeat((4 - (s.length % 4)) % 4 || 4)}`
    case 'pad-header': return `${h}==.${p}.${s}`
    // Same bytes in the standard alphabet; a token without - or _ gets a + appended instead.
    case 'std-alphabet': return /[-_]/.test(token) ? token.replace(/-/g, '+').replace(/_/g, '/') : `${h}.${p}.${s}+`
    case 'bang': return `${h}.${p}!.${s}`
    case 'star': return `${h}.${p}.${s}*`
    default: throw new Error(`unknown mutation ${how} in recipes.json`)
  }
}

function defaultClaims (target: AttackTarget): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000)
  return { iss: target.issuer, aud: target.audience, sub: 'mallory', preferred_username: 'mallory', roles: ['admin'], groups: ['admins'], iat: now, exp: now + 300 }
}

function placeholders (target: AttackTarget, keys: CorpusKeys): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000)
  const intra = { iss: 'feast-authz/intra', aud: 'feast-authz/intra', sub: 'feast-authz:intra-server', iat: now, exp: now + 60, jti: 'forged' }
  return {
    $providerKid: target.providerKid,
    $attackerKid: keys.attacker.kid,
    $attackerJwk: keys.attacker.publicJwk,
    $attackerJwksUrl: target.attackerJwksUrl,
    $attackerX5c: [keys.attacker.certDerBase64],
    $trustedKid: keys.trusted.kid,
    $ecKid: keys.ec.kid,
    $issuer: target.issuer,
    $audience: target.audience,
    $now: now,
    $future: now + 300,
    $past: now - 3600,
    $kid10k: 'k'.repeat(10 * 1024),
    $intraSecretB64: target.intraSecretB64,
    $intraClaims: intra,
    $intraClaimsExpired: { ...intra, iat: now - 600, exp: now - 300 }
  }
}

/** Fields of `extra` replace those of `base`; null removes a field unless `keepNull`. */
function merge (base: Record<string, unknown>, extra: Record<string, unknown>, keepNull: boolean): Record<string, unknown> {
  const out = { ...base }
  for (const [key, value] of Object.entries(extra)) {
    if (value === null && !keepNull) delete out[key]
    else out[key] = value
  }
  return out
}

function b64 (text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url')
}

async function selfSignedCertificate (key: KeyObject): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'feast-authz-attacker-'))
  try {
    const keyPath = join(dir, 'key.pem')
    const certPath = join(dir, 'cert.pem')
    await writeFile(keyPath, createPrivateKey(key.export({ format: 'pem', type: 'pkcs8' })).export({ format: 'pem', type: 'pkcs8' }))
    await promisify(execFile)('openssl', ['req', '-x509', '-key', keyPath, '-days', '1', '-subj', '/CN=attacker', '-outform', 'DER', '-out', certPath])
    return (await readFile(certPath)).toString('base64')
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
