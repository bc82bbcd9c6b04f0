import assert from 'node:assert/strict'
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { before, describe, test } from 'node:test'
import fc from 'fast-check'
import { createLocalJWKSet, jwtVerify, SignJWT, type JWK } from 'jose'
import { isCompactJws } from '../../../src/base/jwt-segments.ts'
import { selectKeys, verifyFast, type ClaimRules, type KeySelection, type PreparedKeys } from '../../../src/managers/oidc/fast-verify.ts'
import { ALLOWED_ALGORITHMS, CLOCK_TOLERANCE_SECONDS } from '../../../src/managers/oidc/oidc-manager.ts'

/**
 * jose is the oracle: for every token of the corpus, the fast path followed by the
 * jose fallback must reach jose's verdict, and the fast path alone must never
 * accept what jose rejects. jose is given what the server gives it: the selected keys
 * (selectKeys' `accepted`), and only tokens in their canonical spelling (isCompactJws), the
 * one deliberate difference: jose on Node also accepts other spellings of the same token.
 */

const now = Math.floor(Date.now() / 1000)
const b64 = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

interface Signer { readonly kid: string, readonly alg: string, readonly privateKey: KeyObject, readonly publicJwk: JWK }

function makeSigner (kid: string, alg: string): Signer {
  const pair = alg.startsWith('ES')
    ? generateKeyPairSync('ec', { namedCurve: ({ ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' } as Record<string, string>)[alg]! })
    : alg === 'EdDSA' || alg === 'Ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('rsa', { modulusLength: 2048 })
  return { kid, alg, privateKey: pair.privateKey, publicJwk: { ...pair.publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' } as JWK }
}

/** Signs any header and payload bytes as they are, which jose's SignJWT would refuse to produce. */
function rawSign (signer: Signer, header: unknown, payload: unknown): string {
  const input = `${b64(header)}.${b64(payload)}`
  const hashName = signer.alg === 'EdDSA' || signer.alg === 'Ed25519' ? null : `sha${signer.alg.slice(2)}`
  const options = signer.alg.startsWith('PS')
    ? { key: signer.privateKey, padding: 6, saltLength: Number(signer.alg.slice(2)) / 8 }
    : { key: signer.privateKey, dsaEncoding: 'ieee-p1363' as const }
  return `${input}.${sign(hashName, Buffer.from(input), options).toString('base64url')}`
}

/** An ECDSA token whose signature is in DER, as `crypto.sign` writes it by default: JWS requires r ‖ s. */
function rawSignDer (signer: Signer, header: unknown, payload: unknown): string {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${sign(`sha${signer.alg.slice(2)}`, Buffer.from(input), signer.privateKey).toString('base64url')}`
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
/** The same bytes, spelled with the unused low bits of the last character set (segment length 2 or 3 mod 4). */
function withLowBits (segment: string): string {
  const unused = segment.length % 4 === 2 ? 0x0f : 0x03
  const last = ALPHABET.indexOf(segment.at(-1)!)
  return segment.slice(0, -1) + ALPHABET[last | unused]!
}

const claims = { sub: 'user-1', iss: 'https://idp.example', aud: 'feast', exp: now + 600, iat: now, preferred_username: 'alice' }

let rs: Signer, ps: Signer, es: Signer, es384: Signer, es512: Signer, ed: Signer, attacker: Signer, weak: Signer, mixedStrong: Signer, kidlessSigner: Signer
let jwks: { keys: JWK[] }
let prepared: PreparedKeys
let selection: KeySelection
const corpus: Array<{ name: string, token: string }> = []

before(async () => {
  rs = makeSigner('rs', 'RS256')
  ps = makeSigner('ps', 'PS256')
  es = makeSigner('es', 'ES256')
  es384 = makeSigner('es384', 'ES384')
  es512 = makeSigner('es512', 'ES512')
  ed = makeSigner('ed', 'EdDSA')
  attacker = makeSigner('rs', 'RS256')
  const weakPair = generateKeyPairSync('rsa', { modulusLength: 1024 })
  weak = { kid: 'weak', alg: 'RS256', privateKey: weakPair.privateKey, publicJwk: { ...weakPair.publicKey.export({ format: 'jwk' }), kid: 'weak', alg: 'RS256' } as JWK }
  const encOnly = { ...makeSigner('enc', 'RS256').publicJwk, use: 'enc' }
  const noVerifyOps = { ...makeSigner('ops', 'RS256').publicJwk, key_ops: ['encrypt'] }
  const dupA = makeSigner('dup', 'RS256')
  const dupB = makeSigner('dup', 'RS256')
  const noAlg = makeSigner('noalg', 'RS256')
  const noAlgJwk = { ...noAlg.publicJwk }
  delete noAlgJwk.alg
  kidlessSigner = makeSigner('', 'ES384')
  const kidlessJwk: JWK = { ...kidlessSigner.publicJwk }
  delete kidlessJwk.kid
  const strongDup = makeSigner('mixed', 'RS256')
  const weakDupPair = generateKeyPairSync('rsa', { modulusLength: 1024 })
  mixedStrong = strongDup
  jwks = {
    keys: [rs.publicJwk, ps.publicJwk, es.publicJwk, es384.publicJwk, es512.publicJwk, ed.publicJwk,
      weak.publicJwk, encOnly, noVerifyOps, dupA.publicJwk, dupB.publicJwk, noAlgJwk,
      strongDup.publicJwk, kidlessJwk, { ...weakDupPair.publicKey.export({ format: 'jwk' }), kid: 'mixed', alg: 'RS256', use: 'sig' } as JWK]
  }
  selection = selectKeys(jwks.keys)
  prepared = selection.byKid

  const add = (name: string, token: string): void => { corpus.push({ name, token }) }
  for (const signer of [rs, ps, es, es384, es512, ed]) add(`valid ${signer.alg}`, rawSign(signer, { alg: signer.alg, kid: signer.kid, typ: 'JWT' }, claims))
  add('valid via SignJWT', await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'rs' }).sign(rs.privateKey))
  add('expired', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, exp: now - 60 }))
  add('expired within the clock tolerance', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, exp: now - CLOCK_TOLERANCE_SECONDS + 3 }))
  add('not yet valid', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, nbf: now + 600 }))
  add('nbf within the tolerance', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, nbf: now + 3 }))
  add('missing exp', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, exp: undefined }))
  add('exp as a string', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, exp: String(now + 600) }))
  add('nbf as a string', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, nbf: '0' }))
  add('iat as a string', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, iat: 'now' }))
  add('exp overflowing to Infinity', rawSign(rs, { alg: 'RS256', kid: 'rs' }, '{"exp":1e400,"sub":"x"}'))
  add('negative exp', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, exp: -1 }))
  add('payload is an array', rawSign(rs, { alg: 'RS256', kid: 'rs' }, [claims]))
  add('payload is a number', rawSign(rs, { alg: 'RS256', kid: 'rs' }, 42))
  add('payload is not JSON', rawSign(rs, { alg: 'RS256', kid: 'rs' }, 'not json'))
  add('payload with duplicated keys', rawSign(rs, { alg: 'RS256', kid: 'rs' }, `{"exp":${now - 100},"exp":${now + 600},"sub":"x"}`))
  add('payload bytes that are not UTF-8', `${b64({ alg: 'RS256', kid: 'rs' })}.${Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')}.${'A'.repeat(342)}`)
  add('wrong key under a known kid', rawSign(attacker, { alg: 'RS256', kid: 'rs' }, claims))
  add('unknown kid', rawSign(rs, { alg: 'RS256', kid: 'nope' }, claims))
  add('no kid', rawSign(rs, { alg: 'RS256' }, claims))
  add('kid that names two keys', rawSign(dupA, { alg: 'RS256', kid: 'dup' }, claims))
  add('kid of an encryption key', rawSign(makeSigner('enc', 'RS256'), { alg: 'RS256', kid: 'enc' }, claims))
  add('kid whose key_ops lack verify', rawSign(makeSigner('ops', 'RS256'), { alg: 'RS256', kid: 'ops' }, claims))
  add('key without alg used for RS256', rawSign(noAlg, { alg: 'RS256', kid: 'noalg' }, claims))
  add('key without alg used for PS256', rawSign({ ...noAlg, alg: 'PS256' }, { alg: 'PS256', kid: 'noalg' }, claims))
  add('1024-bit RSA key', rawSign(weak, { alg: 'RS256', kid: 'weak' }, claims))
  add('RS256 key used with PS256', rawSign({ ...rs, alg: 'PS256' }, { alg: 'PS256', kid: 'rs' }, claims))
  add('RS256 header over an RS384 signature', rawSign({ ...rs, alg: 'RS384' }, { alg: 'RS256', kid: 'rs' }, claims))
  add('EC key named by an RSA alg', rawSign(rs, { alg: 'RS256', kid: 'es' }, claims))
  add('alg none', `${b64({ alg: 'none', kid: 'rs' })}.${b64(claims)}.`)
  add('alg NONE', `${b64({ alg: 'NONE', kid: 'rs' })}.${b64(claims)}.`)
  add('HS256 with the public key as secret', await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'rs' }).sign(Buffer.from(JSON.stringify(rs.publicJwk))))
  add('unknown crit', rawSign(rs, { alg: 'RS256', kid: 'rs', crit: ['exp'], exp: 1 }, claims))
  add('b64 false with crit', rawSign(rs, { alg: 'RS256', kid: 'rs', crit: ['b64'], b64: false }, claims))
  add('b64 false without crit', rawSign(rs, { alg: 'RS256', kid: 'rs', b64: false }, claims))
  add('header is an array', rawSign(rs, [{ alg: 'RS256', kid: 'rs' }], claims))
  add('embedded jwk of the attacker', rawSign(attacker, { alg: 'RS256', kid: 'rs', jwk: attacker.publicJwk }, claims))
  add('aud as a list containing ours', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, aud: ['other', 'feast'] }))
  add('aud as a nested list', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, aud: [['feast']] }))
  add('aud of someone else', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, aud: 'other' }))
  add('no aud', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, aud: undefined }))
  add('iss of someone else', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, iss: 'https://evil.example' }))
  add('no iss', rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, iss: undefined }))
  const valid = rawSign(rs, { alg: 'RS256', kid: 'rs' }, claims)
  const [h, p, s] = valid.split('.') as [string, string, string]
  add('two segments', `${h}.${p}`)
  add('four segments', `${valid}.${s}`)
  add('five segments (JWE shape)', `${h}.${p}.${s}.${s}.${s}`)
  add('padding in the signature', `${h}.${p}.${s}==`)
  add('standard base64 characters', `${h}.${p}.${s.replace(/-/g, '+').replace(/_/g, '/')}`)
  add('tampered header', `${b64({ alg: 'RS256', kid: 'rs', x: 1 })}.${p}.${s}`)
  add('tampered payload', `${h}.${b64({ ...claims, preferred_username: 'admin' })}.${s}`)
  add('tampered signature', `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`)
  add('truncated signature', `${h}.${p}.${s.slice(0, -4)}`)
  // Longer than the buffer the fast path shares between tokens (16 KiB holds a token of 8,192 characters).
  const long = rawSign(rs, { alg: 'RS256', kid: 'rs' }, { ...claims, groups: Array.from({ length: 800 }, (_, i) => `feast-group-${i}`) })
  const [lh, lp, ls] = long.split('.') as [string, string, string]
  add('valid RS256 longer than the shared buffer', long)
  add('tampered signature of a token longer than the shared buffer', `${lh}.${lp}.${ls.slice(0, 10)}${ls[10] === 'A' ? 'B' : 'A'}${ls.slice(11)}`)
  add('empty signature', `${h}.${p}.`)
  add('signature length that no base64 has', `${h}.${p}.${s}A`)
  add('non-canonical signature spelling (unused low bits set)', `${h}.${p}.${withLowBits(s)}`)
  add('non-canonical payload spelling (unused low bits set)', `${h}.${withLowBits(p)}.${s}`)
  add('token without kid, verified by a key without kid', rawSign(kidlessSigner, { alg: 'ES384' }, claims))
  add('kid shared by a strong and a weak key, signed by the strong one', rawSign(mixedStrong, { alg: 'RS256', kid: 'mixed' }, claims))
  // ECDSA signatures are r ‖ s in a JWS; the fast path turns them into DER itself (ecdsa-der.ts).
  const [eh, ep, es256] = rawSign(es, { alg: 'ES256', kid: 'es' }, claims).split('.') as [string, string, string]
  const raw = Buffer.from(es256, 'base64url')
  add('ES256 signature one byte short', `${eh}.${ep}.${raw.subarray(1).toString('base64url')}`)
  add('ES256 signature one byte long', `${eh}.${ep}.${Buffer.concat([raw, Buffer.of(0)]).toString('base64url')}`)
  add('ES256 signature with r zero', `${eh}.${ep}.${Buffer.concat([Buffer.alloc(32), raw.subarray(32)]).toString('base64url')}`)
  add('ES256 signature with s zero', `${eh}.${ep}.${Buffer.concat([raw.subarray(0, 32), Buffer.alloc(32)]).toString('base64url')}`)
  add('ES256 signature with r and s swapped', `${eh}.${ep}.${Buffer.concat([raw.subarray(32), raw.subarray(0, 32)]).toString('base64url')}`)
  add('ES256 signature in DER instead of r ‖ s', rawSignDer(es, { alg: 'ES256', kid: 'es' }, claims))
  add('ES384 header over an ES256 key', rawSign(es, { alg: 'ES384', kid: 'es' }, claims))
  add('ES512 signature by another P-521 key', rawSign(makeSigner('es512', 'ES512'), { alg: 'ES512', kid: 'es512' }, claims))
})

