import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { inspect } from 'node:util'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { oidcAuth, startApp, type TestApp, type TestResponse } from '../../helpers/authz-app.ts'
import { loadAuthConfig, type OidcServerConfig } from '../../../src/config/auth-config.ts'
import { silentLogger } from '../../../src/base/logging.ts'
import { AuthError } from '../../../src/base/errors.ts'
import { createOidcManager } from '../../../src/managers/oidc/oidc-manager.ts'
import { rawToken, startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'
import { useOidcApp } from '../../helpers/oidc-app.ts'
import { rawRequest } from '../../helpers/listen.ts'

// Every malformed, forged or out-of-policy token gets a 401 with an RFC 6750 challenge
// naming invalid_token and a stable body code: never a 500, never an allow.

const now = (): number => Math.floor(Date.now() / 1000)

function assertRejected (response: TestResponse, code: string): void {
  assert.equal(response.status, 401, `expected 401 ${code}, got ${response.status} ${JSON.stringify(response.body)}`)
  assert.equal(response.body.code, code)
  assert.equal(response.body.principal, undefined)
  const challenge = response.headers.get('www-authenticate') ?? ''
  assert.match(challenge, /^Bearer realm="feast", error="invalid_token", error_description="[^"\\]+"$/)
}

describe('bad tokens', () => {
  const app = useOidcApp()

  const send = async (token: string): Promise<TestResponse> => await app.call('/whoami', `Bearer ${token}`)

  test('a valid token is accepted (the baseline every case below departs from)', async () => {
    const response = await send(await app.provider.sign({ preferred_username: 'alice' }))
    assert.equal(response.status, 200)
    assert.equal((response.body.principal as { username: string }).username, 'alice')
  })

  test('an unsigned token (alg none) is rejected as unsupported_algorithm', async () => {
    const token = `${rawToken({ alg: 'none', typ: 'JWT' }, { preferred_username: 'admin', exp: now() + 300 })}.`
    assertRejected(await send(token), 'unsupported_algorithm')
  })

  test('alg none with the kid of a real key is still rejected', async () => {
    const token = `${rawToken({ alg: 'none', kid: app.provider.kid }, { preferred_username: 'admin', exp: now() + 300 })}.`
    assertRejected(await send(token), 'unsupported_algorithm')
  })

  test('an HS256 token keyed with the provider\'s public key (PEM bytes as the HMAC secret) is rejected', async () => {
    const secret = new TextEncoder().encode(await app.provider.publicKeyPem())
    const token = await new SignJWT({ preferred_username: 'admin', exp: now() + 300 })
      .setProtectedHeader({ alg: 'HS256', kid: app.provider.kid })
      .sign(secret)
    assertRejected(await send(token), 'unsupported_algorithm')
  })

  test('an HS256 token keyed with the public JWK\'s modulus is rejected', async () => {
    const secret = Buffer.from(String(app.provider.publicJwk.n), 'base64url')
    const token = await new SignJWT({ preferred_username: 'admin', exp: now() + 300 }).setProtectedHeader({ alg: 'HS256' }).sign(secret)
    assertRejected(await send(token), 'unsupported_algorithm')
  })

  test('a token whose payload was altered after signing is rejected as invalid_signature', async () => {
    const [header, , signature] = (await app.provider.sign({ preferred_username: 'alice' })).split('.')
    const [, forgedPayload] = (await app.provider.sign({ preferred_username: 'admin' })).split('.')
    assertRejected(await send(`${header}.${forgedPayload}.${signature}`), 'invalid_signature')
  })

  test('a token signed by a key the provider does not have, under the provider\'s kid, is rejected as invalid_signature', async () => {
    const { privateKey } = await generateKeyPair('RS256')
    const token = await new SignJWT({ preferred_username: 'admin', exp: now() + 300 }).setProtectedHeader({ alg: 'RS256', kid: app.provider.kid }).sign(privateKey)
    assertRejected(await send(token), 'invalid_signature')
  })

  test('a token carrying its own key in a jwk header is not trusted', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
    const jwk = await exportJWK(publicKey)
    const token = await new SignJWT({ preferred_username: 'admin', exp: now() + 300 }).setProtectedHeader({ alg: 'RS256', kid: 'attacker', jwk }).sign(privateKey)
    assertRejected(await send(token), 'unknown_key')
  })

  test('a token whose alg does not fit the provider\'s key type (ES256 under an RSA kid) is rejected', async () => {
    const token = `${rawToken({ alg: 'ES256', kid: app.provider.kid }, { preferred_username: 'admin', exp: now() + 300 })}.${Buffer.alloc(64, 1).toString('base64url')}`
    assertRejected(await send(token), 'unknown_key')
  })

  test('an expired token is rejected as token_expired', async () => {
    assertRejected(await send(await app.provider.sign({ preferred_username: 'alice', iat: now() - 7200, exp: now() - 3600 })), 'token_expired')
  })

  test('a token expired by less than the clock tolerance is still accepted', async () => {
    const response = await send(await app.provider.sign({ preferred_username: 'alice', exp: now() - 2 }))
    assert.equal(response.status, 200)
  })

  test('a token that is not valid yet (nbf in the future) is rejected as token_not_yet_valid', async () => {
    assertRejected(await send(await app.provider.sign({ preferred_username: 'alice', nbf: now() + 3600 })), 'token_not_yet_valid')
  })

  test('a token without exp is rejected as missing_exp', async () => {
    assertRejected(await send(await app.provider.sign({ preferred_username: 'alice' }, { noExp: true })), 'missing_exp')
  })

  test('a token with a non-numeric exp is rejected', async () => {
    assertRejected(await send(await app.provider.sign({ preferred_username: 'alice', exp: 'tomorrow' })), 'invalid_claims')
  })

  test('a token whose exp is too large to be finite (1e400 parses to Infinity) is rejected as invalid_claims', async () => {
    assertRejected(await send(await app.provider.signRaw('{"preferred_username":"mallory","exp":1e400}')), 'invalid_claims')
  })

  test('a valid token with base64 padding added to its signature is rejected as malformed_token', async () => {
    const token = await app.provider.sign({ preferred_username: 'alice' })
    assert.equal((await send(token)).status, 200)
    assertRejected(await send(`${token}==`), 'malformed_token')
  })

  test('a token naming an unknown kid is rejected as unknown_key', async () => {
    assertRejected(await send(await app.provider.sign({ preferred_username: 'alice' }, { kid: 'no-such-key' })), 'unknown_key')
  })

  test('a token with two segments is rejected as malformed_token', async () => {
    assertRejected(await send(rawToken({ alg: 'RS256', kid: app.provider.kid }, { preferred_username: 'alice' })), 'malformed_token')
  })

  test('a token with four segments is rejected as malformed_token', async () => {
    assertRejected(await send(`${await app.provider.sign({ preferred_username: 'alice' })}.AAAA`), 'malformed_token')
  })

  test('a correctly signed token whose header is not JSON is rejected as malformed_token', async () => {
    assertRejected(await send(await app.provider.signRaw({ preferred_username: 'alice', exp: now() + 300 }, `{"alg":"RS256","kid":"${app.provider.kid}"`)), 'malformed_token')
  })

  test('a correctly signed token whose header is a JSON array is rejected as malformed_token', async () => {
    assertRejected(await send(await app.provider.signRaw({ preferred_username: 'alice', exp: now() + 300 }, '["RS256"]')), 'malformed_token')
  })

  test('the raw signer itself produces tokens the server accepts (so the cases above fail for their defect only)', async () => {
    assert.equal((await send(await app.provider.signRaw({ preferred_username: 'alice', exp: now() + 300 }))).status, 200)
  })

  test('a correctly signed token whose payload is not JSON is rejected as malformed_token', async () => {
    assertRejected(await send(await app.provider.signRaw('preferred_username=admin')), 'malformed_token')
  })

  test('a correctly signed token whose payload is a JSON array is rejected as malformed_token', async () => {
    assertRejected(await send(await app.provider.signRaw(['admin'])), 'malformed_token')
  })

  test('a token with an unknown critical header is rejected', async () => {
    assertRejected(await send(await app.provider.signRaw({ preferred_username: 'alice', exp: now() + 300 }, { alg: 'RS256', kid: app.provider.kid, crit: ['x-feast'], 'x-feast': 1 })), 'malformed_token')
  })

  test('a token longer than the 8 KiB default is rejected as token_too_long before any decoding', async () => {
    assertRejected(await send('a'.repeat(9 * 1024)), 'token_too_long')
  })

  test('with Node\'s default 16 KiB header limit, a 100 KiB token is refused by Node itself with 431', async () => {
    const response = await fetch(`${app.url}/whoami`, { headers: { authorization: `Bearer ${'A'.repeat(100 * 1024)}` } })
    assert.equal(response.status, 431)
  })
})

