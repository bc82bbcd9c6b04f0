import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createAuthFetch, type FetchFunction } from '../../src/client/auth-fetch.ts'
import { TokenSourceError } from '../../src/client/errors.ts'
import { createTokenProvider, type TokenProvider } from '../../src/client/token-provider.ts'
import { loadClientAuthConfig } from '../../src/client/validate.ts'
import { eventually } from '../helpers/eventually.ts'
import { startFaultProxy } from '../helpers/fault-proxy.ts'
import { startScriptedServer } from '../helpers/scripted-server.ts'
import { startTokenEndpointStub } from '../helpers/token-endpoint-stub.ts'
import { scriptedProvider } from '../helpers/scripted-token-provider.ts'

interface Sent { url: string, authorization: string | null, init: RequestInit | undefined, body: string | undefined }

/** A base fetch that records what it was asked to send and answers the given statuses in turn. */
function recordingFetch (statuses: number[]): { fetch: FetchFunction, sent: Sent[] } {
  const sent: Sent[] = []
  const fetch: FetchFunction = async (input, init) => {
    const request = new Request(input, init)
    sent.push({ url: request.url, authorization: request.headers.get('authorization'), init, body: request.body === null ? undefined : await request.text() })
    return new Response('{}', { status: statuses[Math.min(sent.length - 1, statuses.length - 1)] ?? 200 })
  }
  return { fetch, sent }
}

describe('createAuthFetch', () => {
  it('sends Authorization: Bearer with the token, replacing one the caller set, keeping other headers', async () => {
    const { fetch, sent } = recordingFetch([200])
    const authFetch = createAuthFetch(scriptedProvider(['t1']), { fetch })
    await authFetch('http://127.0.0.1:1/x', { headers: { authorization: 'Basic abc', 'x-trace': '7' } })
    assert.equal(sent[0]?.authorization, 'Bearer t1')
    assert.equal(new Headers(sent[0]?.init?.headers).get('x-trace'), '7')
  })

  it("keeps a Request's own headers when no init is given", async () => {
    const { fetch, sent } = recordingFetch([200])
    await createAuthFetch(scriptedProvider(['t1']), { fetch })(new Request('http://127.0.0.1:1/x', { headers: { 'x-trace': '9' } }))
    assert.equal(new Headers(sent[0]?.init?.headers).get('x-trace'), '9')
    assert.equal(sent[0]?.authorization, 'Bearer t1')
  })

  it('passes the rest of init through untouched, including an undici dispatcher', async () => {
    const { fetch, sent } = recordingFetch([200])
    const dispatcher = { dispatch: () => true }
    await createAuthFetch(scriptedProvider(['t1']), { fetch })('http://127.0.0.1:1/x', { method: 'POST', body: 'b', dispatcher } as unknown as RequestInit)
    assert.equal((sent[0]?.init as { dispatcher?: unknown }).dispatcher, dispatcher)
    assert.equal(sent[0]?.init?.method, 'POST')
  })

  it('on a 401, drops the token and sends the request once more with a fresh one', async () => {
    const { fetch, sent } = recordingFetch([401, 200])
    const provider = scriptedProvider(['stale', 'fresh'])
    const response = await createAuthFetch(provider, { fetch })('http://127.0.0.1:1/x', { method: 'POST', body: 'payload' })
    assert.equal(response.status, 200)
    assert.deepEqual(sent.map((s) => [s.authorization, s.body]), [['Bearer stale', 'payload'], ['Bearer fresh', 'payload']])
    assert.equal(provider.invalidated, 1)
  })

  it('retries only once: a second 401 is returned to the caller', async () => {
    const { fetch, sent } = recordingFetch([401])
    const response = await createAuthFetch(scriptedProvider(['a', 'b', 'c']), { fetch })('http://127.0.0.1:1/x')
    assert.equal(response.status, 401)
    assert.equal(sent.length, 2)
  })

  it('does not retry when no different token is available', async () => {
    const { fetch, sent } = recordingFetch([401])
    const response = await createAuthFetch(scriptedProvider(['only']), { fetch })('http://127.0.0.1:1/x')
    assert.equal(response.status, 401)
    assert.equal(sent.length, 1)
  })

  it('replays the body of a Request object on the retry', async () => {
    const { fetch, sent } = recordingFetch([401, 200])
    await createAuthFetch(scriptedProvider(['stale', 'fresh']), { fetch })(new Request('http://127.0.0.1:1/x', { method: 'POST', body: 'from-request' }))
    assert.deepEqual(sent.map((s) => s.body), ['from-request', 'from-request'])
  })

  it('does not retry a one-shot stream body', async () => {
    const { fetch, sent } = recordingFetch([401, 200])
    const body = new ReadableStream({ start (controller) { controller.enqueue(new TextEncoder().encode('once')); controller.close() } })
    const response = await createAuthFetch(scriptedProvider(['stale', 'fresh']), { fetch })('http://127.0.0.1:1/x', { method: 'POST', body, duplex: 'half' } as RequestInit)
    assert.equal(response.status, 401)
    assert.equal(sent.length, 1)
  })

  it('drops the token a 401 refused even when the one-shot body keeps the request from being sent again, so the next call has a fresh one', async () => {
    const { fetch, sent } = recordingFetch([401, 200])
    const provider = scriptedProvider(['stale', 'fresh'])
    const authFetch = createAuthFetch(provider, { fetch })
    const body = new ReadableStream({ start (controller) { controller.enqueue(new TextEncoder().encode('once')); controller.close() } })
    assert.equal((await authFetch('http://127.0.0.1:1/x', { method: 'POST', body, duplex: 'half' } as RequestInit)).status, 401)
    assert.equal((await authFetch('http://127.0.0.1:1/y')).status, 200)
    assert.deepEqual(sent.map((s) => s.authorization), ['Bearer stale', 'Bearer fresh'])
  })

  it('sends requests unchanged under no_auth', async () => {
    const { fetch, sent } = recordingFetch([200])
    await createAuthFetch({ type: 'no_auth' }, { fetch })('http://127.0.0.1:1/x')
    assert.equal(sent[0]?.authorization, null)
  })

  it('keeps the token from origins outside allowedOrigins', async () => {
    const { fetch, sent } = recordingFetch([200])
    const authFetch = createAuthFetch(scriptedProvider(['t1']), { fetch, allowedOrigins: ['http://feast.internal:6566'] })
    await authFetch('http://elsewhere.example/x')
    await authFetch('http://feast.internal:6566/get-online-features')
    assert.deepEqual(sent.map((s) => s.authorization), [null, 'Bearer t1'])
  })

  it('rejects with the token source error when no token can be had, sending nothing', async () => {
    const { fetch, sent } = recordingFetch([200])
    const authFetch = createAuthFetch({ type: 'oidc', token_env_var: 'UNSET_VAR', verify_ssl: true, jwks_cache_lifespan_seconds: 300, jwks_request_timeout_seconds: 10, token_refresh_margin_seconds: 30 }, { fetch, env: {} })
    await assert.rejects(authFetch('http://127.0.0.1:1/x'), TokenSourceError)
    assert.equal(sent.length, 0)
  })
})

