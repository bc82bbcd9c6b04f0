/**
 * What becomes of an error inside the Express middlewares, on Express 5 and Express 4 and on the
 * floors of the peer range (5.1.0, 4.22.1): it reaches
 * the app's error handler through `next(error)`, as it was thrown. Express 4 does not await a
 * handler's promise, so an error left in a rejected promise would never be answered and, as an
 * unhandled rejection, would end the process (Node 15+); every test checks that none is left.
 */
import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import { after, afterEach, before, beforeEach, describe, test } from 'node:test'
import type { NextFunction, Request, Response } from 'express'
import { feastAuthzExpress, type FeastAuthzExpress } from '../../src/adapters/express.ts'
import { AuthError } from '../../src/base/errors.ts'
import type { AuthManager } from '../../src/managers/types.ts'
import { createPrincipal } from '../../src/base/principal.ts'
import { permission, roleBasedPolicy } from '../../src/permissions/index.ts'
import { stubManager } from '../helpers/stub-manager.ts'
import { captureLogs } from '../helpers/logs.ts'
import { listenOnLoopback } from '../helpers/listen.ts'
import { assertInstalled, EXPRESS_RELEASES } from '../helpers/express-majors.ts'

const CONFIG = { project: 'p', auth: { type: 'oidc', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration', client_id: 'feast' } }
const TOKENS = { reader: createPrincipal({ username: 'rita', roles: ['reader'], source: 'oidc' }) }
const PERMISSIONS = [permission({ name: 'readers', types: ['FeatureView'], actions: ['DESCRIBE'], policy: roleBasedPolicy(['reader']) })]
const VIEW = { type: 'FeatureView', name: 'driver_stats' } as const

/** What the app's error handler was given, as the response reports it. */
interface Handled { readonly handled: string, readonly message: string, readonly code?: string }

/** A refusal as `readTarget` throws one for a body it cannot read. */
const unprocessable = (): Error => Object.assign(new Error('features must be a list of strings'), { statusCode: 422 })

/** Rejections no handler took, collected while a test runs (the listener also keeps the process alive). */
const unhandled: unknown[] = []
const onUnhandled = (reason: unknown): void => { unhandled.push(reason) }
before(() => { process.on('unhandledRejection', onUnhandled) })
after(() => { process.off('unhandledRejection', onUnhandled) })
beforeEach(() => { unhandled.length = 0 })
afterEach(async () => {
  // An unhandled rejection is reported once the microtasks of the turn that made it have run.
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(unhandled, [], 'an error was left in a rejected promise')
})

describe('the promise Express would have to await', () => {
  test('requirePermission returns none: its outcome and its errors go to next or to the response', async () => {
    const authz = feastAuthzExpress({ config: CONFIG, manager: stubManager(TOKENS), permissions: PERMISSIONS, logger: captureLogs().logger })
    const req = { principal: TOKENS.reader, path: '/x' } as unknown as Request
    let continued!: () => void
    const next = new Promise<void>((resolve) => { continued = resolve })
    const returned: unknown = authz.requirePermission({ resources: VIEW, actions: 'DESCRIBE' })(req, {} as Response, (() => { continued() }) as NextFunction)
    assert.equal(returned, undefined)
    await next
    await authz.close()
  })
})

for (const release of EXPRESS_RELEASES) {
  const { name, express } = release
  describe(`errors in the Express middlewares on ${name}`, () => {
    let authz: FeastAuthzExpress
    let server: Server
    let url: string

    before(async () => {
      authz = feastAuthzExpress({ config: CONFIG, manager: stubManager(TOKENS), permissions: PERMISSIONS, logger: captureLogs().logger })
      const app = express()
      app.use(authz.authenticate)
      const guarded = (path: string, resources: () => unknown): void => {
        app.get(path, authz.requirePermission({ resources: resources as () => typeof VIEW, actions: 'DESCRIBE' }), (_req, res) => { res.json({ reached: 'handler' }) })
      }
      guarded('/throws', () => { throw unprocessable() })
      guarded('/rejects', async () => { throw unprocessable() })
      // eslint-disable-next-line prefer-promise-reject-errors -- the case under test: a rejection that carries nothing
      guarded('/rejects-with-nothing', async () => await Promise.reject())
      // eslint-disable-next-line no-throw-literal -- the case under test: Express reads next('route') as "skip to the next route"
      guarded('/throws-route', () => { throw 'route' })
      app.get('/throws-route', (_req, res) => { res.json({ reached: 'the next route' }) })
      app.get('/bad-resource', authz.requirePermission({ resources: () => ({ type: 'FeatureView' }) as unknown as typeof VIEW, actions: 'DESCRIBE' }), (_req, res) => { res.json({ reached: 'handler' }) })
      app.use((error: { statusCode?: number, code?: string, message: string }, _req: Request, res: Response, _next: NextFunction) => {
        res.status(error.statusCode ?? 500).json({ handled: 'by the app', message: error.message, code: error.code })
      })
      ;({ server, url } = await listenOnLoopback(app))
    })

    after(async () => {
      await new Promise((resolve) => server.close(resolve))
      await authz.close()
    })

    test(`runs on ${name}`, () => { assertInstalled(release) })

    /** GETs `path` as the reader; a request nobody answers fails after 5 s instead of holding the suite. */
    const get = async (path: string): Promise<{ status: number, body: Handled }> => {
      const response = await fetch(`${url}${path}`, { headers: { authorization: 'Bearer reader' }, signal: AbortSignal.timeout(5000) })
      return { status: response.status, body: await response.json() as Handled }
    }

    test('an error thrown by the resources callback reaches the app\'s error handler with its status', async () => {
      assert.deepEqual(await get('/throws'), { status: 422, body: { handled: 'by the app', message: 'features must be a list of strings' } })
    })

    test('an async resources callback that rejects reaches the app\'s error handler with its status', async () => {
      assert.deepEqual(await get('/rejects'), { status: 422, body: { handled: 'by the app', message: 'features must be a list of strings' } })
    })

    test('a rejection without a reason is an error for the app\'s handler, never a pass to the route', async () => {
      const { status, body } = await get('/rejects-with-nothing')
      assert.equal(status, 500)
      assert.equal(body.handled, 'by the app')
      assert.match(body.message, /^feast-authz: the permission check failed/)
    })

    test('a thrown "route" is an error for the app\'s handler, not Express\'s order to skip to the next route', async () => {
      const { status, body } = await get('/throws-route')
      assert.equal(status, 500)
      assert.equal(body.message, 'feast-authz: the permission check failed: route')
    })

    test('a resource without a name from the callback is an OptionError for the app\'s handler', async () => {
      const { status, body } = await get('/bad-resource')
      assert.equal(status, 500)
      assert.deepEqual([body.handled, body.code], ['by the app', 'FEAST_AUTHZ_OPTION'])
    })
  })

  describe(`a refusal that can no longer be sent on ${name}`, () => {
    test('authenticate passes the failure to send its 401 to the app\'s error handler when another middleware has already answered', async () => {
      // The identity provider answers after a timeout middleware has answered the request.
      let refuse: (error: unknown) => void = () => {}
      const manager: AuthManager = { ...stubManager({}), authenticate: async () => await new Promise((_resolve, reject) => { refuse = reject }) }
      const authz = feastAuthzExpress({ config: CONFIG, manager, logger: captureLogs().logger })
      const errors: unknown[] = []
      const app = express()
      app.use((_req, res, next) => { res.status(503).json({ answered: 'by the timeout' }); next() })
      app.use(authz.authenticate)
      app.get('/x', (_req, res) => { res.json({ reached: 'handler' }) })
      app.use((error: unknown, _req: Request, _res: Response, _next: NextFunction) => { errors.push(error) })
      const { server, url } = await listenOnLoopback(app)
      try {
        const response = await fetch(`${url}/x`, { headers: { authorization: 'Bearer unknown' } })
        assert.deepEqual([response.status, await response.json()], [503, { answered: 'by the timeout' }])
        refuse(new AuthError('invalid_signature', 'token signature is invalid'))
        for (let waited = 0; errors.length === 0 && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10))
        assert.equal((errors[0] as { code?: string } | undefined)?.code, 'ERR_HTTP_HEADERS_SENT')
      } finally {
        await new Promise((resolve) => server.close(resolve))
        await authz.close()
      }
    })
  })
}