describe('bad Authorization headers', () => {
  const app = useOidcApp({ provider: { alg: 'PS256' }, fastify: { http: { maxHeaderSize: 256 * 1024 } } })
  let valid: string

  before(async () => { valid = await app.token({ preferred_username: 'alice' }) })

  test('a request without an Authorization header gets 401 missing_token with a challenge that names no error', async () => {
    const response = await app.call('/whoami')
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'missing_token')
    assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="feast"')
  })

  test('a non-Bearer scheme gets 401 missing_token with a challenge that names no error', async () => {
    const response = await app.call('/whoami', 'Basic YWxpY2U6c2VjcmV0')
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'missing_token')
    assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="feast"')
  })

  test('the scheme is case-insensitive: "bearer" and "BEARER" are accepted', async () => {
    assert.equal((await app.call('/whoami', `bearer ${valid}`)).status, 200)
    assert.equal((await app.call('/whoami', `BEARER ${valid}`)).status, 200)
  })

  test('two tokens after the scheme are rejected as malformed_header', async () => {
    assertRejected(await app.call('/whoami', `Bearer ${valid} ${valid}`), 'malformed_header')
  })

  test('a 100 KiB token is rejected as token_too_long, not decoded', async () => {
    assertRejected(await app.call('/whoami', `Bearer ${'A'.repeat(100 * 1024)}`), 'token_too_long')
  })

  test('two Authorization headers are rejected as malformed_header, even when both carry a valid token', async () => {
    const { status, body } = await rawRequest(app.url, { path: '/whoami', headers: ['Authorization', `Bearer ${valid}`, 'Authorization', `Bearer ${valid}`] })
    assert.equal(status, 401)
    assert.equal(JSON.parse(body).code, 'malformed_header')
  })

  test('a valid token in the access_token query parameter is not accepted: 401 missing_token', async () => {
    const response = await app.call(`/whoami?access_token=${valid}`)
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'missing_token')
  })

  test('a valid token in an access_token form body is not accepted: 401 missing_token', async () => {
    const response = await app.call('/echo', undefined, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `access_token=${valid}` })
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'missing_token')
  })

  test('two Authorization headers differing in case are also rejected', async () => {
    const { status } = await rawRequest(app.url, { path: '/whoami', headers: ['authorization', 'Basic YWxpY2U6c2VjcmV0', 'AUTHORIZATION', `Bearer ${valid}`] })
    assert.equal(status, 401)
  })
})

