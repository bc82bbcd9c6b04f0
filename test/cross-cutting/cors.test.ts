/**
 * A browser script on another origin calling a protected server, with the real CORS libraries
 * (@fastify/cors, cors for Express) over real HTTP. The browser's preflight (OPTIONS with Origin
 * and Access-Control-Request-Method) never carries the Authorization header, so whether it is
 * answered depends on the order: CORS handled before feast-authz answers it and decorates our
 * 401/403/503; handled after, the preflight itself is a 401 without CORS headers, which the
 * browser reports as a CORS error. feast-authz does not let OPTIONS through on its own: such a
 * bypass stays the application's explicit choice.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fastifyCors from '@fastify/cors'
import cors from 'cors'
import express from 'express'
import Fastify from 'fastify'
import feastAuthz from '../../src/adapters/fastify.ts'
import { feastAuthzExpress } from '../../src/adapters/express.ts'
import { permission, roleBasedPolicy } from '../../src/permissions/index.ts'
import { captureLogs, type CapturedLogs } from '../helpers/logs.ts'
import { closedPort, listenOnLoopback } from '../helpers/listen.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'

const UI = 'https://feast-ui.example.com'
const PERMISSIONS = [permission({ name: 'readers', types: ['FeatureView'], actions: ['READ_ONLINE'], policy: roleBasedPolicy(['reader']) })]
const OIDC_TUNING = { unknownKidCooldownSeconds: 0.05, failureBackoffSeconds: 0.05 }

type Framework = 'Fastify' | 'Express'
type Order = 'cors first' | 'cors after'

/** What both CORS libraries take alike; `hook` is @fastify/cors's only. */
interface CorsSettings {
  readonly exposedHeaders?: string[]
  readonly hook?: 'onRequest' | 'preHandler'
}

interface CorsServer {
  readonly url: string
  readonly logs: CapturedLogs
  close (): Promise<void>
}

/**
 * A server with `GET /features/:view` (READ_ONLINE on the view), feast-authz and a CORS layer
 * allowing {@link UI}, in the given order.
 */
const SERVERS: Record<Framework, (order: Order, auth: Record<string, unknown>, settings: CorsSettings) => Promise<CorsServer>> = {
  Fastify: async (order, auth, settings) => {
    const logs = captureLogs()
    const app = Fastify({ logger: { level: 'debug', stream: logs.stream } })
    const addCors = async (): Promise<void> => { await app.register(fastifyCors, { origin: [UI], ...settings }) }
    if (order === 'cors first') await addCors()
    await app.register(feastAuthz, { config: { project: 'test', auth }, permissions: PERMISSIONS, oidc: OIDC_TUNING })
    if (order === 'cors after') await addCors()
    app.get<{ Params: { view: string } }>('/features/:view',
      { preHandler: app.requirePermission({ resources: (request) => ({ type: 'FeatureView', name: request.params.view }), actions: 'READ_ONLINE' }) },
      async (request) => ({ view: request.params.view, caller: request.principal?.username }))
    const url = await app.listen({ host: '127.0.0.1', port: 0 })
    return { url, logs, close: async () => { await app.close() } }
  },
  Express: async (order, auth, settings) => {
    assert.equal(settings.hook, undefined, 'cors for Express has no hook option')
    const logs = captureLogs()
    const authz = feastAuthzExpress({ config: { project: 'test', auth }, permissions: PERMISSIONS, oidc: OIDC_TUNING, logger: logs.logger })
    const app = express()
    if (order === 'cors first') app.use(cors({ origin: [UI], ...settings }))
    app.use(authz.authenticate)
    if (order === 'cors after') app.use(cors({ origin: [UI], ...settings }))
    app.get('/features/:view',
      authz.requirePermission<{ view: string }>({ resources: (req) => ({ type: 'FeatureView', name: req.params.view }), actions: 'READ_ONLINE' }),
      (req, res) => { res.json({ view: req.params.view, caller: req.principal?.username }) })
    const { server, url } = await listenOnLoopback(app)
    return {
      url,
      logs,
      close: async () => {
        await new Promise((resolve) => server.close(resolve))
        await authz.close()
      }
    }
  }
}

/** The browser's preflight for a GET with a bearer token: no Authorization header, by the Fetch standard. */
async function preflight (server: CorsServer, origin = UI): Promise<Response> {
  return await fetch(`${server.url}/features/driver`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' }
  })
}

/** The real request the browser sends after the preflight, from `origin`, with `token` if given. */
async function request (server: CorsServer, token?: string, origin = UI): Promise<Response> {
  return await fetch(`${server.url}/features/driver`, { headers: { origin, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) } })
}

/** The names a response lets the page's script read beyond the safelisted ones, lower-cased. */
function exposed (response: Response): string[] {
  return (response.headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '')
}

const authenticationLines = (server: CorsServer): number => server.logs.lines.filter((line) => line.event === 'authentication').length

let provider: TestProvider
let readerToken: string
let guestToken: string

before(async () => {
  // The provider is started here, not by the OIDC-app fixture: its app has no CORS layer, and the Express servers share the provider.
  provider = await startOidcProvider()
  readerToken = await provider.issue({ preferred_username: 'rita', resource_access: { [provider.clientId]: { roles: ['reader'] } } })
  guestToken = await provider.issue({ preferred_username: 'gus' })
})

