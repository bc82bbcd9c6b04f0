/**
 * The shared permission decision table, run through the Express adapter on a real Express
 * server of each major (5 and 4) and of each floor of the peer range (5.1.0, 4.22.1): every case
 * is one HTTP request whose answer must be 200 (allowed) or 403 (denied).
 */
import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import { after, before, describe, test } from 'node:test'
import type { Request } from 'express'
import { feastAuthzExpress, type FeastAuthzExpress } from '../../src/adapters/express.ts'
import { DECISION_CASES, FILTER_CASES } from '../helpers/permission-cases.ts'
import { stubManager } from '../helpers/stub-manager.ts'
import type { Principal } from '../../src/base/principal.ts'
import { captureLogs } from '../helpers/logs.ts'
import { listenOnLoopback } from '../helpers/listen.ts'
import { assertInstalled, EXPRESS_RELEASES } from '../helpers/express-majors.ts'

const CONFIG = { project: 'p', auth: { type: 'oidc', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration', client_id: 'feast' } }

for (const release of EXPRESS_RELEASES) {
  const { name, express } = release
  let server: Server
  let baseUrl: string
  let authz: FeastAuthzExpress

  describe(`the permission tables through requirePermission on ${name}`, () => {
    before(async () => {
      // Each case gets its own token (→ its principal) and its own "project" (→ its permissions).
      const tokens = new Map<string, Principal>()
      DECISION_CASES.forEach((c, i) => tokens.set(`decide-${i}`, c.principal))
      FILTER_CASES.forEach((c, i) => tokens.set(`filter-${i}`, c.principal))
      authz = feastAuthzExpress({
        config: CONFIG,
        manager: stubManager(tokens),
        logger: captureLogs().logger,
        permissions: {
          permissionsFor: (project) => {
            const [kind, index] = (project ?? '').split('-')
            const table = kind === 'decide' ? DECISION_CASES : FILTER_CASES
            return table[Number(index)]?.permissions ?? []
          }
        }
      })
      const decision = (req: Request) => DECISION_CASES[Number(req.params.i)]!
      const filter = (req: Request) => FILTER_CASES[Number(req.params.i)]!
      const app = express()
      app.use(authz.authenticate)
      app.get('/decide/:i', authz.requirePermission({
        resources: (req) => decision(req).resource,
        actions: (req) => decision(req).actions,
        project: (req) => `decide-${String(req.params.i)}`
      }), (_req, res) => { res.json({ allowed: true }) })
      app.get('/filter/:i', authz.requirePermission({
        resources: (req) => filter(req).resources,
        actions: (req) => filter(req).actions,
        project: (req) => `filter-${String(req.params.i)}`,
        filter: true
      }), (req, res) => { res.json({ allowed: req.permittedResources?.map((resource) => resource.name) }) })
      ;({ server, url: baseUrl } = await listenOnLoopback(app))
    })

    after(async () => {
      await new Promise((resolve) => server.close(resolve))
      await authz.close()
    })

    test(`runs on ${name}`, () => { assertInstalled(release) })

    async function get (path: string, token: string): Promise<{ status: number, body: { allowed?: unknown, message?: string } }> {
      const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })
      return { status: response.status, body: await response.json() as { allowed?: unknown, message?: string } }
    }

    describe('the decision table', () => {
      DECISION_CASES.forEach((c, i) => {
        test(`${c.group}: ${c.name}`, async () => {
          const { status, body } = await get(`/decide/${i}`, `decide-${i}`)
          assert.equal(status, c.allowed ? 200 : 403)
          if (!c.allowed) assert.equal(body.message?.includes(`${c.resource.type}:${c.resource.name}`), true)
        })
      })
    })

    describe('the filter table, in filter mode (req.permittedResources)', () => {
      FILTER_CASES.forEach((c, i) => {
        test(`${c.group}: ${c.name}`, async () => {
          const { status, body } = await get(`/filter/${i}`, `filter-${i}`)
          if ('refused' in c.expected) {
            assert.equal(status, 403)
            assert.match(body.message ?? '', new RegExp(`:${c.expected.refused.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`))
          } else {
            assert.equal(status, 200)
            assert.deepEqual(body.allowed, c.expected.allowed)
          }
        })
      })
    })
  })
}