describe('audience and issuer', () => {
  const open = useOidcApp({ provider: { alg: 'EdDSA' } })
  let provider: TestProvider
  let strict: TestApp
  let audienceOnly: TestApp
  let issuerOnly: TestApp

  // More servers on the same provider, checking what the first does not: both claims, or one of them (spec 5.2.4: independent).
  before(async () => {
    provider = open.provider
    strict = await startApp({ auth: oidcAuth(provider, { audience: 'feast-api', issuer: provider.issuer }) })
    audienceOnly = await startApp({ auth: oidcAuth(provider, { audience: 'feast-api' }) })
    issuerOnly = await startApp({ auth: oidcAuth(provider, { issuer: provider.issuer }) })
  })
  after(async () => { await Promise.all([strict?.close(), audienceOnly?.close(), issuerOnly?.close()]) })

  test('without audience configured, any aud is accepted', async () => {
    const response = await open.call('/whoami', `Bearer ${await provider.issue({ preferred_username: 'alice' }, { audience: 'another-api' })}`)
    assert.equal(response.status, 200)
  })

  test('without issuer configured, a validly signed token with another iss is accepted', async () => {
    const response = await open.call('/whoami', `Bearer ${await provider.sign({ preferred_username: 'alice', iss: 'https://elsewhere.example' })}`)
    assert.equal(response.status, 200)
  })

  test('with audience and issuer configured, a token matching both is accepted', async () => {
    const response = await strict.call('/whoami', `Bearer ${await provider.issue({ preferred_username: 'alice' }, { audience: 'feast-api' })}`)
    assert.equal(response.status, 200)
  })

  test('a token for another audience is rejected as audience_mismatch', async () => {
    assertRejected(await strict.call('/whoami', `Bearer ${await provider.issue({ preferred_username: 'alice' }, { audience: 'another-api' })}`), 'audience_mismatch')
  })

  test('an aud list containing the configured audience is accepted', async () => {
    const response = await strict.call('/whoami', `Bearer ${await provider.sign({ preferred_username: 'alice', aud: ['other', 'feast-api'] })}`)
    assert.equal(response.status, 200)
  })

  test('a token without aud is rejected when audience is configured', async () => {
    assertRejected(await strict.call('/whoami', `Bearer ${await provider.sign({ preferred_username: 'alice', aud: undefined })}`), 'audience_mismatch')
  })

  test('a token from another issuer is rejected as issuer_mismatch', async () => {
    assertRejected(await strict.call('/whoami', `Bearer ${await provider.sign({ preferred_username: 'alice', iss: 'https://elsewhere.example' })}`), 'issuer_mismatch')
  })

  test('a token without iss is rejected as issuer_mismatch when issuer is configured', async () => {
    assertRejected(await strict.call('/whoami', `Bearer ${await provider.sign({ preferred_username: 'alice', aud: 'feast-api', iss: undefined })}`), 'issuer_mismatch')
  })

  test('an aud list without the configured audience is rejected as audience_mismatch', async () => {
    assertRejected(await strict.call('/whoami', `Bearer ${await provider.sign({ preferred_username: 'alice', aud: ['other', 'feast-api-2'] })}`), 'audience_mismatch')
  })

  test('with only audience configured, a token of that audience from another issuer is accepted', async () => {
    const response = await audienceOnly.call('/whoami', `Bearer ${await provider.sign({ preferred_username: 'alice', aud: 'feast-api', iss: 'https://elsewhere.example' })}`)
    assert.equal(response.status, 200)
  })

  test('with only audience configured, a token for another audience is still rejected as audience_mismatch', async () => {
    assertRejected(await audienceOnly.call('/whoami', `Bearer ${await provider.sign({ preferred_username: 'alice', aud: 'another-api' })}`), 'audience_mismatch')
  })

  test('with only issuer configured, a token of that issuer for another audience is accepted', async () => {
    const response = await issuerOnly.call('/whoami', `Bearer ${await provider.sign({ preferred_username: 'alice', aud: 'another-api' })}`)
    assert.equal(response.status, 200)
  })

  test('with only issuer configured, a token from another issuer is still rejected as issuer_mismatch', async () => {
    assertRejected(await issuerOnly.call('/whoami', `Bearer ${await provider.sign({ preferred_username: 'alice', iss: 'https://elsewhere.example' })}`), 'issuer_mismatch')
  })
})