after(async () => { await provider?.close() })

for (const framework of ['Fastify', 'Express'] as const) {
  const auth = (): Record<string, unknown> => ({ type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId })

  describe(`${framework}: CORS handled before feast-authz`, () => {
    let server: CorsServer
    let down: CorsServer
    before(async () => {
      // Retry-After too: like WWW-Authenticate, it is no CORS-safelisted response header.
      const settings = { exposedHeaders: ['WWW-Authenticate', 'Retry-After'] }
      server = await SERVERS[framework]('cors first', auth(), settings)
      down = await SERVERS[framework]('cors first', { type: 'oidc', auth_discovery_url: `http://127.0.0.1:${await closedPort()}/.well-known/openid-configuration`, client_id: 'feast' }, settings)
    })
    after(async () => {
      await server?.close()
      await down?.close()
    })

    test('a preflight without a token is answered by the CORS layer: 204 allowing the origin, the method and the Authorization header', async () => {
      const response = await preflight(server)
      assert.equal(response.status, 204)
      assert.equal(response.headers.get('access-control-allow-origin'), UI)
      assert.match(response.headers.get('access-control-allow-methods') ?? '', /\bGET\b/)
      assert.match(response.headers.get('access-control-allow-headers') ?? '', /\bauthorization\b/i)
    })

    test('feast-authz never sees the preflight: no authentication is logged for it', async () => {
      const before = authenticationLines(server)
      assert.equal((await preflight(server)).status, 204)
      assert.equal(authenticationLines(server), before)
      // The same count does move for a request feast-authz does see, so the assertion above can fail.
      assert.equal((await request(server)).status, 401)
      assert.equal(authenticationLines(server), before + 1)
    })

    test('the real request without a token is a 401 with a Bearer challenge and the origin allowed, so the page can read the status', async () => {
      const response = await request(server)
      assert.equal(response.status, 401)
      assert.equal(response.headers.get('access-control-allow-origin'), UI)
      assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="feast"')
      assert.equal((await response.json() as { code: string }).code, 'missing_token')
    })

    test('exposedHeaders lists WWW-Authenticate on the 401, so the page\'s script can read the challenge', async () => {
      const response = await request(server, 'not-a-jwt')
      assert.equal(response.status, 401)
      assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/)
      assert.ok(exposed(response).includes('www-authenticate'), String(response.headers.get('access-control-expose-headers')))
    })

    test('the real request with a reader\'s token is a 200 with the origin allowed', async () => {
      const response = await request(server, readerToken)
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('access-control-allow-origin'), UI)
      assert.deepEqual(await response.json(), { view: 'driver', caller: 'rita' })
    })

    test('a token no permission grants is a 403 with the origin allowed and the insufficient_scope challenge exposed', async () => {
      const response = await request(server, guestToken)
      assert.equal(response.status, 403)
      assert.equal(response.headers.get('access-control-allow-origin'), UI)
      assert.match(response.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/)
      assert.ok(exposed(response).includes('www-authenticate'))
    })

    test('with the identity provider down, a token is a 503 with the origin allowed and Retry-After exposed', async () => {
      const response = await request(down, readerToken)
      assert.equal(response.status, 503)
      assert.equal((await response.json() as { code: string }).code, 'provider_unavailable')
      assert.equal(response.headers.get('access-control-allow-origin'), UI)
      assert.match(response.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
      assert.ok(exposed(response).includes('retry-after'))
    })

    test('an origin the CORS layer does not allow still needs a token: a 401 the browser will not let its page read', async () => {
      const response = await request(server, undefined, 'https://elsewhere.example.com')
      assert.equal(response.status, 401)
      assert.equal(response.headers.get('access-control-allow-origin'), null)
    })
  })

  describe(`${framework}: CORS handled after feast-authz`, () => {
    let server: CorsServer
    before(async () => { server = await SERVERS[framework]('cors after', auth(), { exposedHeaders: ['WWW-Authenticate'] }) })
    after(async () => { await server?.close() })

    test('the preflight is a 401 without any CORS header: the browser reports a CORS error, and the server logs the 401', async () => {
      const response = await preflight(server)
      assert.equal(response.status, 401)
      assert.equal(response.headers.get('access-control-allow-origin'), null)
      // What docs/getting-started.md (3c) tells a reader to look for in the log.
      const rejected = server.logs.lines.filter((line) => line.msg === 'authentication rejected' && line.code === 'missing_token')
      assert.equal(rejected.length, 1)
    })
  })
}

describe('Fastify: @fastify/cors registered first but on a later hook', () => {
  let server: CorsServer
  before(async () => {
    server = await SERVERS.Fastify('cors first', { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId }, { hook: 'preHandler' })
  })
  after(async () => { await server?.close() })

  test('with hook: preHandler the preflight reaches feast-authz\'s onRequest first and is a 401', async () => {
    const response = await preflight(server)
    assert.equal(response.status, 401)
    assert.equal(response.headers.get('access-control-allow-origin'), null)
  })
})