/** The server's verdict as jose reaches it: canonical spelling only, and the selected keys. */
async function joseAccepts (token: string, rules: ClaimRules): Promise<boolean> {
  return isCompactJws(token) && await joseAlone(token, rules, { keys: [...selection.accepted] as JWK[] })
}

async function joseAlone (token: string, rules: ClaimRules, keySet: { keys: JWK[] }): Promise<boolean> {
  try {
    await jwtVerify(token, createLocalJWKSet(keySet), {
      algorithms: [...ALLOWED_ALGORITHMS],
      clockTolerance: rules.clockToleranceSeconds,
      requiredClaims: ['exp'],
      ...(rules.audience === undefined ? {} : { audience: rules.audience }),
      ...(rules.issuer === undefined ? {} : { issuer: rules.issuer })
    })
    return true
  } catch {
    return false
  }
}

async function fastPathAccepts (token: string, rules: ClaimRules): Promise<{ accepted: boolean, decidedByFastPath: boolean }> {
  // As the manager does: the compact-JWS check first, then the fast path.
  const verdict = isCompactJws(token) ? verifyFast(token, prepared, rules, Math.floor(Date.now() / 1000)) : undefined
  if (verdict === undefined) return { accepted: await joseAccepts(token, rules), decidedByFastPath: false }
  return { accepted: verdict.ok, decidedByFastPath: true }
}