describe('what the refusal of a malformed token carries', () => {
  let provider: TestProvider
  before(async () => { provider = await startOidcProvider() })
  after(async () => { await provider.close() })

  const refusal = async (token: string): Promise<AuthError> => {
    const manager = createOidcManager(loadAuthConfig({ auth: oidcAuth(provider) }).auth as OidcServerConfig, { logger: silentLogger })
    try {
      await manager.authenticate(token)
    } catch (error) {
      assert.ok(error instanceof AuthError, String(error))
      return error
    } finally {
      await manager.close()
    }
    assert.fail('expected the token to be refused')
  }

  // jose's own error can quote what it decoded; a refusal is answered and may be logged with its cause.
  for (const [shape, header] of [
    ['whose header is a JSON string', '"do-not-print-me"'],
    ['whose header names no alg', '{"kid":"do-not-print-me"}'],
    ['whose header has a b64 that is not a boolean', '{"alg":"RS256","b64":"do-not-print-me","crit":["b64"]}']
  ] as const) {
    test(`a correctly signed token ${shape} is refused as malformed_token with no cause and nothing of the header`, async () => {
      const error = await refusal(await provider.signRaw({ preferred_username: 'alice', exp: now() + 300 }, header))
      assert.equal(error.code, 'malformed_token')
      assert.equal(error.cause, undefined)
      assert.doesNotMatch(inspect(error, { depth: 10 }), /do-not-print-me/)
    })
  }
})
