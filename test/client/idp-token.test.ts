import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { decodeJwt } from 'jose'
import { TokenSourceError } from '../../src/client/errors.ts'
import { createTokenProvider, type TokenProvider } from '../../src/client/token-provider.ts'
import { loadClientAuthConfig } from '../../src/client/validate.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { startTokenEndpointStub, type StubReply, type TokenEndpointStub } from '../helpers/token-endpoint-stub.ts'
import { rejectionOf } from '../helpers/errors.ts'
import { namedPipe } from '../helpers/named-pipe.ts'

const providers: TokenProvider[] = []
function clientFor (auth: Record<string, unknown>, timeoutMs?: number): TokenProvider {
  const provider = createTokenProvider(loadClientAuthConfig({ auth: { type: 'oidc', ...auth } }), { env: {}, serviceAccountTokenPath: '/nonexistent/token', timeoutMs })
  providers.push(provider)
  return provider
}
after(() => { for (const provider of providers) provider.close() })
const dir = mkdtempSync(join(tmpdir(), 'feast-authz-idp-token-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

const rejection = async (promise: Promise<unknown>): Promise<TokenSourceError> => await rejectionOf(promise, TokenSourceError)

describe('client_secret flow against a real OpenID provider', () => {
  let idp: TestProvider
  let credentials: Record<string, unknown>

  before(async () => {
    // The provider is started here, not by the OIDC-app fixture: the client library, no server.
    idp = await startOidcProvider({ users: { ann: { password: 'ann-password', claims: { preferred_username: 'ann' } } } })
    credentials = { auth_discovery_url: idp.discoveryUrl, client_id: idp.clientId, client_secret: idp.clientSecret }
  })
  after(async () => { await idp?.close() })

  it('obtains a token with the client-credentials grant', async () => {
    const token = await clientFor(credentials).getToken()
    assert.equal(decodeJwt(token ?? '').client_id, idp.clientId)
  })

  it('obtains a token with the password grant when username and password are set', async () => {
    const token = await clientFor({ ...credentials, username: 'ann', password: 'ann-password' }).getToken()
    assert.equal(decodeJwt(token ?? '').preferred_username, 'ann')
  })

  it('prefers the client_secret flow over SERVICE_OIDC_TOKEN, FEAST_OIDC_TOKEN and the service-account file', async () => {
    const provider = createTokenProvider(loadClientAuthConfig({ auth: { type: 'oidc', ...credentials } }), { env: { SERVICE_OIDC_TOKEN: 'env-a', FEAST_OIDC_TOKEN: 'env-b' }, serviceAccountTokenPath: 'fixtures/operator/featurestore-default.yaml' })
    providers.push(provider)
    assert.equal((await provider.resolve())?.source, 'client_secret')
  })

  it('reuses the token until it nears expiry: five calls, one discovery and one token request', async () => {
    idp.resetStats()
    const client = clientFor(credentials)
    const tokens = new Set<string | undefined>()
    for (let i = 0; i < 5; i++) tokens.add(await client.getToken())
    assert.equal(tokens.size, 1)
    assert.deepEqual({ discovery: idp.stats.discovery, token: idp.stats.token }, { discovery: 1, token: 1 })
  })

  it('does not reuse a token whose remaining life is inside the refresh margin', async () => {
    idp.resetStats()
    // The provider's tokens live 300 s; a 400 s margin makes every one "about to expire".
    const client = clientFor({ ...credentials, token_refresh_margin_seconds: 400 })
    await client.getToken()
    await client.getToken()
    assert.equal(idp.stats.token, 2)
  })

  it('shares one token request among concurrent callers', async () => {
    idp.resetStats()
    const client = clientFor(credentials)
    const tokens = await Promise.all(Array.from({ length: 8 }, async () => await client.getToken()))
    assert.equal(new Set(tokens).size, 1)
    assert.equal(idp.stats.token, 1)
  })

  it('fetches a fresh token after the cached one is invalidated', async () => {
    idp.resetStats()
    const client = clientFor(credentials)
    const first = await client.getToken()
    assert.equal(client.invalidate(first), true)
    const second = await client.getToken()
    assert.notEqual(second, first)
    assert.equal(idp.stats.token, 2)
    assert.equal(client.invalidate('some-other-token'), false)
  })

  it('reports a rejected client secret with the status and OAuth error code, never the secret', async () => {
    const error = await rejection(clientFor({ ...credentials, client_secret: 'wrong-secret-value' }).getToken())
    assert.equal(error.code, 'provider_rejected')
    assert.equal(error.status, 401)
    assert.equal(error.oauthError, 'invalid_client')
    assert.match(error.message, /token endpoint http:\/\/127\.0\.0\.1:\d+\/token answered HTTP 401 invalid_client/)
    assert.doesNotMatch(error.message, /wrong-secret-value/)
  })

  it('reports a wrong password as invalid_grant, without the password', async () => {
    const error = await rejection(clientFor({ ...credentials, username: 'ann', password: 'not-her-password' }).getToken())
    assert.equal(error.oauthError, 'invalid_grant')
    assert.equal(error.status, 400)
    assert.doesNotMatch(error.message, /not-her-password/)
  })

  it('sends a wrong password to the provider once for calls in quick succession, not once per call', async () => {
    idp.resetStats()
    const client = clientFor({ ...credentials, username: 'ann', password: 'not-her-password' })
    for (let i = 0; i < 5; i++) assert.equal((await rejection(client.getToken())).oauthError, 'invalid_grant')
    assert.equal(idp.stats.token, 1)
  })

  it('reports a token endpoint answering 500 as provider_unavailable', async () => {
    idp.fault('token', 'status500')
    try {
      const error = await rejection(clientFor(credentials).getToken())
      assert.equal(error.code, 'provider_unavailable')
      assert.equal(error.status, 500)
    } finally {
      idp.fault('token', null)
    }
  })

  it('gives up on a token endpoint that never answers after the timeout', async () => {
    idp.fault('token', 'hang')
    try {
      const error = await rejection(clientFor(credentials, 300).getToken())
      assert.equal(error.code, 'provider_unavailable')
      assert.match(error.message, /timed out/)
    } finally {
      idp.fault('token', null)
    }
  })
})

describe('client_secret flow over HTTPS', () => {
  let idp: TestProvider
  before(async () => { idp = await startOidcProvider({ https: true }) })
  after(async () => { await idp?.close() })
  const base = (): Record<string, unknown> => ({ auth_discovery_url: idp.discoveryUrl, client_id: idp.clientId, client_secret: idp.clientSecret })

  it('trusts the provider through ca_cert_path', async () => {
    assert.equal(decodeJwt(await clientFor({ ...base(), ca_cert_path: idp.caCertPath }).getToken() ?? '').client_id, idp.clientId)
  })

  it('refuses an untrusted certificate, pointing at ca_cert_path', async () => {
    const error = await rejection(clientFor(base()).getToken())
    assert.equal(error.code, 'provider_unavailable')
    assert.match(error.message, /ca_cert_path/)
  })

  it('reports a missing ca_cert_path file as a configuration error when the client is created', () => {
    assert.throws(() => clientFor({ ...base(), ca_cert_path: '/nonexistent/ca.pem' }), /ConfigError: auth\.ca_cert_path: cannot read the CA bundle: file not found/)
  })

  it('reports a ca_cert_path naming a named pipe as a configuration error, instead of waiting for a writer', () => {
    const pipe = namedPipe(dir, 'ca.pem')
    try {
      assert.throws(() => clientFor({ ...base(), ca_cert_path: pipe.path }), /ConfigError: auth\.ca_cert_path: cannot read the CA bundle: is a named pipe \(FIFO\), expected a file/)
    } finally {
      pipe.close()
    }
  })

  it('skips certificate checks with verify_ssl: false', async () => {
    assert.equal(typeof await clientFor({ ...base(), verify_ssl: false }).getToken(), 'string')
  })
})

describe('client_secret flow with unusual provider answers', () => {
  let stub: TokenEndpointStub
  before(async () => { stub = await startTokenEndpointStub([]) })
  after(async () => { await stub?.close() })
  const credentials = (): Record<string, unknown> => ({ auth_discovery_url: stub.discoveryUrl, client_id: 'app', client_secret: 'stub-secret-value' })

  it('sends client_id and client_secret in the form body with grant_type=client_credentials', async () => {
    stub.replies = [{ status: 200, body: { access_token: 'opaque', token_type: 'Bearer', expires_in: 60 } }]
    await clientFor(credentials()).getToken()
    const form = stub.forms.at(-1)
    assert.deepEqual(Object.fromEntries(form ?? []), { client_id: 'app', client_secret: 'stub-secret-value', grant_type: 'client_credentials' })
  })

  it('caches an opaque token for expires_in', async () => {
    stub.replies = [{ status: 200, body: { access_token: 'opaque-1', expires_in: 3600 } }, { status: 200, body: { access_token: 'opaque-2', expires_in: 3600 } }]
    const client = clientFor(credentials())
    assert.equal(await client.getToken(), 'opaque-1')
    assert.equal(await client.getToken(), 'opaque-1')
  })

  /** A provider on a clock the test moves; `tokensOver` gets a token at each offset (ms from the first call). */
  const tokensOver = async (offsetsMs: number[]): Promise<string[]> => {
    let time = 1_700_000_000_000
    const start = time
    const provider = createTokenProvider(loadClientAuthConfig({ auth: { type: 'oidc', ...credentials() } }), { env: {}, serviceAccountTokenPath: '/nonexistent/token', now: () => time })
    providers.push(provider)
    const tokens: string[] = []
    for (const offset of offsetsMs) {
      time = start + offset
      tokens.push(await provider.getToken() as string)
    }
    return tokens
  }
  const opaque = (expiresIn: unknown): StubReply[] => [1, 2, 3].map((n) => ({ status: 200, body: { access_token: `opaque-${n}`, expires_in: expiresIn } }))
  const DAY_MS = 24 * 3600 * 1000
  const MARGIN_MS = 30_000 // token_refresh_margin_seconds' default
  const FIVE_MINUTES_MS = 5 * 60 * 1000

  for (const [label, replies] of [
    ['1e306', opaque(1e306)],
    ['1e12', opaque(1e12)],
    ['1e400 (Infinity once parsed)', [1, 2].map((n) => ({ status: 200, body: undefined, rawBody: `{"access_token":"opaque-${n}","expires_in":1e400}` }))]
  ] as const) {
    it(`reuses an opaque token whose expires_in is ${label} for 24 hours, not longer`, async () => {
      stub.replies = [...replies]
      assert.deepEqual(await tokensOver([0, DAY_MS - MARGIN_MS - 1000, DAY_MS - MARGIN_MS + 1000]), ['opaque-1', 'opaque-1', 'opaque-2'])
    })
  }

  it('reads an expires_in sent as a string of digits ("3600", as some providers send it) as that many seconds', async () => {
    stub.replies = opaque('3600')
    assert.deepEqual(await tokensOver([0, 3600_000 - MARGIN_MS - 1000, 3600_000 - MARGIN_MS + 1000]), ['opaque-1', 'opaque-1', 'opaque-2'])
  })

  it('bounds an expires_in string of digits to 24 hours too', async () => {
    stub.replies = opaque('9'.repeat(400))
    assert.deepEqual(await tokensOver([0, DAY_MS - MARGIN_MS - 1000, DAY_MS - MARGIN_MS + 1000]), ['opaque-1', 'opaque-1', 'opaque-2'])
  })

  it('reuses an opaque token whose expires_in is not a number of seconds ("3600s") as one without expires_in: 5 minutes', async () => {
    stub.replies = opaque('3600s')
    assert.deepEqual(await tokensOver([0, FIVE_MINUTES_MS - MARGIN_MS - 1000, FIVE_MINUTES_MS - MARGIN_MS + 1000]), ['opaque-1', 'opaque-1', 'opaque-2'])
  })

  for (const expiresIn of [0, -3600]) {
    it(`does not reuse an opaque token whose expires_in is ${expiresIn}: it is already expired`, async () => {
      stub.replies = opaque(expiresIn)
      assert.deepEqual(await tokensOver([0, 1000]), ['opaque-1', 'opaque-2'])
    })
  }

  it('does not reuse an opaque token whose expires_in is -1e400 (-Infinity once parsed)', async () => {
    stub.replies = [1, 2].map((n) => ({ status: 200, body: undefined, rawBody: `{"access_token":"opaque-${n}","expires_in":-1e400}` }))
    assert.deepEqual(await tokensOver([0, 1000]), ['opaque-1', 'opaque-2'])
  })

  const jwt = (n: number, exp: number): string => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ exp, n })).toString('base64url')}.sig`

  it('refreshes a JWT at its exp even when expires_in says longer', async () => {
    const exp = (1_700_000_000_000 + 600_000) / 1000
    stub.replies = [1, 2].map((n) => ({ status: 200, body: { access_token: jwt(n, exp), expires_in: 1e306 } }))
    assert.deepEqual(await tokensOver([0, 600_000 - MARGIN_MS - 1000, 600_000 - MARGIN_MS + 1000]), [jwt(1, exp), jwt(1, exp), jwt(2, exp)])
  })

  it('reuses a JWT whose exp is 1e306 for 24 hours, not longer, and sends it as it came', async () => {
    stub.replies = [1, 2].map((n) => ({ status: 200, body: { access_token: jwt(n, 1e306) } }))
    assert.deepEqual(await tokensOver([0, DAY_MS - MARGIN_MS - 1000, DAY_MS - MARGIN_MS + 1000]), [jwt(1, 1e306), jwt(1, 1e306), jwt(2, 1e306)])
  })

  it('reuses an opaque token without expires_in for 5 minutes, not longer', async () => {
    stub.replies = [1, 2].map((n) => ({ status: 200, body: { access_token: `opaque-${n}` } }))
    assert.deepEqual(await tokensOver([0, FIVE_MINUTES_MS - MARGIN_MS - 1000, FIVE_MINUTES_MS - MARGIN_MS + 1000]), ['opaque-1', 'opaque-1', 'opaque-2'])
  })

  it('refuses a 200 answer without an access_token', async () => {
    stub.replies = [{ status: 200, body: { token_type: 'Bearer' } }]
    assert.equal((await rejection(clientFor(credentials()).getToken())).code, 'invalid_provider_response')
  })

  it('refuses a token type other than Bearer', async () => {
    stub.replies = [{ status: 200, body: { access_token: 'x', token_type: 'DPoP' } }]
    assert.match((await rejection(clientFor(credentials()).getToken())).message, /issued a "DPoP" token, expected Bearer/)
  })

  it('refuses a token_type that is no string, saying what it is, where it took it as absent', async () => {
    for (const type of [7, ['Bearer'], { type: 'Bearer' }, true]) {
      stub.replies = [{ status: 200, body: { access_token: 'x', token_type: type } }]
      const error = await rejection(clientFor(credentials()).getToken())
      assert.equal(error.code, 'invalid_provider_response')
      assert.match(error.message, /answered a token_type that is an? (number|list|mapping|boolean), not a string \(expected "Bearer"\)$/, JSON.stringify(type))
    }
  })

  it('takes a token_type that is absent or null, as providers that omit it issue bearer tokens', async () => {
    stub.replies = [{ status: 200, body: { access_token: 'opaque-null-type', token_type: null } }]
    assert.equal(await clientFor(credentials()).getToken(), 'opaque-null-type')
    stub.replies = [{ status: 200, body: { access_token: 'opaque-no-type' } }]
    assert.equal(await clientFor(credentials()).getToken(), 'opaque-no-type')
  })

  it('stops reading a token endpoint answer past 256 KiB, as provider_unavailable', async () => {
    stub.replies = [{ status: 200, body: { access_token: 'x'.repeat(300 * 1024), token_type: 'Bearer' } }]
    const error = await rejection(clientFor(credentials()).getToken())
    assert.equal(error.code, 'provider_unavailable')
    assert.match(error.message, /\/token answered more than 262144 bytes$/)
  })

  it('refuses an access_token with a line break inside, naming the token endpoint, never showing the token', async () => {
    stub.replies = [{ status: 200, body: { access_token: 'eyJpart\r\nSECRET-PART', token_type: 'Bearer', expires_in: 60 } }]
    const error = await rejection(clientFor(credentials()).getToken())
    assert.equal(error.code, 'malformed_token')
    assert.match(error.message, /^the token from the token endpoint cannot be sent in an Authorization header: its character 8 of 20 is a line break \(U\+000D\)/)
    assert.ok(!error.message.includes('SECRET'), error.message)
  })

  it('removes the secret from an error description that echoes it form-encoded or percent-encoded', async () => {
    const secret = 'p@ss word/+&='
    const form = new URLSearchParams({ s: secret }).toString().slice(2)
    stub.replies = [{ status: 401, body: { error: `invalid_client ${encodeURIComponent(secret)}`, error_description: `got client_secret=${form}` } }]
    const error = await rejection(clientFor({ ...credentials(), client_secret: secret }).getToken())
    assert.match(error.message, /answered HTTP 401 invalid_client \[redacted\]: got client_secret=\[redacted\]$/)
  })

  it('cuts an OAuth error code longer than any RFC 6749 code to 100 characters', async () => {
    stub.replies = [{ status: 400, body: { error: 'x'.repeat(5000) } }]
    const error = await rejection(clientFor(credentials()).getToken())
    assert.equal(error.oauthError, 'x'.repeat(100))
    assert.ok(error.message.length < 300, error.message)
  })

  /** A provider on a clock the test sets (`clock.time`), for the pauses after failed requests. */
  const clockedClient = (failurePauseMs?: number): { client: TokenProvider, clock: { time: number } } => {
    const clock = { time: 1_700_000_000_000 }
    const client = createTokenProvider(loadClientAuthConfig({ auth: { type: 'oidc', ...credentials() } }), { env: {}, serviceAccountTokenPath: '/nonexistent/token', now: () => clock.time, failurePauseMs })
    providers.push(client)
    return { client, clock }
  }
  /** The offsets (ms) at which the provider was asked, for one failing call every 250 ms over `spanMs`. */
  const askedAt = async (client: TokenProvider, clock: { time: number }, spanMs: number): Promise<number[]> => {
    const sentAt: number[] = []
    const begin = clock.time
    for (let offset = 0; offset <= spanMs; offset += 250) {
      clock.time = begin + offset
      const before = stub.forms.length
      assert.equal((await rejection(client.getToken())).code, 'provider_unavailable')
      if (stub.forms.length > before) sentAt.push(offset)
    }
    return sentAt
  }
  const REFUSED: StubReply = { status: 401, body: { error: 'invalid_client' } }

  it('does not ask the provider again within a second of a refused token request: callers get the same refusal', async () => {
    stub.replies = [REFUSED]
    const { client, clock } = clockedClient()
    const first = await rejection(client.getToken())
    const sent = stub.forms.length
    clock.time += 999
    const again = await rejection(client.getToken())
    assert.equal(stub.forms.length, sent)
    assert.deepEqual([again.code, again.status, again.oauthError], [first.code, first.status, first.oauthError])
    assert.equal(again.cause, first)
  })

  it('says in a paused refusal that it is the last request\'s failure and when the provider is asked again, never the secret', async () => {
    stub.replies = [{ status: 400, body: { error: 'invalid_request', error_description: 'bad client_secret stub-secret-value' } }]
    const { client, clock } = clockedClient()
    await rejection(client.getToken())
    clock.time += 200
    const again = await rejection(client.getToken())
    assert.match(again.message, /answered HTTP 400 invalid_request: bad client_secret \[redacted\] \(the last token request's failure; the provider is asked again in 1 s\)$/)
    assert.doesNotMatch(again.message, /stub-secret-value/)
  })

  it('doubles the pause after each failed token request in a row, up to 30 s', async () => {
    stub.replies = [{ status: 503, body: {} }]
    const { client, clock } = clockedClient()
    const start = stub.forms.length
    // One call every 250 ms for 100 s: the provider is asked only when the pause is over.
    const sentAt = await askedAt(client, clock, 100_000)
    assert.deepEqual(sentAt, [0, 1000, 3000, 7000, 15_000, 31_000, 61_000, 91_000])
    assert.equal(stub.forms.length - start, sentAt.length)
  })

  it('reports a token endpoint answering a redirect as invalid_provider_response, not as refused credentials, and follows none', async () => {
    stub.replies = [{ status: 307, body: {}, headers: { location: 'https://elsewhere.example/token' } }]
    const before = stub.forms.length
    const error = await rejection(clientFor(credentials()).getToken())
    assert.equal(error.code, 'invalid_provider_response')
    assert.equal(error.status, 307)
    assert.match(error.message, /answered HTTP 307, a redirect, which is not followed/)
    assert.equal(stub.forms.length, before + 1)
  })

  it('reports a token endpoint answering 429 as provider_unavailable, the provider limiting its clients, not refusing the credentials', async () => {
    stub.replies = [{ status: 429, body: { error: 'too_many_requests' } }]
    const error = await rejection(clientFor(credentials()).getToken())
    assert.equal(error.code, 'provider_unavailable')
    assert.equal(error.status, 429)
    assert.match(error.message, /answered HTTP 429 too_many_requests$/)
  })

  it('waits what a 429\'s Retry-After asks before asking again, when it is longer than the pause', async () => {
    stub.replies = [{ status: 429, body: {}, headers: { 'retry-after': '20' } }]
    const { client, clock } = clockedClient()
    assert.deepEqual(await askedAt(client, clock, 30_000), [0, 20_000])
    assert.match((await rejection(client.getToken())).message, /answered HTTP 429 \(it asks to wait 20 s\) \(the last token request's failure; the provider is asked again in 20 s\)$/)
  })

  it('follows a Retry-After of a 503 too, as an HTTP date', async () => {
    const { client, clock } = clockedClient()
    stub.replies = [{ status: 503, body: {}, headers: { 'retry-after': new Date(clock.time + 12_000).toUTCString() } }]
    assert.deepEqual(await askedAt(client, clock, 14_000), [0, 12_000])
  })

  it('follows a Retry-After for 5 minutes at most', async () => {
    stub.replies = [{ status: 429, body: {}, headers: { 'retry-after': '86400' } }]
    const { client, clock } = clockedClient()
    assert.deepEqual(await askedAt(client, clock, 301_000), [0, 300_000])
  })

  it('does not follow a Retry-After on a refusal of the credentials (a 401), which pauses as any failure', async () => {
    stub.replies = [{ status: 401, body: { error: 'invalid_client' }, headers: { 'retry-after': '60' } }]
    const { client, clock } = clockedClient()
    await rejection(client.getToken())
    const sent = stub.forms.length
    clock.time += 1000
    assert.equal((await rejection(client.getToken())).code, 'provider_rejected')
    assert.equal(stub.forms.length, sent + 1)
  })

  it('starts the pauses at failurePauseMs when it is given, doubling up to the same 30 s', async () => {
    stub.replies = [{ status: 503, body: {} }]
    const { client, clock } = clockedClient(5000)
    assert.deepEqual(await askedAt(client, clock, 100_000), [0, 5000, 15_000, 35_000, 65_000, 95_000])
  })

  it('asks the provider at every call with failurePauseMs 0', async () => {
    stub.replies = [{ status: 503, body: {} }]
    const { client, clock } = clockedClient(0)
    assert.deepEqual(await askedAt(client, clock, 1000), [0, 250, 500, 750, 1000])
  })

  it('forgets the failures once a token comes: the next failure pauses 1 s again', async () => {
    stub.replies = [REFUSED, REFUSED, { status: 200, body: { access_token: 'opaque-ok', expires_in: 0 } }, REFUSED]
    const { client, clock } = clockedClient()
    await rejection(client.getToken())
    clock.time += 1000
    await rejection(client.getToken()) // the second failure in a row: 2 s
    clock.time += 2000
    assert.equal(await client.getToken(), 'opaque-ok') // expires_in 0: not reused
    await rejection(client.getToken())
    const sent = stub.forms.length
    clock.time += 1000
    await rejection(client.getToken())
    assert.equal(stub.forms.length, sent + 1)
  })

  it('asks the provider again when the clock is set back after a failure, instead of pausing until it catches up', async () => {
    stub.replies = [REFUSED]
    const { client, clock } = clockedClient()
    await rejection(client.getToken())
    const sent = stub.forms.length
    // NTP stepping the clock back an hour (a VM resumed, say): the pause was measured on it.
    clock.time -= 3_600_000
    await rejection(client.getToken())
    assert.equal(stub.forms.length, sent + 1)
  })

  it('asks the provider again after the pause when it issued a token that cannot go in a header, instead of keeping that token until its expiry', async () => {
    stub.replies = [
      { status: 200, body: { access_token: 'eyJpart\r\nrest', token_type: 'Bearer', expires_in: 3600 } },
      { status: 200, body: { access_token: 'opaque-good', token_type: 'Bearer', expires_in: 3600 } }
    ]
    const { client, clock } = clockedClient()
    assert.equal((await rejection(client.getToken())).code, 'malformed_token')
    const sent = stub.forms.length
    clock.time += 200
    assert.equal((await rejection(client.getToken())).code, 'malformed_token')
    assert.equal(stub.forms.length, sent, 'within the pause the provider is not asked')
    clock.time += 1000
    assert.equal(await client.getToken(), 'opaque-good')
  })

  it('removes the secret from an error description that echoes it', async () => {
    stub.replies = [{ status: 400, body: { error: 'invalid_request', error_description: 'bad client_secret stub-secret-value' } }]
    const error = await rejection(clientFor(credentials()).getToken())
    assert.equal(error.oauthError, 'invalid_request')
    assert.match(error.message, /bad client_secret \[redacted\]/)
    assert.doesNotMatch(error.message, /stub-secret-value/)
  })
})
