import assert from 'node:assert/strict'
import { setTimeout as delay } from 'node:timers/promises'
import { inspect } from 'node:util'
import { afterEach, describe, it } from 'node:test'
import { createAuthFetch, type AuthFetch, type AuthFetchOptions } from '../../src/client/auth-fetch.ts'
import { TokenSourceError } from '../../src/client/errors.ts'
import type { TokenProvider } from '../../src/client/token-provider.ts'
import { eventually } from '../helpers/eventually.ts'
import { closedPort } from '../helpers/listen.ts'
import { startFaultProxy } from '../helpers/fault-proxy.ts'
import { startOidcProvider } from '../helpers/oidc-provider.ts'
import { startProtectedApp } from '../helpers/protected-app.ts'
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from '../helpers/scripted-server.ts'
import { scriptedProvider } from '../helpers/scripted-token-provider.ts'

const servers: ScriptedServer[] = []
afterEach(async () => { await Promise.all(servers.splice(0).map(async (server) => { await server.close() })) })

async function serve (...replies: ScriptedReply[]): Promise<ScriptedServer> {
  const server = await startScriptedServer(replies)
  servers.push(server)
  return server
}

/** An authFetch whose waits are only recorded, in `slept`, so that no test sleeps for seconds. */
function recordedWaits (options: AuthFetchOptions = {}, provider: TokenProvider = scriptedProvider(['t1'])): { authFetch: AuthFetch, slept: number[] } {
  const slept: number[] = []
  const authFetch = createAuthFetch(provider, { sleep: async (ms) => { slept.push(ms) }, ...options })
  return { authFetch, slept }
}

