/**
 * The adapter core shared by the Fastify plugin and the Express middleware, seen from the wire
 * and the log: the same challenges, log lines and clean-up from both frameworks.
 */
import assert from 'node:assert/strict'
import { request as httpRequest, type Server } from 'node:http'
import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import express, { type NextFunction, type Request, type Response } from 'express'
import Fastify, { type FastifyInstance } from 'fastify'
import { feastAuthzExpress, type FeastAuthzExpress } from '../../src/adapters/express.ts'
import { feastAuthz } from '../../src/adapters/fastify.ts'
import { createPrincipal, type Principal } from '../../src/base/principal.ts'
import type { AuthManager } from '../../src/managers/types.ts'
import { permission, roleBasedPolicy } from '../../src/permissions/index.ts'
import { stubManager } from '../helpers/stub-manager.ts'
import { captureLogs } from '../helpers/logs.ts'
import { listenOnLoopback } from '../helpers/listen.ts'
import { EXPRESS_MAJORS } from '../helpers/express-majors.ts'

const CONFIG = { project: 'p', auth: { type: 'oidc', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration', client_id: 'feast' } }
const TOKENS = {
  reader: createPrincipal({ username: 'rita', roles: ['reader'], groups: ['team-a'], source: 'oidc' }),
  nobody: createPrincipal({ username: 'nora', roles: ['Reader'], groups: ['team-b'], namespaces: ['ns-1'], source: 'oidc' })
}
const PERMISSIONS = [permission({ name: 'readers', types: ['FeatureView'], actions: ['DESCRIBE'], policy: roleBasedPolicy(['reader']) })]
const VIEW = { type: 'FeatureView', name: 'driver_stats' } as const

/** GET `url` over real HTTP with the given raw Authorization header value (Node's client sends it as written). */
async function get (url: string, authorization?: string): Promise<{ status: number, challenge: string | undefined, body: Record<string, unknown> }> {
  return await new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: authorization === undefined ? {} : { authorization } }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const challenge = response.headers['www-authenticate']
        resolve({ status: response.statusCode ?? 0, challenge, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> })
      })
    })
    request.on('error', reject)
    request.end()
  })
}

const adapters: Array<{ name: string, start: () => Promise<{ url: string, lines: Array<Record<string, unknown>>, close: () => Promise<void> }> }> = [
  {
    name: 'Fastify',
    start: async () => {
      const { logger, lines } = captureLogs()
      const app = Fastify({ loggerInstance: logger }) as unknown as FastifyInstance
      await app.register(feastAuthz, { config: CONFIG, manager: stubManager(TOKENS), permissions: PERMISSIONS })
      app.get('/view', { preHandler: app.requirePermission({ resources: VIEW, actions: 'DESCRIBE' }) }, async () => ({ ok: true }))
      const url = await app.listen({ host: '127.0.0.1', port: 0 })
      return { url, lines, close: async () => { await app.close() } }
    }
  },
  ...EXPRESS_MAJORS.map(({ name, express }) => ({
    name,
    start: async () => {
      const { logger, lines } = captureLogs()
      const authz = feastAuthzExpress({ config: CONFIG, manager: stubManager(TOKENS), permissions: PERMISSIONS, logger })
      const app = express()
      app.use(authz.authenticate)
      app.get('/view', authz.requirePermission({ resources: VIEW, actions: 'DESCRIBE' }), (_req, res) => { res.json({ ok: true }) })
      const { server, url } = await listenOnLoopback(app)
      return { url, lines, close: async () => { server.close(); await authz.close() } }
    }
  }))
]

for (const adapter of adapters) {
  describe(`the wire and the log through ${adapter.name}`, () => {
    let url: string
    let lines: Array<Record<string, unknown>>
    let close: () => Promise<void>
    before(async () => { ({ url, lines, close } = await adapter.start()) })
    after(async () => { await close() })

    test('a 403 carries a Bearer challenge with error="insufficient_scope" (RFC 6750 3.1)', async () => {
      const response = await get(`${url}/view`, 'Bearer nobody')
      assert.equal(response.status, 403)
      assert.equal(response.challenge, 'Bearer realm="feast", error="insufficient_scope"')
      assert.equal(response.body.code, 'permission_denied')
    })

    test('"Bearer" with nothing after it is a missing token: a challenge without an error code', async () => {
      const response = await get(`${url}/view`, 'Bearer ')
      assert.equal(response.status, 401)
      assert.equal(response.challenge, 'Bearer realm="feast"')
      assert.deepEqual([response.body.code, response.body.message], ['missing_token', 'the Bearer scheme is not followed by a token'])
    })

    test('the deny log line has the allow line\'s shape plus the caller\'s roles, groups and namespaces', async () => {
      await get(`${url}/view`, 'Bearer reader')
      await get(`${url}/view`, 'Bearer nobody')
      const allow = lines.find((line) => line.event === 'authorization' && line.decision === 'allow')
      const deny = lines.find((line) => line.event === 'authorization' && line.decision === 'deny')
      assert.ok(allow !== undefined && deny !== undefined, 'expected an allow and a deny line')
      assert.deepEqual([allow.username, allow.resources, allow.actions], ['rita', ['FeatureView:driver_stats'], ['DESCRIBE']])
      assert.deepEqual(
        [deny.msg, deny.level, deny.username, deny.resources, deny.actions, deny.roles, deny.groups, deny.namespaces],
        ['permission denied', 30, 'nora', ['FeatureView:driver_stats'], ['DESCRIBE'], ['Reader'], ['team-b'], ['ns-1']]
      )
      assert.match(String(deny.explanation), /requires roles \[reader\]/)
    })
  })
}

