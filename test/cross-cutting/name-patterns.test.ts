/**
 * A permission whose name pattern would backtrack catastrophically in a backtracking engine,
 * and a resource name taken from the URL (the README's requirePermission example), through a
 * real Fastify server with the plugin and a real Express server with the adapter.
 */
import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import { after, before, describe, test } from 'node:test'
import express from 'express'
import { feastAuthzExpress, type FeastAuthzExpress } from '../../src/adapters/express.ts'
import { permission, roleBasedPolicy } from '../../src/permissions/index.ts'
import { oidcAuth, startApp, type TestApp } from '../helpers/authz-app.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { listenOnLoopback } from '../helpers/listen.ts'
import { captureLogs } from '../helpers/logs.ts'

const EVIL = '([a-z0-9]+_?)+_prod'
// 34 characters: about 2^34 steps for a backtracking engine before it gives up.
const STALLING_NAME = 'a'.repeat(34)

describe('a catastrophic name pattern against names from the URL', () => {
  let provider: TestProvider
  let token: string
  let fastify: TestApp
  let authz: FeastAuthzExpress
  let server: Server
  let expressUrl: string

  before(async () => {
    // The provider is started here, not by the OIDC-app fixture: one provider for a Fastify and an Express server.
    provider = await startOidcProvider()
    token = await provider.issue({ preferred_username: 'pat', resource_access: { [provider.clientId]: { roles: ['prod-reader'] } } })
    const permissions = [permission({ name: 'prod-readers', types: ['FeatureView'], namePatterns: EVIL, actions: ['READ_ONLINE'], policy: roleBasedPolicy(['prod-reader']) })]
    fastify = await startApp({
      auth: oidcAuth(provider),
      plugin: { permissions },
      routes: (app) => {
        app.get('/features/:view', {
          config: { feastAuthz: { permission: { resources: (request) => ({ type: 'FeatureView', name: (request.params as { view: string }).view }), actions: 'READ_ONLINE' } } }
        }, async (request) => ({ view: (request.params as { view: string }).view }))
      }
    })
    // Its log lines are captured, as startApp captures the Fastify server's: each 403 is logged at info.
    authz = feastAuthzExpress({ config: { project: 'p', auth: oidcAuth(provider) }, permissions, logger: captureLogs().logger })
    const app = express()
    app.use(authz.authenticate)
    app.get('/features/:view', authz.requirePermission({ resources: (req) => ({ type: 'FeatureView', name: String(req.params.view) }), actions: 'READ_ONLINE' }), (req, res) => { res.json({ view: req.params.view }) })
    ;({ server, url: expressUrl } = await listenOnLoopback(app))
  })

  after(async () => {
    await fastify?.close()
    await new Promise((resolve) => server?.close(resolve))
    await authz?.close()
    await provider?.close()
  })

  for (const target of ['Fastify', 'Express']) {
    const get = async (path: string): Promise<Response> => await fetch(`${target === 'Fastify' ? fastify.url : expressUrl}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) })

    test(`${target}: a 34-character name that does not match is a prompt 403, and the server keeps answering`, async () => {
      const responses = await Promise.all(Array.from({ length: 5 }, async () => await get(`/features/${STALLING_NAME}`)))
      assert.deepEqual(responses.map((response) => response.status), [403, 403, 403, 403, 403])
      const ok = await get('/features/team_a_prod')
      assert.equal(ok.status, 200)
      assert.deepEqual(await ok.json(), { view: 'team_a_prod' })
    })
  }
})