const ruleSets: Array<[string, ClaimRules]> = [
  ['no audience or issuer configured', { audience: undefined, issuer: undefined, clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS }],
  ['audience and issuer configured', { audience: 'feast', issuer: 'https://idp.example', clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS }]
]

describe('the fast verification path against jose', () => {
  for (const [label, rules] of ruleSets) {
    test(`reaches jose's verdict on every token of the corpus, ${label}`, async () => {
      const disagreements: string[] = []
      for (const { name, token } of corpus) {
        const expected = await joseAccepts(token, rules)
        const { accepted } = await fastPathAccepts(token, rules)
        if (accepted !== expected) disagreements.push(`${name}: jose ${expected ? 'accepts' : 'rejects'}, fast path ${accepted ? 'accepts' : 'rejects'}`)
      }
      assert.deepEqual(disagreements, [])
    })
  }

  test('decides the common valid tokens itself instead of falling back to jose', async () => {
    const rules = ruleSets[1]![1]
    for (const name of ['valid RS256', 'valid PS256', 'valid ES256', 'valid ES384', 'valid ES512', 'valid EdDSA', 'valid via SignJWT', 'valid RS256 longer than the shared buffer']) {
      const entry = corpus.find((item) => item.name === name)!
      const result = await fastPathAccepts(entry.token, rules)
      assert.deepEqual(result, { accepted: true, decidedByFastPath: true }, name)
    }
  })

  test('a token longer than the shared buffer really is longer (the corpus covers the fallback buffer)', () => {
    assert.ok(corpus.find((item) => item.name === 'valid RS256 longer than the shared buffer')!.token.length > 8192)
  })

  test('the corpus holds both accepted and rejected tokens', async () => {
    const verdicts = await Promise.all(corpus.map(async ({ token }) => await joseAccepts(token, ruleSets[0]![1])))
    assert.ok(verdicts.filter(Boolean).length >= 8)
    assert.ok(verdicts.filter((accepted) => !accepted).length >= 30)
  })

  for (const alg of ['ES256', 'ES512']) {
    test(`agrees with jose on random single-character mutations of a valid ${alg} token`, async () => {
      const rules = ruleSets[1]![1]
      const valid = corpus.find((item) => item.name === `valid ${alg}`)!.token
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.+/='
      await fc.assert(fc.asyncProperty(
        fc.nat({ max: valid.length - 1 }), fc.constantFrom(...alphabet),
        async (index, char) => {
          const mutated = valid.slice(0, index) + char + valid.slice(index + 1)
          const expected = await joseAccepts(mutated, rules)
          const { accepted } = await fastPathAccepts(mutated, rules)
          assert.equal(accepted, expected, `mutation at ${index} to ${char}`)
        }
      ), { numRuns: 300 })
    })
  }
})