describe('createAuthFetch with a token endpoint that gives no expires_in', () => {
  it('reuses the token and, once a server refuses it, fetches a fresh one and sends the request again', async () => {
    const idp = await startTokenEndpointStub([1, 2].map((n) => ({ status: 200, body: { access_token: `opaque-${n}`, token_type: 'Bearer' } })))
    const server = await startScriptedServer([{ status: 200 }, { status: 401 }, { status: 200 }])
    const authFetch = createAuthFetch(loadClientAuthConfig({ auth: { type: 'oidc', auth_discovery_url: idp.discoveryUrl, client_id: 'app', client_secret: 'stub-secret' } }), { env: {} })
    try {
      assert.deepEqual([(await authFetch(`${server.url}/a`)).status, (await authFetch(`${server.url}/b`)).status], [200, 200])
      assert.deepEqual(server.received.map((request) => request.authorization), ['Bearer opaque-1', 'Bearer opaque-1', 'Bearer opaque-2'])
      assert.equal(idp.forms.length, 2)
    } finally {
      authFetch.provider.close()
      await server.close()
      await idp.close()
    }
  })
})

describe('createAuthFetch and the caller\'s AbortSignal while the token is fetched', () => {
  it('rejects with the abort reason as soon as the caller aborts, without waiting out the token request, and sends nothing', async () => {
    const idp = await startTokenEndpointStub([{ status: 200, body: { access_token: 'late', token_type: 'Bearer' } }])
    const proxy = await startFaultProxy(new URL(idp.discoveryUrl).origin)
    proxy.set('hang')
    const { fetch, sent } = recordingFetch([200])
    const config = loadClientAuthConfig({ auth: { type: 'oidc', auth_discovery_url: `${proxy.url}/.well-known/openid-configuration`, client_id: 'app', client_secret: 'stub-secret' } })
    const authFetch = createAuthFetch(config, { env: {}, fetch, timeoutMs: 5000 })
    const controller = new AbortController()
    const reason = new Error('the caller gave up')
    try {
      const pending = authFetch('http://127.0.0.1:1/x', { signal: controller.signal })
      await eventually(() => proxy.count('/.well-known') === 1, 'the discovery request')
      controller.abort(reason)
      const started = Date.now()
      await assert.rejects(pending, (error) => error === reason)
      assert.ok(Date.now() - started < 1000, `settled ${Date.now() - started} ms after the abort`)
      assert.equal(sent.length, 0)
    } finally {
      authFetch.provider.close()
      await proxy.close()
      await idp.close()
    }
  })
})