describe('createAuthFetch retries transient failures', () => {
  for (const status of [429, 500, 502, 503, 504]) {
    it(`sends the request again after a ${status} and returns the answer that follows`, async () => {
      const server = await serve({ status }, { status: 200 })
      const response = await recordedWaits().authFetch(`${server.url}/x`)
      assert.equal(response.status, 200)
      assert.equal(server.received.length, 2)
    })
  }

  for (const status of [400, 404, 501, 505]) {
    it(`returns a ${status} at once, since sending it again would get the same answer`, async () => {
      const server = await serve({ status }, { status: 200 })
      const response = await recordedWaits().authFetch(`${server.url}/x`)
      assert.equal(response.status, status)
      assert.equal(server.received.length, 1)
    })
  }

  it('returns the last response after 3 retries, 4 attempts in all, by default', async () => {
    const server = await serve({ status: 503 })
    const response = await recordedWaits().authFetch(`${server.url}/x`)
    assert.equal(response.status, 503)
    assert.equal(await response.text(), 'status 503')
    assert.equal(server.received.length, 4)
  })

  it('makes as many retries as the retries option says', async () => {
    const server = await serve({ status: 503 })
    await recordedWaits({ retries: 1 }).authFetch(`${server.url}/x`)
    assert.equal(server.received.length, 2)
  })

  it('sends the request once with retries: 0', async () => {
    const server = await serve({ status: 503 }, { status: 200 })
    const response = await recordedWaits({ retries: 0 }).authFetch(`${server.url}/x`)
    assert.equal(response.status, 503)
    assert.equal(server.received.length, 1)
  })

  it("retries at once, then after 1 s and 2 s: Feast's backoff factor of 0.5 s", async () => {
    const server = await serve({ status: 503 })
    const { authFetch, slept } = recordedWaits()
    await authFetch(`${server.url}/x`)
    assert.deepEqual(slept, [0, 1000, 2000])
  })

  it('doubles retryBackoffMs from the second retry on', async () => {
    const server = await serve({ status: 503 })
    const { authFetch, slept } = recordedWaits({ retryBackoffMs: 10, retries: 4 })
    await authFetch(`${server.url}/x`)
    assert.deepEqual(slept, [0, 20, 40, 80])
  })

  it('never backs off longer than 120 s', async () => {
    const server = await serve({ status: 503 })
    const { authFetch, slept } = recordedWaits({ retryBackoffMs: 40_000, retries: 4 })
    await authFetch(`${server.url}/x`)
    assert.deepEqual(slept, [0, 80_000, 120_000, 120_000])
  })

  it('waits the number of seconds a Retry-After asks for instead of the backoff', async () => {
    const server = await serve({ status: 503, headers: { 'retry-after': '7' } }, { status: 200 })
    const { authFetch, slept } = recordedWaits()
    assert.equal((await authFetch(`${server.url}/x`)).status, 200)
    assert.deepEqual(slept, [7000])
  })

  it('waits until the HTTP date a Retry-After names', async () => {
    const now = Date.parse('2026-08-21T10:00:00Z')
    const server = await serve({ status: 429, headers: { 'retry-after': new Date(now + 4000).toUTCString() } }, { status: 200 })
    const { authFetch, slept } = recordedWaits({ now: () => now })
    await authFetch(`${server.url}/x`)
    assert.deepEqual(slept, [4000])
  })

  it('honours a Retry-After on a 500 too, as urllib3 honours it on every retried answer', async () => {
    const server = await serve({ status: 500, headers: { 'retry-after': '3' } }, { status: 200 })
    const { authFetch, slept } = recordedWaits()
    await authFetch(`${server.url}/x`)
    assert.deepEqual(slept, [3000])
  })

  it('backs off as usual when Retry-After is neither seconds nor a date', async () => {
    const server = await serve({ status: 503, headers: { 'retry-after': 'soon' } }, { status: 503, headers: { 'retry-after': 'soon' } }, { status: 200 })
    const { authFetch, slept } = recordedWaits()
    assert.equal((await authFetch(`${server.url}/x`)).status, 200)
    assert.deepEqual(slept, [0, 1000])
  })

  it('returns at once, without waiting, a response whose Retry-After asks for longer than maxRetryAfterMs', async () => {
    const server = await serve({ status: 503, headers: { 'retry-after': '3600' } }, { status: 200 })
    const { authFetch, slept } = recordedWaits({ maxRetryAfterMs: 60_000 })
    const response = await authFetch(`${server.url}/x`)
    assert.equal(response.status, 503)
    assert.equal(response.headers.get('retry-after'), '3600')
    assert.deepEqual(slept, [])
    assert.equal(server.received.length, 1)
  })

  it('waits for a Retry-After of exactly maxRetryAfterMs', async () => {
    const server = await serve({ status: 503, headers: { 'retry-after': '60' } }, { status: 200 })
    const { authFetch, slept } = recordedWaits({ maxRetryAfterMs: 60_000 })
    assert.equal((await authFetch(`${server.url}/x`)).status, 200)
    assert.deepEqual(slept, [60_000])
  })

  it('does not wait for hours by default: a Retry-After beyond 2 minutes returns the response', async () => {
    const server = await serve({ status: 429, headers: { 'retry-after': '121' } }, { status: 200 })
    const response = await recordedWaits().authFetch(`${server.url}/x`)
    assert.equal(response.status, 429)
  })

  it('retries a 413 that carries Retry-After, which says the refusal is temporary', async () => {
    const server = await serve({ status: 413, headers: { 'retry-after': '1' } }, { status: 200 })
    assert.equal((await recordedWaits().authFetch(`${server.url}/x`)).status, 200)
  })

  it('returns a 413 without Retry-After at once', async () => {
    const server = await serve({ status: 413 }, { status: 200 })
    assert.equal((await recordedWaits().authFetch(`${server.url}/x`)).status, 413)
  })
})