describe('preparing keys', () => {
  test('leaves out keys jose would refuse: private, weak RSA, encryption-only, without verify', () => {
    const kids = [...prepared.keys()].sort()
    assert.deepEqual(kids, ['dup', 'ed', 'es', 'es384', 'es512', 'mixed', 'noalg', 'ps', 'rs'])
    const privateJwk = { ...rs.privateKey.export({ format: 'jwk' }), kid: 'private' }
    assert.equal(selectKeys([privateJwk]).byKid.size, 0)
  })

  test('hands jose exactly the keys the fast path uses, plus keys without a kid', () => {
    const kidsForJose = selection.accepted.map((jwk) => jwk.kid ?? '(none)').sort()
    assert.deepEqual(kidsForJose, ['(none)', 'dup', 'dup', 'ed', 'es', 'es384', 'es512', 'mixed', 'noalg', 'ps', 'rs'])
  })

  test('says which keys it ignored and why; encryption keys are expected, weak keys are not', () => {
    const reasons = selection.ignored.map((key) => `${key.kid ?? ''}: ${key.reason} (${key.expected ? 'expected' : 'warn'})`).sort()
    assert.deepEqual(reasons, [
      'enc: "use" is "enc", not "sig" (expected)',
      'mixed: its RSA modulus has 1024 bits (at least 2048 required) (warn)',
      'ops: "key_ops" does not include "verify" (expected)',
      'weak: its RSA modulus has 1024 bits (at least 2048 required) (warn)'
    ])
  })

  test('a kid shared by a strong and a weak key names only the strong key, for jose and the fast path alike', async () => {
    assert.equal(prepared.get('mixed')!.length, 1)
    const token = corpus.find((item) => item.name === 'kid shared by a strong and a weak key, signed by the strong one')!.token
    assert.deepEqual(await fastPathAccepts(token, ruleSets[1]![1]), { accepted: true, decidedByFastPath: true })
    assert.equal(await joseAccepts(token, ruleSets[1]![1]), true)
  })

  test('jose alone accepts a non-canonical spelling of a valid token; the server does not', async () => {
    const valid = corpus.find((item) => item.name === 'valid RS256')!.token
    const [h, p, sig] = valid.split('.') as [string, string, string]
    const respelled = `${h}.${p}.${withLowBits(sig)}`
    assert.notEqual(respelled, valid)
    assert.equal(await joseAlone(respelled, ruleSets[0]![1], { keys: [...selection.accepted] as JWK[] }), true)
    assert.equal(isCompactJws(respelled), false)
    assert.equal(await joseAccepts(respelled, ruleSets[0]![1]), false)
  })

  test('reuses the key object of an unchanged key across refetches', () => {
    const again = selectKeys(jwks.keys, prepared).byKid
    assert.equal(again.get('rs')![0], prepared.get('rs')![0])
  })

  test('gives a changed key under the same kid a new object', () => {
    const rotated = selectKeys([attacker.publicJwk], prepared).byKid
    assert.notEqual(rotated.get('rs')![0], prepared.get('rs')![0])
  })

  test('ignores JWK entries that are not objects', () => {
    const selected = selectKeys([null, 'x', 3, [rs.publicJwk]])
    assert.equal(selected.byKid.size, 0)
    assert.equal(selected.accepted.length, 0)
    assert.equal(selected.ignored.length, 4)
  })
})
