import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { decodeProtectedHeader, decodeJwt, SignJWT, UnsecuredJWT } from 'jose'
import { AuthError } from '../../src/base/errors.ts'
import { INTRA_TOKEN_TYPE, INTRA_USERNAME, looksLikeIntraToken, mintIntraToken, verifyIntraToken } from '../../src/base/intra-token.ts'

const secret = new Uint8Array(randomBytes(32))
const now = Date.UTC(2026, 0, 1, 12)

async function rejectsWith (token: string, code: string, at = now): Promise<void> {
  await assert.rejects(verifyIntraToken(token, secret, at), (error: unknown) => {
    assert.ok(error instanceof AuthError)
    assert.equal(error.status, 401)
    assert.equal(error.code, code)
    return true
  })
}

function signed (claims: Record<string, unknown>, header: Record<string, unknown> = {}, key: Uint8Array = secret): Promise<string> {
  const iat = Math.floor(now / 1000)
  return new SignJWT({ iss: 'feast-authz/intra', aud: 'feast-authz/intra', sub: INTRA_USERNAME, iat, exp: iat + 60, ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: INTRA_TOKEN_TYPE, ...header })
    .sign(key)
}

describe('intra-server tokens', () => {
  it('are HS256 JWS with their own typ, a 60 s lifetime and no trace of the secret', async () => {
    const token = await mintIntraToken(secret, now)
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'HS256', typ: INTRA_TOKEN_TYPE })
    const claims = decodeJwt(token)
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 60)
    assert.equal(claims.sub, INTRA_USERNAME)
    assert.ok(!token.includes(Buffer.from(secret).toString('base64url')))
  })

  it('verify when minted with the same secret', async () => {
    await verifyIntraToken(await mintIntraToken(secret, now), secret, now + 30_000)
  })

  it('are recognised by their typ header only', async () => {
    assert.equal(looksLikeIntraToken(await mintIntraToken(secret, now)), true)
    assert.equal(looksLikeIntraToken(await signed({}, { typ: 'JWT' })), false)
    assert.equal(looksLikeIntraToken('not-a-jwt'), false)
  })

  it('are rejected once expired', async () => {
    await rejectsWith(await mintIntraToken(secret, now), 'token_expired', now + 70_000)
  })

  it('are rejected when signed with another secret', async () => {
    await rejectsWith(await mintIntraToken(new Uint8Array(randomBytes(32)), now), 'invalid_signature')
  })

  it('are rejected unsigned (alg none) even with the intra typ', async () => {
    const unsigned = new UnsecuredJWT({ sub: INTRA_USERNAME, iss: 'feast-authz/intra', aud: 'feast-authz/intra', exp: Math.floor(now / 1000) + 60 }).encode()
    const [, payload] = unsigned.split('.')
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: INTRA_TOKEN_TYPE })).toString('base64url')
    await rejectsWith(`${header}.${payload ?? ''}.`, 'unsupported_algorithm')
  })

  it('are rejected without exp', async () => {
    await rejectsWith(await signed({ exp: undefined }), 'invalid_claims')
  })

  it('are rejected when iat is older than the lifetime, whatever exp says', async () => {
    const iat = Math.floor(now / 1000) - 3600
    await rejectsWith(await signed({ iat, exp: iat + 7200 }), 'token_expired')
  })

  it('are rejected with another issuer or subject', async () => {
    await rejectsWith(await signed({ iss: 'someone-else' }), 'invalid_claims')
    await rejectsWith(await signed({ sub: 'admin' }), 'invalid_claims')
  })

  it('are rejected with a tampered payload', async () => {
    const [header, , signature] = (await mintIntraToken(secret, now)).split('.')
    const forged = Buffer.from(JSON.stringify({ sub: INTRA_USERNAME, exp: Math.floor(now / 1000) + 9999 })).toString('base64url')
    await rejectsWith(`${header ?? ''}.${forged}.${signature ?? ''}`, 'invalid_signature')
  })
})