describe('createAuthFetch retries only what can be sent again', () => {
  it('sends a POST body byte-identical on every attempt', async () => {
    const server = await serve({ status: 503 }, { status: 502 }, { status: 200 })
    const body = new Uint8Array([0, 1, 127, 128, 255, 0x7b, 0x7d])
    await recordedWaits().authFetch(`${server.url}/get-online-features`, { method: 'POST', body })
    assert.deepEqual(server.received.map((request) => [request.method, [...request.body]]), Array(3).fill(['POST', [...body]]))
  })

  it('sends the body of a Request object on every attempt', async () => {
    const server = await serve({ status: 503 }, { status: 200 })
    await recordedWaits().authFetch(new Request(`${server.url}/push`, { method: 'PUT', body: '{"df":[]}' }))
    assert.deepEqual(server.received.map((request) => request.body.toString()), ['{"df":[]}', '{"df":[]}'])
  })

  it('does not retry a stream body, which can be sent only once', async () => {
    const server = await serve({ status: 503 }, { status: 200 })
    const body = new ReadableStream({ start (controller) { controller.enqueue(new TextEncoder().encode('once')); controller.close() } })
    const response = await recordedWaits().authFetch(`${server.url}/x`, { method: 'POST', body, duplex: 'half' } as RequestInit)
    assert.equal(response.status, 503)
    assert.equal(server.received.length, 1)
  })

  for (const method of ['PATCH', 'HEAD', 'OPTIONS']) {
    it(`does not retry ${method}, which Feast's client does not retry either`, async () => {
      const server = await serve({ status: 503 }, { status: 200 })
      const response = await recordedWaits().authFetch(`${server.url}/x`, { method })
      assert.equal(response.status, 503)
      assert.equal(server.received.length, 1)
    })
  }

  it('retries a method given in lower case', async () => {
    const server = await serve({ status: 503 }, { status: 200 })
    assert.equal((await recordedWaits().authFetch(`${server.url}/x`, { method: 'delete' })).status, 200)
  })
})

describe('createAuthFetch retries network failures', () => {
  it('sends the request again when the server closed the connection without answering', async () => {
    const server = await serve('close', { status: 200 })
    const response = await recordedWaits().authFetch(`${server.url}/x`, { method: 'POST', body: 'again' })
    assert.equal(response.status, 200)
    assert.deepEqual(server.received.map((request) => request.body.toString()), ['again', 'again'])
  })

  it('throws the network error after backing off 3 times when the connection stays refused', async () => {
    const port = await closedPort()
    const { authFetch, slept } = recordedWaits()
    await assert.rejects(authFetch(`http://127.0.0.1:${port}/x`), (error: Error) => error instanceof TypeError && (error.cause as { code?: string }).code === 'ECONNREFUSED')
    assert.deepEqual(slept, [0, 1000, 2000])
  })

  it('does not retry a request fetch refuses to send (a port browsers block)', async () => {
    const { authFetch, slept } = recordedWaits()
    await assert.rejects(authFetch('http://127.0.0.1:1/x'), TypeError)
    assert.deepEqual(slept, [])
  })

  it('puts no token in the error thrown when the retries run out', async () => {
    const port = await closedPort()
    const { authFetch } = recordedWaits({}, scriptedProvider(['secret-token-value']))
    const error = await authFetch(`http://127.0.0.1:${port}/x`).then(() => undefined, (caught: unknown) => caught as Error)
    assert.ok(error instanceof Error)
    const told = `${error.message} ${error.stack ?? ''} ${String(error.cause)} ${JSON.stringify(error)}`
    assert.doesNotMatch(told, /secret-token-value/)
  })
})

