/**
 * A request's project (`?project=`), over HTTP: another project's online store is filled on its
 * first request, from a custom catalog's sample rows; rows that do not fit the bound are a 507
 * naming the project and the bound (never a 500), said once in the log, and served once the
 * registry gives rows that fit. The store is met only after the permission check, and only by
 * routes that use it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test, type TestContext } from 'node:test'
import { permission, roleBasedPolicy } from '../../src/permissions/index.ts'
import { buildReferenceServer, type ReferenceServerOptions } from '../../src/server/app.ts'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
import type { FeatureCatalog } from '../../src/server/catalog.ts'
import { captureLogs, type CapturedLogs } from '../helpers/logs.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'

// A row of a ten-character value counts 343 bytes: three take 1,029, over a bound of 1,000.
const BOUND = 1000
const catalogWithRows = (project: string, ids: readonly number[]): FeatureCatalog => loadYamlCatalogFile({
  yaml: `project: ${project}\nfeature_views:\n  - {name: stats, entities: [id], features: [f]}\n` +
    (ids.length === 0 ? '' : 'sample_rows:\n  stats:\n' + ids.map((id) => `    - {id: ${id}, f: "ten chars!"}\n`).join('')),
  source: 'registry.yaml'
})

/** The server's project `home` (no rows), and `other`, whose catalog the test replaces as a registry reload would. */
interface TwoProjects {
  readonly url: string
  readonly logs: CapturedLogs
  /** Times the store of `other` was filled (its sample rows read). */
  fills: () => number
  reload: (ids: readonly number[]) => void
}

async function serveTwoProjects (t: TestContext, otherIds: readonly number[], auth: Pick<ReferenceServerOptions, 'config' | 'permissions'> = {}): Promise<TwoProjects> {
  const home = catalogWithRows('home', [])
  let fills = 0
  const counted = (catalog: FeatureCatalog): FeatureCatalog => ({
    ...catalog,
    sampleRows: (view) => { fills += 1; return catalog.sampleRows(view) }
  })
  let other = counted(catalogWithRows('other', otherIds))
  const logs = captureLogs()
  const app = await buildReferenceServer({
    config: { project: 'home', auth: { type: 'no_auth' } },
    ...auth,
    pinoLogger: logs.logger,
    onlineStoreMaxBytes: BOUND,
    registry: { ...home, forProject: (name) => name === 'other' ? other : undefined }
  })
  t.after(async () => { await app.close() })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  return { url, logs, fills: () => fills, reload: (ids) => { other = counted(catalogWithRows('other', ids)) } }
}

const READ = { features: ['stats:f'], entities: { id: [2] } }

async function call (url: string, method: 'GET' | 'POST', path: string, body?: unknown, token?: string): Promise<{ status: number, body: any }> {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const response = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  return { status: response.status, body: await response.json() }
}

const read = async (url: string, project: string, token?: string) => await call(url, 'POST', `/get-online-features?project=${project}`, READ, token)

const OVER_BOUND = 'the registry\'s sample rows of project "other" take 1,029 bytes in the online store, over its bound of 1,000 ' +
  '(the reference server\'s onlineStoreMaxBytes or feast-authz serve --online-store-max-bytes; '

