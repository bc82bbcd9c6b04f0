/**
 * A request's project (`?project=`), over HTTP: another project's online store is filled on its
 * first request, from a custom catalog's sample rows; rows that do not fit the bound are a 507
 * naming the project and the bound (never a 500), said once in the log, and served once the
 * registry gives rows that fit.
 */
import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { buildReferenceServer } from '../../src/server/app.ts'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
import type { FeatureCatalog } from '../../src/server/catalog.ts'
import { captureLogs, type CapturedLogs } from '../helpers/logs.ts'

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

async function serveTwoProjects (t: TestContext, otherIds: readonly number[]): Promise<TwoProjects> {
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
    pinoLogger: logs.logger,
    onlineStoreMaxBytes: BOUND,
    registry: { ...home, forProject: (name) => name === 'other' ? other : undefined }
  })
  t.after(async () => { await app.close() })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  return { url, logs, fills: () => fills, reload: (ids) => { other = counted(catalogWithRows('other', ids)) } }
}

const READ = { features: ['stats:f'], entities: { id: [2] } }

async function read (url: string, project: string): Promise<{ status: number, body: any }> {
  const response = await fetch(`${url}/get-online-features?project=${project}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(READ)
  })
  return { status: response.status, body: await response.json() }
}

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