describe('createAuthFetch and redirects', () => {
  // Node's fetch drops Authorization when a redirect changes the origin (Fetch standard, HTTP-redirect
  // fetch step 13); the wrapped fetch follows redirects itself, so the token's safety rests on that.
  for (const status of [302, 307]) {
    it(`sends no token to the other origin a ${status} leads to`, async () => {
      const other = await startScriptedServer([{ status: 200 }])
      const first = await startScriptedServer([{ status, headers: { location: `${other.url}/landed` } }])
      const authFetch = createAuthFetch(scriptedProvider(['t1']))
      try {
        assert.equal((await authFetch(`${first.url}/start`)).status, 200)
        assert.deepEqual([first.received[0]?.authorization, other.received.length, other.received[0]?.authorization], ['Bearer t1', 1, undefined])
      } finally {
        await first.close()
        await other.close()
      }
    })
  }
})

describe('createAuthFetch and tokens that cannot go in a header', () => {
  /**
   * Asserts that `authFetch` refuses its token before anything reaches a real server, naming the
   * source (`from`), never the token. fetch would refuse such a header in a TypeError whose message
   * is the whole value, token included.
   */
  const refusesSendingNothing = async (authFetch: FetchFunction, from: RegExp): Promise<void> => {
    const server = await startScriptedServer([{ status: 200 }])
    try {
      await assert.rejects(authFetch(`${server.url}/x`), (error: unknown) => {
        assert.ok(error instanceof TokenSourceError)
        assert.equal(error.code, 'malformed_token')
        assert.match(error.message, from)
        assert.match(error.message, /character 8 of 19 is a line break \(U\+000A\)/)
        assert.ok(!error.message.includes('SECRET'), error.message)
        return true
      })
      assert.equal(server.received.length, 0)
    } finally {
      await server.close()
    }
  }
  const ourProvider = (token: string): TokenProvider => createTokenProvider(loadClientAuthConfig({ auth: { type: 'oidc', token } }), { env: {} })

  it('refuses a configured token with a line break inside, naming where it came from, and sends nothing', async () => {
    const authFetch = createAuthFetch(loadClientAuthConfig({ auth: { type: 'oidc', token: 'eyJpart\nSECRET-PART' } }), { env: {} })
    await refusesSendingNothing(authFetch, /^the token from auth\.token cannot be sent in an Authorization header/)
  })

  it('refuses such a token from a provider createTokenProvider made, given as the provider, naming its source', async () => {
    await refusesSendingNothing(createAuthFetch(ourProvider('eyJpart\nSECRET-PART')), /^the token from auth\.token cannot be sent in an Authorization header/)
  })

  it('refuses such a token from a provider given in code too', async () => {
    await refusesSendingNothing(createAuthFetch(scriptedProvider(['eyJpart\nSECRET-PART'])), /^the token from the token provider cannot be sent/)
  })

  it('refuses such a token from a provider given in code that copies one of ours but has its own getToken', async () => {
    const copy = { ...ourProvider('a-fine-token'), getToken: async () => 'eyJpart\nSECRET-PART' }
    await refusesSendingNothing(createAuthFetch(copy), /^the token from the token provider cannot be sent/)
  })

  it('keeps the methods of a provider createTokenProvider made from being replaced, since createAuthFetch trusts them to check', () => {
    assert.throws(() => { Object.assign(ourProvider('a-fine-token'), { getToken: async () => 'eyJpart\nSECRET-PART' }) }, TypeError)
  })
})

describe('createAuthFetch options', () => {
  it('refuses allowed origins that are not URLs, naming the item, instead of a bare TypeError', () => {
    assert.throws(() => createAuthFetch({ type: 'no_auth' }, { allowedOrigins: ['https://feast.example.com', 'feast.example.com'] }), {
      name: 'OptionError',
      option: 'allowedOrigins[1]',
      message: 'feast-authz: createAuthFetch: allowedOrigins[1] must be a URL (https://host[:port]), got "feast.example.com"'
    })
  })

  it('refuses a single origin given as a string, which would otherwise be read as a list of characters', () => {
    assert.throws(() => createAuthFetch({ type: 'no_auth' }, { allowedOrigins: 'https://feast.example.com' as never }), { name: 'OptionError', option: 'allowedOrigins' })
  })

  it('refuses a fetch that is not a function, and the token provider\'s own options', () => {
    assert.throws(() => createAuthFetch({ type: 'no_auth' }, { fetch: 'fetch' as never }), { name: 'OptionError', option: 'fetch' })
    assert.throws(() => createAuthFetch({ type: 'no_auth' }, { timeoutMs: -1 }), { name: 'OptionError', option: 'timeoutMs' })
  })
})