describe('createAuthFetch retries and the caller\'s AbortSignal', () => {
  it('rejects with the abort reason as soon as the caller aborts during a wait, sending nothing more', async () => {
    const server = await serve({ status: 503, headers: { 'retry-after': '30' } }, { status: 200 })
    const controller = new AbortController()
    const reason = new Error('the caller gave up')
    const started = Date.now()
    const pending = createAuthFetch(scriptedProvider(['t1']))(`${server.url}/x`, { signal: controller.signal })
    await eventually(() => server.received.length === 1, 'the first attempt')
    controller.abort(reason)
    await assert.rejects(pending, (error) => error === reason)
    assert.ok(Date.now() - started < 5000, 'the 30 s wait was not cut short')
    assert.equal(server.received.length, 1)
  })

  it("obeys a Request's own signal during a wait", async () => {
    const server = await serve({ status: 503, headers: { 'retry-after': '30' } }, { status: 200 })
    const controller = new AbortController()
    const started = Date.now()
    const pending = createAuthFetch(scriptedProvider(['t1']))(new Request(`${server.url}/x`, { signal: controller.signal }))
    await eventually(() => server.received.length === 1, 'the first attempt')
    controller.abort()
    await assert.rejects(pending, { name: 'AbortError' })
    assert.ok(Date.now() - started < 5000, 'the 30 s wait was not cut short')
    assert.equal(server.received.length, 1)
  })

  it('never sends again a request aborted while it was in flight', async () => {
    const server = await serve({ status: 503, delayMs: 200 }, { status: 200 })
    const controller = new AbortController()
    const { authFetch, slept } = recordedWaits()
    const pending = authFetch(`${server.url}/x`, { signal: controller.signal })
    await eventually(() => server.received.length === 1, 'the first attempt')
    controller.abort()
    await assert.rejects(pending, { name: 'AbortError' })
    assert.deepEqual(slept, [])
  })

  it('asks for no token and sends nothing more when the signal aborts during a sleep that ignores it', async () => {
    const server = await serve({ status: 503 }, { status: 200 })
    const controller = new AbortController()
    const provider = scriptedProvider(['t1'])
    let asked = 0
    const counting: TokenProvider = { ...provider, getToken: async () => { asked++; return await provider.getToken() } }
    const authFetch = createAuthFetch(counting, { sleep: async () => { controller.abort() } })
    await assert.rejects(authFetch(`${server.url}/x`, { signal: controller.signal }), { name: 'AbortError' })
    assert.equal(asked, 1)
    assert.equal(server.received.length, 1)
  })
})

describe('createAuthFetch retries with tokens', () => {
  it('asks the provider at every attempt, so that a token refreshed meanwhile is the one sent', async () => {
    const server = await serve({ status: 503 }, { status: 200 })
    await recordedWaits({}, scriptedProvider(['before', 'after'], { advance: 'every-call' })).authFetch(`${server.url}/x`)
    assert.deepEqual(server.received.map((request) => request.authorization), ['Bearer before', 'Bearer after'])
  })

  it('retries a 503 that answers the replay after a 401, with the fresh token', async () => {
    const server = await serve({ status: 401 }, { status: 503 }, { status: 200 })
    const provider = scriptedProvider(['stale', 'fresh'])
    const response = await recordedWaits({}, provider).authFetch(`${server.url}/x`)
    assert.equal(response.status, 200)
    assert.deepEqual(server.received.map((request) => request.authorization), ['Bearer stale', 'Bearer fresh', 'Bearer fresh'])
  })

  it('replays after a 401 once per call, even across retries', async () => {
    const server = await serve({ status: 401 }, { status: 503 }, { status: 401 }, { status: 200 })
    const provider = scriptedProvider(['a', 'b', 'c'])
    const response = await recordedWaits({}, provider).authFetch(`${server.url}/x`)
    assert.equal(response.status, 401)
    assert.equal(server.received.length, 3)
    assert.equal(provider.invalidated, 1)
  })

  it('retries under no_auth as well, as Feast\'s session without auth does', async () => {
    const server = await serve({ status: 503 }, { status: 200 })
    const response = await recordedWaits({}, scriptedProvider([], { type: 'no_auth' })).authFetch(`${server.url}/x`)
    assert.equal(response.status, 200)
    assert.deepEqual(server.received.map((request) => request.authorization), [undefined, undefined])
  })
})