describe('another project\'s sample rows, over the bound', () => {
  test('a request for that project is a 507 naming the project, what its rows take, the bound and where it is set', async (t) => {
    const { url } = await serveTwoProjects(t, [1, 2, 3])
    const reply = await read(url, 'other')
    assert.equal(reply.status, 507, JSON.stringify(reply.body))
    assert.equal(reply.body.code, 'insufficient_storage')
    assert.equal(reply.body.error, 'Insufficient Storage')
    assert.ok(reply.body.message.startsWith(OVER_BOUND), reply.body.message)
    assert.match(reply.body.message, /: raise the reference server's onlineStoreMaxBytes or feast-authz serve --online-store-max-bytes, or give fewer sample rows$/)
  })

  test('later requests for that project get the same 507 without the store being filled again', async (t) => {
    const server = await serveTwoProjects(t, [1, 2, 3])
    const first = await read(server.url, 'other')
    const filled = server.fills()
    const later = [await read(server.url, 'other'), await read(server.url, 'other')]
    assert.deepEqual(later.map((reply) => [reply.status, reply.body.message]), [[507, first.body.message], [507, first.body.message]])
    assert.equal(server.fills(), filled)
  })

  test('it is logged once, at error level, with the project, the bytes and the bound', async (t) => {
    const { url, logs } = await serveTwoProjects(t, [1, 2, 3])
    for (let i = 0; i < 3; i++) assert.equal((await read(url, 'other')).status, 507)
    const said = logs.lines.filter((line) => line.msg.includes('sample rows of project "other"'))
    assert.equal(said.length, 1, JSON.stringify(said))
    assert.deepEqual([said[0]?.level, said[0]?.project, said[0]?.bytes, said[0]?.maxBytes], [50, 'other', 1029, 1000])
    assert.equal(logs.lines.filter((line) => line.msg === 'request failed').length, 0, 'no request failed with a 500')
  })

  test('the server\'s own project is served meanwhile', async (t) => {
    const { url } = await serveTwoProjects(t, [1, 2, 3])
    assert.equal((await read(url, 'other')).status, 507)
    const home = await read(url, 'home')
    assert.equal(home.status, 200, JSON.stringify(home.body))
  })

  test('a registry reload giving that project rows that fit makes its next request work', async (t) => {
    const server = await serveTwoProjects(t, [1, 2, 3])
    assert.equal((await read(server.url, 'other')).status, 507)
    server.reload([1, 2])
    const reply = await read(server.url, 'other')
    assert.equal(reply.status, 200, JSON.stringify(reply.body))
    assert.deepEqual(reply.body.results[1].values, ['ten chars!'])
  })
})

describe('another project\'s sample rows within the bound', () => {
  test('are read on that project\'s first request, once', async (t) => {
    const server = await serveTwoProjects(t, [1, 2])
    assert.equal(server.fills(), 0, 'not before a request names the project')
    assert.deepEqual((await read(server.url, 'other')).body.results[1].values, ['ten chars!'])
    const filled = server.fills()
    assert.equal((await read(server.url, 'other')).status, 200)
    assert.equal(server.fills(), filled)
  })
})

describe('another project\'s store over the bound, met only by routes that use it, after the permission check', () => {
  let provider: TestProvider
  before(async () => { provider = await startOidcProvider() })
  after(async () => { await provider.close() })

  /** `other` readable only by the role `other-reader`; `home` by `home-reader`. */
  const withOidc = (): Pick<ReferenceServerOptions, 'config' | 'permissions'> => ({
    config: { project: 'home', auth: { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId } },
    permissions: {
      permissionsFor: (project) => [permission({
        name: `${project ?? 'home'}-readers`,
        types: ['FeatureView'],
        actions: ['READ_ONLINE', 'DESCRIBE', 'WRITE_ONLINE'],
        policy: roleBasedPolicy([`${project ?? 'home'}-reader`])
      })]
    }
  })
  const tokenWith = async (roles: string[]): Promise<string> =>
    await provider.issue({ preferred_username: 'pat', resource_access: { [provider.clientId]: { roles } } })

  test('a caller that project\'s permissions refuse gets a 403, not the 507 of its store', async (t) => {
    const server = await serveTwoProjects(t, [1, 2, 3], withOidc())
    const reply = await read(server.url, 'other', await tokenWith(['home-reader']))
    assert.equal(reply.status, 403, JSON.stringify(reply.body))
    assert.equal(server.fills(), 0, 'the store of a project the caller may not act on is not built')
  })

  test('a caller that project\'s permissions allow gets its 507', async (t) => {
    const server = await serveTwoProjects(t, [1, 2, 3], withOidc())
    const reply = await read(server.url, 'other', await tokenWith(['other-reader']))
    assert.equal(reply.status, 507, JSON.stringify(reply.body))
  })

  test('its feature views are listed, and no store is built for the listing', async (t) => {
    const server = await serveTwoProjects(t, [1, 2, 3])
    const reply = await call(server.url, 'GET', '/api/v1/feature_views?project=other')
    assert.equal(reply.status, 200, JSON.stringify(reply.body))
    assert.deepEqual(reply.body.featureViews.map((view: { spec: { name: string } }) => view.spec.name), ['stats'])
    assert.equal(server.fills(), 0)
  })

  test('a caller with no permission there materializing no view (which asks none) builds no store and learns nothing of it', async (t) => {
    const server = await serveTwoProjects(t, [1, 2, 3], withOidc())
    const reply = await call(server.url, 'POST', '/materialize?project=other', { start_ts: '2026-11-01T00:00:00Z', end_ts: '2026-11-02T00:00:00Z', feature_views: [] }, await tokenWith(['home-reader']))
    assert.equal(reply.status, 200, JSON.stringify(reply.body))
    assert.deepEqual(reply.body, { materialized: [] })
    assert.equal(server.fills(), 0, 'materializing nothing fills no store')
  })

  test('materializing it is a 507, as the store it would fill cannot hold its rows', async (t) => {
    const server = await serveTwoProjects(t, [1, 2, 3])
    const reply = await call(server.url, 'POST', '/materialize?project=other', { start_ts: '2026-11-01T00:00:00Z', end_ts: '2026-11-02T00:00:00Z' })
    assert.equal(reply.status, 507, JSON.stringify(reply.body))
  })
})