describe('closing while the keys are still being fetched', () => {
  let hanging: ReturnType<typeof createServer>
  const sockets: Socket[] = []
  let discoveryUrl: string
  before(async () => {
    // Accepts connections and never answers: the warm-up is still waiting when the server closes.
    hanging = createServer((socket) => { sockets.push(socket) })
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve))
    discoveryUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/.well-known/openid-configuration`
  })
  after(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => hanging.close(resolve))
  })

  test('logs no error, and no warning about the keys, when app.close() cuts the warm-up short', async () => {
    const { logger, lines } = captureLogs()
    const app = Fastify({ loggerInstance: logger })
    await app.register(feastAuthz, { config: { project: 'p', auth: { type: 'oidc', auth_discovery_url: discoveryUrl, client_id: 'feast' } } })
    await app.ready()
    while (sockets.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    await app.close()
    const stopped = (): boolean => lines.some((line) => line.msg === 'loading the OIDC signing keys stopped: the server is closing')
    for (let waited = 0; !stopped() && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
    assert.ok(stopped(), 'expected the warm-up to end with a debug line')
    assert.deepEqual(lines.filter((line) => Number(line.level) >= 50).map((line) => line.msg), [])
    // (The warning that this test provider's discovery URL is plain http is not about the warm-up.)
    assert.deepEqual(lines.filter((line) => Number(line.level) >= 40 && /could not load|discovery failed|key set unavailable/i.test(String(line.msg))).map((line) => line.msg), [])
  })
})

describe('Express without authenticate in front of a guarded route', () => {
  let authz: FeastAuthzExpress
  let server: Server
  let url: string
  const { logger, lines } = captureLogs()
  before(async () => {
    authz = feastAuthzExpress({ config: CONFIG, manager: stubManager(TOKENS), permissions: PERMISSIONS, logger })
    const app = express()
    app.get('/view', authz.requirePermission({ resources: VIEW, actions: 'DESCRIBE' }), (_req, res) => { res.json({ ok: true }) })
    ;({ server, url } = await listenOnLoopback(app))
  })
  after(async () => { server.close(); await authz.close() })

  test('answers 401 missing_token to a valid token and logs a hint naming authenticate', async () => {
    const response = await get(`${url}/view`, 'Bearer reader')
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'missing_token')
    const hint = lines.find((line) => typeof line.msg === 'string' && line.msg.includes('did you mount authenticate'))
    assert.ok(hint !== undefined, 'expected a hint in the log')
    assert.equal(hint.level, 40)
  })
})

describe('the Express authenticate middleware on a cached token', () => {
  test('continues synchronously, without a promise, as the Fastify plugin does', () => {
    const principal: Principal = TOKENS.reader
    const manager: AuthManager = { ...stubManager(TOKENS), authenticateCached: (token) => token === 'reader' ? principal : undefined }
    const authz = feastAuthzExpress({ config: CONFIG, manager, permissions: PERMISSIONS, logger: captureLogs().logger })
    const req = { headers: { authorization: 'Bearer reader' }, rawHeaders: ['Authorization', 'Bearer reader'] } as unknown as Request
    let continued = false
    const returned: unknown = authz.authenticate(req, {} as Response, (() => { continued = true }) as NextFunction)
    assert.equal(continued, true, 'next() must have run before authenticate returned')
    assert.equal(returned instanceof Promise, false)
    assert.equal(req.principal, principal)
  })

  test('looks each header up by its own token when callers alternate, a header repeated or not', () => {
    const manager: AuthManager = { ...stubManager(TOKENS), authenticateCached: (token) => (TOKENS as Record<string, Principal>)[token] }
    const authz = feastAuthzExpress({ config: CONFIG, manager, permissions: PERMISSIONS, logger: captureLogs().logger })
    const seen = ['reader', 'nobody', 'nobody', 'reader', 'nobody'].map((token) => {
      // A fresh string per request, as Node's HTTP parser makes one.
      const authorization = `Bearer ${token}`.split('').join('')
      const req = { headers: { authorization }, rawHeaders: ['Authorization', authorization] } as unknown as Request
      authz.authenticate(req, {} as Response, (() => {}) as NextFunction)
      return req.principal?.username
    })
    assert.deepEqual(seen, ['rita', 'nora', 'nora', 'rita', 'nora'])
  })

  test('refuses a repeated cached header when the request carries a second Authorization header', () => {
    const manager: AuthManager = { ...stubManager(TOKENS), authenticateCached: (token) => (TOKENS as Record<string, Principal>)[token] }
    const authz = feastAuthzExpress({ config: CONFIG, manager, permissions: PERMISSIONS, logger: captureLogs().logger })
    const statuses: number[] = []
    for (const rawHeaders of [['Authorization', 'Bearer reader'], ['Authorization', 'Bearer reader', 'authorization', 'Bearer nobody']]) {
      const req = { headers: { authorization: 'Bearer reader' }, rawHeaders } as unknown as Request
      let status = 200
      const res = {
        status (code: number) { status = code; return res },
        set () { return res },
        json () { return res },
        setHeader () { return res }
      } as unknown as Response
      authz.authenticate(req, res, (() => {}) as NextFunction)
      statuses.push(status)
    }
    assert.deepEqual(statuses, [200, 401])
  })
})