describe('createAuthFetch releases what it discards', () => {
  it('cancels the body of a response it retries, closing its connection', async () => {
    const server = await serve({ status: 503, endless: true }, { status: 200 })
    assert.equal((await recordedWaits().authFetch(`${server.url}/x`)).status, 200)
    await eventually(() => server.received[0]?.closed() === true, 'the connection of the discarded 503 to close', 2000)
  })

  it('cancels the body of a 401 whose replay gets no fresh token, closing its connection', async () => {
    const server = await serve({ status: 401, endless: true })
    const down = new TokenSourceError('provider_unavailable', 'the provider is down')
    const once = scriptedProvider(['t1'])
    const provider: TokenProvider = { ...once, getToken: async () => { if (once.invalidated > 0) throw down; return await once.getToken() } }
    await assert.rejects(recordedWaits({}, provider).authFetch(`${server.url}/x`), (error) => error === down)
    await eventually(() => server.received[0]?.closed() === true, 'the connection of the 401 to close', 2000)
  })
})

describe('createAuthFetch against our own server while the identity provider is down', () => {
  it("waits the 5 s of the server's Retry-After, then gets through once the provider is back", async (t) => {
    const idp = await startOidcProvider()
    t.after(async () => { await idp.close() })
    const proxy = await startFaultProxy(idp.baseUrl)
    t.after(async () => { await proxy.close() })
    const server = await startProtectedApp({ type: 'oidc', auth_discovery_url: `${proxy.url}/.well-known/openid-configuration`, client_id: idp.clientId })
    t.after(async () => { await server.close() })
    proxy.set('refuse')
    const slept: number[] = []
    // The provider comes back during the first wait; the server's own failure back-off is 50 ms here.
    const sleep = async (ms: number): Promise<void> => { slept.push(ms); proxy.set('pass'); await delay(200) }
    const authFetch = createAuthFetch(scriptedProvider([await idp.issue({ preferred_username: 'alice' })]), { sleep })
    const response = await authFetch(`${server.url}/whoami`)
    assert.equal(response.status, 200)
    assert.ok(slept.length > 0 && slept.every((ms) => ms === 5000), `waits of ${slept.join(', ')} ms`)
  })
})

describe('createAuthFetch retry options', () => {
  for (const value of [-1, 1.5, 101, Number.NaN, '3']) {
    it(`refuses retries: ${inspect(value)}, naming the option and what it takes`, () => {
      assert.throws(() => createAuthFetch({ type: 'no_auth' }, { retries: value as number }), {
        name: 'OptionError',
        option: 'retries',
        message: /^feast-authz: createAuthFetch: retries must be an integer from 0 to 100, got /
      })
    })
  }

  it('refuses a retryBackoffMs beyond the 120 s cap of the backoff', () => {
    assert.throws(() => createAuthFetch({ type: 'no_auth' }, { retryBackoffMs: 120_001 }), { name: 'OptionError', option: 'retryBackoffMs' })
  })

  it('refuses a negative retryBackoffMs', () => {
    assert.throws(() => createAuthFetch({ type: 'no_auth' }, { retryBackoffMs: -500 }), { name: 'OptionError', option: 'retryBackoffMs' })
  })

  it('refuses an infinite maxRetryAfterMs, which would bring back waits without end', () => {
    assert.throws(() => createAuthFetch({ type: 'no_auth' }, { maxRetryAfterMs: Number.POSITIVE_INFINITY }), { name: 'OptionError', option: 'maxRetryAfterMs' })
  })

  it('refuses a sleep that is not a function', () => {
    assert.throws(() => createAuthFetch({ type: 'no_auth' }, { sleep: 100 as never }), { name: 'OptionError', option: 'sleep' })
  })

  it("suggests retries for Feast's connection_retries misspelt as retires", () => {
    assert.throws(() => createAuthFetch({ type: 'no_auth' }, { retires: 3 } as never), { name: 'OptionError', message: /retires is not an option \(did you mean retries\?\)/ })
  })
})
