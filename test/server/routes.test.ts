/**
 * The reference feature server over HTTP, with real tokens from a real OpenID provider and the
 * sample permissions and registry of fixtures/server/: every route, each outcome (200, 401,
 * 403), and malformed bodies (4xx with a message, never 500).
 */
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { permission, roleBasedPolicy } from '../../src/permissions/index.ts'
import { buildReferenceServer, type ReferenceServerOptions } from '../../src/server/app.ts'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
import { catalogFromSnapshot } from '../../src/server/catalog.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'

const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/server/${name}`, import.meta.url))

let provider: TestProvider
const servers: FastifyInstance[] = []
const tokens: Record<'reader' | 'writer' | 'nobody', string> = { reader: '', writer: '', nobody: '' }

async function startServer (permissions: NonNullable<ReferenceServerOptions['permissions']>, options: ReferenceServerOptions = {}): Promise<string> {
  const app = await buildReferenceServer({
    config: { project: 'driver_ranking', auth: { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId } },
    permissions,
    registry: loadYamlCatalogFile(fixture('registry.yaml')),
    ...options
  })
  servers.push(app)
  return await app.listen({ host: '127.0.0.1', port: 0 })
}

let url: string
before(async () => {
  // The provider is started here, not by the OIDC-app fixture: the reference server (buildReferenceServer), not the plugin test app.
  provider = await startOidcProvider()
  const withRoles = (username: string, roles: string[]) => ({ preferred_username: username, resource_access: { [provider.clientId]: { roles } } })
  tokens.reader = await provider.issue(withRoles('rita', ['reader']))
  tokens.writer = await provider.issue(withRoles('walt', ['writer']))
  tokens.nobody = await provider.issue(withRoles('nora', []))
  url = await startServer(fixture('permissions.yaml'))
})

after(async () => {
  for (const app of servers) await app.close()
  await provider.close()
})

interface Reply { status: number, headers: Headers, body: any, text: string }

async function call (base: string, method: 'GET' | 'POST', path: string, who: keyof typeof tokens | undefined, body?: unknown, raw?: string): Promise<Reply> {
  const headers: Record<string, string> = {}
  if (who !== undefined) headers.authorization = `Bearer ${tokens[who]}`
  if (body !== undefined || raw !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${base}${path}`, { method, headers, ...(raw !== undefined ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text), text }
}
const get = async (path: string, who?: keyof typeof tokens) => await call(url, 'GET', path, who)
const post = async (path: string, who: keyof typeof tokens | undefined, body?: unknown) => await call(url, 'POST', path, who, body)

const SERVICE_READ = { feature_service: 'driver_activity', entities: { driver_id: [1001, 1999] } }
const HANDOVER = { feature_service: 'driver_handover', full_feature_names: true }
const PUSH = { push_source_name: 'driver_stats_push', to: 'online', df: { driver_id: [1500], conv_rate: [0.25], trips_today: [4], event_timestamp: ['2026-11-20T08:00:00Z'] } }
const WRITE = { feature_view_name: 'driver_hourly_stats', df: { driver_id: [1600], conv_rate: [0.33], acc_rate: [0.5] } }

describe('GET /health', () => {
  test('is open: 200 without a token, a YAML registry read at startup being current', async () => {
    const reply = await get('/health')
    assert.equal(reply.status, 200)
    assert.equal(reply.body.status, 'ok')
    assert.equal(reply.body.registry, 'current')
  })
})

describe('POST /get-online-features', () => {
  test('with a feature service, a reader gets the values in Feast\'s response shape', async () => {
    const reply = await post('/get-online-features', 'reader', SERVICE_READ)
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.body, {
      metadata: { feature_names: ['driver_id', 'conv_rate', 'acc_rate', 'conv_rate_plus_acc'] },
      results: [
        { values: [1001, 1999], statuses: ['PRESENT', 'PRESENT'], event_timestamps: ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'] },
        { values: [0.52, null], statuses: ['PRESENT', 'NOT_FOUND'], event_timestamps: ['2026-11-01T10:00:00Z', '1970-01-01T00:00:00Z'] },
        { values: [0.91, null], statuses: ['PRESENT', 'NOT_FOUND'], event_timestamps: ['2026-11-01T10:00:00Z', '1970-01-01T00:00:00Z'] },
        { values: [1.43, null], statuses: ['PRESENT', 'NOT_FOUND'], event_timestamps: ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'] }
      ]
    })
  })

  test('with feature references and full_feature_names, names are view__feature', async () => {
    const reply = await post('/get-online-features', 'reader', { features: ['driver_hourly_stats:avg_daily_trips', 'driver_live_stats:trips_today'], entities: { driver_id: [1001] }, full_feature_names: true })
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.body.metadata.feature_names, ['driver_id', 'driver_hourly_stats__avg_daily_trips', 'driver_live_stats__trips_today'])
    assert.deepEqual(reply.body.results.map((column: { values: unknown[] }) => column.values), [[1001], [14], [3]])
  })

  test('full_feature_names takes what Feast\'s pydantic model reads as a boolean: words in any case, 1 and 0', async () => {
    const features = ['driver_live_stats:trips_today']
    for (const [flag, name] of [['yes', 'driver_live_stats__trips_today'], ['TRUE', 'driver_live_stats__trips_today'], [1, 'driver_live_stats__trips_today'], ['off', 'trips_today'], [0, 'trips_today']] as const) {
      const reply = await post('/get-online-features', 'reader', { features, entities: { driver_id: [1001] }, full_feature_names: flag })
      assert.equal(reply.status, 200, `${JSON.stringify(flag)}: ${JSON.stringify(reply.body)}`)
      assert.deepEqual(reply.body.metadata.feature_names, ['driver_id', name], JSON.stringify(flag))
    }
  })

  test('a full_feature_names that is no boolean to Feast either (null, 2, "maybe", a list) is 422', async () => {
    for (const flag of [null, 2, 'maybe', ' true', [true]]) {
      const reply = await post('/get-online-features', 'reader', { features: ['driver_live_stats:trips_today'], entities: { driver_id: [1001] }, full_feature_names: flag })
      assert.equal(reply.status, 422, `${JSON.stringify(flag)}: ${JSON.stringify(reply.body)}`)
      assert.match(reply.body.message, /^"full_feature_names" must be true or false \(or 1, 0, "yes"/)
    }
  })

  test('a feature service renaming a join key reads the view from the columns it names, answered under their names', async () => {
    const reply = await post('/get-online-features', 'reader', { ...HANDOVER, entities: { outgoing_driver_id: [1001], incoming_driver_id: [1002] } })
    assert.equal(reply.status, 200, JSON.stringify(reply.body))
    assert.deepEqual(reply.body.metadata.feature_names, ['outgoing_driver_id', 'incoming_driver_id', 'outgoing__conv_rate', 'incoming__conv_rate'])
    assert.deepEqual(reply.body.results.map((column: { values: unknown[] }) => column.values), [[1001], [1002], [0.52], [0.37]])
  })

  test('a renamed join key column missing is 422 naming it and the service renaming it; without roles, 403', async () => {
    const reply = await post('/get-online-features', 'reader', { ...HANDOVER, entities: { outgoing_driver_id: [1001], driver: [1002] } })
    assert.equal(reply.status, 422)
    assert.match(reply.body.message, /^entities has no column "incoming_driver_id", the join key "driver_id" of feature view "driver_hourly_stats" renamed by the join_key_map of its projection "incoming" in feature service "driver_handover" /)
    const denied = await post('/get-online-features', 'nobody', { ...HANDOVER, entities: { outgoing_driver_id: [1001] } })
    assert.equal(denied.status, 403)
    assert.equal(denied.body.message, 'Permission denied: [READ_ONLINE] on FeatureService:driver_handover')
  })

  test('a user without roles gets 403', async () => {
    const reply = await post('/get-online-features', 'nobody', SERVICE_READ)
    assert.equal(reply.status, 403)
    assert.equal(reply.body.message, 'Permission denied: [READ_ONLINE] on FeatureService:driver_activity')
  })

  test('without a token: 401 with a Bearer challenge, before the body is looked at', async () => {
    const reply = await call(url, 'POST', '/get-online-features', undefined, undefined, '{not json')
    assert.equal(reply.status, 401)
    assert.equal(reply.headers.get('www-authenticate'), 'Bearer realm="feast"')
  })

  test('an unknown feature view is 404 naming it', async () => {
    const reply = await post('/get-online-features', 'reader', { features: ['nope:x'], entities: { driver_id: [1] } })
    assert.equal(reply.status, 404)
    assert.match(reply.body.message, /feature view "nope" is not in the registry/)
  })

  test('with both features and feature_service, the service is read and the features are ignored, as by Feast', async () => {
    const both = await post('/get-online-features', 'reader', { ...SERVICE_READ, features: ['nope:x'] })
    assert.equal(both.status, 200)
    assert.deepEqual(both.body, (await post('/get-online-features', 'reader', SERVICE_READ)).body)
  })

  test('a body without entities is 422 naming the missing property', async () => {
    const reply = await post('/get-online-features', 'reader', { feature_service: 'driver_activity' })
    assert.equal(reply.status, 422)
    assert.match(reply.body.message, /entities/)
  })

  test('features given as a string, not a list, is 422 (no silent coercion)', async () => {
    const reply = await post('/get-online-features', 'reader', { features: 'driver_hourly_stats:conv_rate', entities: { driver_id: [1001] } })
    assert.equal(reply.status, 422)
  })

  test('entity columns of different lengths are 422', async () => {
    const reply = await post('/get-online-features', 'reader', { features: ['driver_hourly_stats:conv_rate'], entities: { driver_id: [1001, 1002], other: [1] } })
    assert.equal(reply.status, 422)
    assert.match(reply.body.message, /same length/)
  })

  test('a body that is not JSON is 400 with a message', async () => {
    const reply = await call(url, 'POST', '/get-online-features', 'reader', undefined, '{"features": [')
    assert.equal(reply.status, 400)
    assert.match(reply.body.message, /JSON/)
  })
})

describe('POST /push', () => {
  test('a writer pushes to the online store and the rows are then served', async () => {
    const reply = await post('/push', 'writer', PUSH)
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.body.feature_views, ['driver_hourly_stats', 'driver_live_stats'])
    const read = await post('/get-online-features', 'reader', { features: ['driver_hourly_stats:conv_rate'], entities: { driver_id: [1500] } })
    assert.deepEqual(read.body.results[1], { values: [0.25], statuses: ['PRESENT'], event_timestamps: ['2026-11-20T08:00:00Z'] })
  })

  test('pushed join keys that differ only beyond 2^53 are two rows in every view fed, each answered its own', async () => {
    // 2^62 + 1 and 2^62 + 2: JSON.parse reads both as 2^62.
    const pushed = await call(url, 'POST', '/push', 'writer', undefined, '{"push_source_name": "driver_stats_push", "df": {"driver_id": [4611686018427387905, 4611686018427387906], "conv_rate": [0.1, 0.2], "trips_today": [1, 2]}}')
    assert.equal(pushed.status, 200, pushed.text)
    const read = await call(url, 'POST', '/get-online-features', 'reader', undefined, '{"features": ["driver_hourly_stats:conv_rate", "driver_live_stats:trips_today"], "entities": {"driver_id": [4611686018427387906, 4611686018427387905]}}')
    assert.deepEqual(read.body.results.slice(1).map((column: { values: unknown[] }) => column.values), [[0.2, 0.1], [2, 1]])
    assert.ok(read.text.includes('{"values":[4611686018427387906,4611686018427387905],'), read.text)
  })

  test('a reader gets 403 on the first view fed by the push source', async () => {
    const reply = await post('/push', 'reader', PUSH)
    assert.equal(reply.status, 403)
    assert.equal(reply.body.message, 'Permission denied: [WRITE_ONLINE] on FeatureView:driver_hourly_stats')
  })

  test('to=offline asks for WRITE_OFFLINE', async () => {
    const reply = await post('/push', 'reader', { ...PUSH, to: 'offline' })
    assert.equal(reply.status, 403)
    assert.match(reply.body.message, /\[WRITE_OFFLINE\]/)
    assert.equal((await post('/push', 'writer', { ...PUSH, to: 'offline' })).status, 200)
  })

  test('without a token: 401', async () => {
    assert.equal((await post('/push', undefined, PUSH)).status, 401)
  })

  test('an unknown "to" is 422 naming the accepted values, not 500', async () => {
    const reply = await post('/push', 'writer', { ...PUSH, to: 'everywhere' })
    assert.equal(reply.status, 422)
    assert.equal(reply.body.message, '"to" must be one of online, offline, online_and_offline, got "everywhere"')
  })

  test('an unknown push source is 422, as Feast answers it', async () => {
    assert.equal((await post('/push', 'writer', { ...PUSH, push_source_name: 'nope' })).status, 422)
  })

  test('a data frame without the join key is 422', async () => {
    const reply = await post('/push', 'writer', { ...PUSH, df: { conv_rate: [0.1] } })
    assert.equal(reply.status, 422)
    assert.match(reply.body.message, /join key/)
  })

  test('a bad event timestamp is 422, not 500', async () => {
    const reply = await post('/push', 'writer', { ...PUSH, df: { ...PUSH.df, event_timestamp: ['yesterday'] } })
    assert.equal(reply.status, 422)
  })
})

describe('POST /write-to-online-store', () => {
  test('a writer writes rows', async () => {
    const reply = await post('/write-to-online-store', 'writer', WRITE)
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.body, { feature_view_name: 'driver_hourly_stats', rows: 1 })
  })

  test('a reader gets 403', async () => {
    assert.equal((await post('/write-to-online-store', 'reader', WRITE)).status, 403)
  })

  test('without a token: 401', async () => {
    assert.equal((await post('/write-to-online-store', undefined, WRITE)).status, 401)
  })

  test('allow_registry_cache and transform_on_write take what Feast reads as booleans; anything else is 422', async () => {
    for (const path of ['/write-to-online-store', '/push'] as const) {
      const body = path === '/push' ? PUSH : WRITE
      const accepted = await post(path, 'writer', { ...body, allow_registry_cache: 'false', transform_on_write: 0 })
      assert.equal(accepted.status, 200, `${path}: ${JSON.stringify(accepted.body)}`)
      const refused = await post(path, 'writer', { ...body, allow_registry_cache: 'nah' })
      assert.equal(refused.status, 422, `${path}: ${JSON.stringify(refused.body)}`)
      assert.match(refused.body.message, /^body\/allow_registry_cache must be true or false/)
    }
  })

  test('an unknown view is 404 and a missing df is 422', async () => {
    assert.equal((await post('/write-to-online-store', 'writer', { ...WRITE, feature_view_name: 'nope' })).status, 404)
    assert.equal((await post('/write-to-online-store', 'writer', { feature_view_name: 'driver_hourly_stats' })).status, 422)
  })
})

describe('POST /materialize and /materialize-incremental', () => {
  test('a writer materializes every view with an online table', async () => {
    const reply = await post('/materialize', 'writer', { start_ts: '2026-11-01T00:00:00Z', end_ts: '2026-11-02T00:00:00Z' })
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.body, { materialized: ['driver_hourly_stats', 'driver_live_stats', 'experimental_scores'] })
  })

  test('a reader gets 403 on /materialize', async () => {
    assert.equal((await post('/materialize', 'reader', { start_ts: '2026-11-01T00:00:00Z', end_ts: '2026-11-02T00:00:00Z' })).status, 403)
  })

  test('a writer materializes named views incrementally; a reader gets 403', async () => {
    const body = { end_ts: '2026-11-02T00:00:00Z', feature_views: ['driver_hourly_stats'] }
    const reply = await post('/materialize-incremental', 'writer', body)
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.body, { materialized: ['driver_hourly_stats'] })
    assert.equal((await post('/materialize-incremental', 'reader', body)).status, 403)
  })

  test('without a token: 401', async () => {
    assert.equal((await post('/materialize-incremental', undefined, { end_ts: '2026-11-02T00:00:00Z' })).status, 401)
  })

  test('a timestamp that is not a date is 422', async () => {
    assert.equal((await post('/materialize', 'writer', { start_ts: 'soon', end_ts: '2026-11-02T00:00:00Z' })).status, 422)
  })

  test('materializing an on-demand view the writer may not write is 403, before saying it cannot be materialized', async () => {
    assert.equal((await post('/materialize-incremental', 'writer', { end_ts: '2026-11-02T00:00:00Z', feature_views: ['driver_transforms'] })).status, 403)
  })
})

describe('GET /api/v1/feature_views', () => {
  const names = (reply: Reply): string[] => reply.body.featureViews.map((view: { spec: { name: string } }) => view.spec.name)

  test('a reader sees the views its name-scoped DESCRIBE permission allows', async () => {
    const reply = await get('/api/v1/feature_views', 'reader')
    assert.equal(reply.status, 200)
    assert.deepEqual(names(reply), ['driver_hourly_stats', 'driver_live_stats', 'driver_transforms'])
  })

  test('a writer also sees the experimental view', async () => {
    assert.deepEqual(names(await get('/api/v1/feature_views', 'writer')), ['driver_hourly_stats', 'driver_live_stats', 'driver_transforms', 'experimental_scores'])
  })

  test('a user without roles gets an empty list: name-scoped denials hide, they do not refuse', async () => {
    const reply = await get('/api/v1/feature_views', 'nobody')
    assert.equal(reply.status, 200)
    assert.deepEqual(names(reply), [])
  })

  test('without a token: 401', async () => {
    assert.equal((await get('/api/v1/feature_views')).status, 401)
  })

  test('another project is 404', async () => {
    assert.equal((await get('/api/v1/feature_views?project=other', 'reader')).status, 404)
  })

  test('Feast\'s query filters are not read: ?entity= and ?feature_service= list every view the caller may describe', async () => {
    const reply = await get('/api/v1/feature_views?entity=nobody_has_it&feature_service=nope&page=2&limit=1', 'reader')
    assert.equal(reply.status, 200, JSON.stringify(reply.body))
    assert.deepEqual(names(reply), ['driver_hourly_stats', 'driver_live_stats', 'driver_transforms'])
  })
})

describe('rules that need other permissions', () => {
  let other: string
  before(async () => {
    other = await startServer([
      permission({ name: 'online-writers', types: ['FeatureView'], actions: ['WRITE_ONLINE'], policy: roleBasedPolicy(['writer']) }),
      permission({ name: 'offline-writers', types: ['FeatureView'], actions: ['WRITE_OFFLINE'], policy: roleBasedPolicy(['writer']) }),
      permission({ name: 'describers', types: ['FeatureView'], actions: ['DESCRIBE'], policy: roleBasedPolicy(['writer']) })
    ])
  })

  test('online_and_offline needs one permission covering both writes: two permissions do not combine', async () => {
    assert.equal((await call(other, 'POST', '/push', 'writer', PUSH)).status, 200)
    const both = await call(other, 'POST', '/push', 'writer', { ...PUSH, to: 'online_and_offline' })
    assert.equal(both.status, 403)
    assert.equal(both.body.message, 'Permission denied: [WRITE_OFFLINE, WRITE_ONLINE] on FeatureView:driver_hourly_stats')
  })

  test('listing is refused with 403 when the denying permission is not scoped by name', async () => {
    const reply = await call(other, 'GET', '/api/v1/feature_views', 'reader')
    assert.equal(reply.status, 403)
  })
})

describe('a full online store', () => {
  // Small, so the test holds kilobytes: the default bound (64 MiB) is checked in online-store.test.ts.
  const FULL_BOUND = 10_000
  let full: string
  before(async () => {
    const views = loadYamlCatalogFile({
      yaml: 'project: driver_ranking\nfeature_views:\n' + ['a', 'b'].map((name) => `  - {name: ${name}, entities: [id], features: [f], push_source: both}\n`).join(''),
      source: 'registry.yaml'
    }).featureViews()
    // One sample row fills the store's bound to within 667 bytes: a row of `value` counts 338.
    const sampleRows = { a: [{ id: 0, f: 'x'.repeat(FULL_BOUND - 1000) }] }
    const app = await buildReferenceServer({
      onlineStoreMaxBytes: FULL_BOUND,
      config: { project: 'driver_ranking', auth: { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId } },
      permissions: [permission({ name: 'writers', types: ['FeatureView'], actions: ['WRITE_ONLINE', 'READ_ONLINE'], policy: roleBasedPolicy(['writer']) })],
      registry: catalogFromSnapshot({ project: 'driver_ranking', featureViews: views, featureServices: [], sampleRows })
    })
    servers.push(app)
    full = await app.listen({ host: '127.0.0.1', port: 0 })
  })
  const readRow = async (view: string, id: number): Promise<unknown> =>
    (await call(full, 'POST', '/get-online-features', 'writer', { features: [`${view}:f`], entities: { id: [id] } })).body.results[1].statuses[0]

  test('a push that would pass the bound is a 507 saying which bound, and writes no view, though one would fit', async () => {
    const reply = await call(full, 'POST', '/push', 'writer', { push_source_name: 'both', df: { id: [1], f: ['value'] } })
    assert.equal(reply.status, 507)
    assert.equal(reply.body.code, 'insufficient_storage')
    assert.equal(reply.body.error, 'Insufficient Storage')
    assert.match(reply.body.message, /^the online store is full: this write would take it to 10,009 bytes, over its bound of 10,000 \(createOnlineStore's maxBytes/)
    assert.deepEqual([await readRow('a', 1), await readRow('b', 1)], ['NOT_FOUND', 'NOT_FOUND'])
  })

  test('overwriting a stored row with a smaller one passes when full, and makes room for the push', async () => {
    const write = await call(full, 'POST', '/write-to-online-store', 'writer', { feature_view_name: 'a', df: { id: [0], f: ['small'] } })
    assert.equal(write.status, 200)
    assert.equal((await call(full, 'POST', '/push', 'writer', { push_source_name: 'both', df: { id: [1], f: ['value'] } })).status, 200)
    assert.deepEqual([await readRow('a', 1), await readRow('b', 1)], ['PRESENT', 'PRESENT'])
  })
})

describe('bounds set by the server\'s options', () => {
  test('onlineStoreMaxBytes bounds the store: a write past it is a 507 naming the option', async () => {
    const bounded = await startServer(fixture('permissions.yaml'), { onlineStoreMaxBytes: 20_000 })
    // The sample rows take a few KB; 100 rows of three numeric features about 43 KB more.
    const column = (value: number): number[] => Array(100).fill(value)
    const df = { driver_id: Array.from({ length: 100 }, (_, i) => 5000 + i), conv_rate: column(0.5), acc_rate: column(0.5), avg_daily_trips: column(7) }
    const reply = await call(bounded, 'POST', '/write-to-online-store', 'writer', { feature_view_name: 'driver_hourly_stats', df })
    assert.equal(reply.status, 507, reply.text)
    assert.match(reply.body.message, /over its bound of 20,000 \(createOnlineStore's maxBytes, the reference server's onlineStoreMaxBytes or feast-authz serve --online-store-max-bytes;/)
  })

  test('maxAnsweredValues bounds an answer: a read past it is a 422 saying how to raise the bound', async () => {
    const bounded = await startServer(fixture('permissions.yaml'), { maxAnsweredValues: 10 })
    const reply = await call(bounded, 'POST', '/get-online-features', 'reader', { ...SERVICE_READ, entities: { driver_id: [1001, 1002, 1003] } })
    assert.equal(reply.status, 422)
    assert.equal(reply.body.message, 'the answer would hold 3 rows × 4 columns = 12 values, more than the 10 one answer holds: send the entity rows in several requests, ' +
      'or raise the bound (readFeatures\'s maxAnsweredValues, the reference server\'s maxAnsweredValues or feast-authz serve --max-answered-values)')
  })

  test('a read within maxAnsweredValues is answered', async () => {
    const bounded = await startServer(fixture('permissions.yaml'), { maxAnsweredValues: 8 })
    const reply = await call(bounded, 'POST', '/get-online-features', 'reader', SERVICE_READ)
    assert.equal(reply.status, 200, reply.text)
    assert.equal(reply.body.results.length, 4)
  })
})

describe('request bodies an attacker shapes', () => {
  // Sent by hand: `call` always labels a body application/json.
  const send = async (contentType: string, body: string): Promise<Reply> => {
    const response = await fetch(`${url}/get-online-features`, { method: 'POST', headers: { authorization: `Bearer ${tokens.reader}`, 'content-type': contentType }, body })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: JSON.parse(text), text }
  }

  test('a JSON body sent as text/plain is 415, not parsed as a string and answered 422', async () => {
    const reply = await send('text/plain', JSON.stringify(SERVICE_READ))
    assert.equal(reply.status, 415)
    assert.equal(reply.body.error, 'Unsupported Media Type')
    assert.match(reply.body.message, /application\/json/)
  })

  test('a form-encoded body (curl -d without a Content-Type of its own) is 415', async () => {
    assert.equal((await send('application/x-www-form-urlencoded', JSON.stringify(SERVICE_READ))).status, 415)
  })

  test('a JSON body without Content-Type is read as JSON, as Feast reads it (requests.post with data= sends none)', async () => {
    const response = await fetch(`${url}/get-online-features`, {
      method: 'POST', headers: { authorization: `Bearer ${tokens.reader}` }, body: new Blob([JSON.stringify(SERVICE_READ)])
    })
    assert.equal(response.headers.get('content-type')?.startsWith('application/json'), true)
    assert.equal(response.status, 200)
  })

  test('a JSON body labelled application/<name>+json is read as JSON, as Feast reads it', async () => {
    assert.equal((await send('application/vnd.feast+json', JSON.stringify(SERVICE_READ))).status, 200)
    assert.equal((await send('application/vnd.feast+json; charset=utf-8', JSON.stringify(SERVICE_READ))).status, 200)
    const utf16 = await send('application/vnd.feast+json; charset=utf-16', JSON.stringify(SERVICE_READ))
    assert.equal(utf16.status, 415)
    assert.match(utf16.body.message, /UTF-8/)
  })

  test('a body without Content-Type is still checked as JSON: invalid JSON is a 400', async () => {
    const response = await fetch(`${url}/get-online-features`, { method: 'POST', headers: { authorization: `Bearer ${tokens.reader}` }, body: new Blob(['{"feature_service": ']) })
    assert.equal(response.status, 400)
  })

  test('a JSON body labelled with a charset other than UTF-8 is 415, since a proxy reading it in that charset sees another body', async () => {
    const reply = await send('application/json; charset=utf-16', JSON.stringify(SERVICE_READ))
    assert.equal(reply.status, 415)
    assert.match(reply.body.message, /UTF-8/)
  })

  test('a JSON body labelled UTF-8, in any spelling, is read', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'Application/JSON; Charset=utf8']) {
      assert.equal((await send(contentType, JSON.stringify(SERVICE_READ))).status, 200, contentType)
    }
  })

  test('a body with a __proto__ or constructor.prototype key is a 400, never a 500', async () => {
    for (const body of ['{"__proto__": {"admin": true}, "feature_service": "driver_activity", "entities": {"driver_id": [1001]}}',
      '{"constructor": {"prototype": {"admin": true}}, "feature_service": "driver_activity", "entities": {"driver_id": [1001]}}']) {
      const reply = await send('application/json', body)
      assert.equal(reply.status, 400, body)
      assert.equal(reply.body.code, 'FST_ERR_CTP_INVALID_JSON_BODY')
    }
  })

  test('a key given twice counts with its last value, as in Python\'s json, for the check and the read alike', async () => {
    const reply = await send('application/json', '{"feature_service": "driver_activity", "feature_service": "nope", "entities": {"driver_id": [1001]}}')
    assert.equal(reply.status, 404)
    assert.match(reply.body.message, /feature service "nope"/)
  })

  test('a read whose answer would hold more values than the server answers is 422, before the answer is built', async () => {
    // 30,000 rows of a service answering 4 columns: 60 KB sent, 120,000 values to answer.
    const reply = await send('application/json', `{"feature_service": "driver_activity", "entities": {"driver_id": [${'0,'.repeat(29_999)}0]}}`)
    assert.equal(reply.status, 422)
    assert.match(reply.body.message, /30000 rows × 4 columns = 120000 values, more than the 100000/)
  })

  test('a body over the limit is 413, read or not', async () => {
    const reply = await send('application/json', `{"entities": {"driver_id": [${'1,'.repeat(600_000)}1]}}`)
    assert.equal(reply.status, 413)
  })
})

describe('the Authorization header an attacker shapes', () => {
  // Each is refused with a 401 and a well-formed challenge that repeats nothing of what was sent.
  const hostile: ReadonlyArray<readonly [string, string, string]> = [
    ['the scheme alone', 'Bearer', 'missing_token'],
    ['another scheme', 'Basic cmVhZGVyOnNlY3JldA==', 'missing_token'],
    ['a tab after the scheme', 'Bearer\tXSRFcanary', 'missing_token'],
    ['two credentials joined by a comma', 'Bearer XSRFcanary, Bearer other', 'malformed_header'],
    ['two tokens', 'Bearer XSRFcanary other', 'malformed_header'],
    ['a quote and a latin-1 byte in the token', 'Bearer XSRF"canary\u00e9', 'malformed_header'],
    ['a token of 16,000 characters, under Node\'s header limit', `Bearer XSRFcanary${'a'.repeat(16_000)}`, 'token_too_long']
  ]
  for (const [what, authorization, code] of hostile) {
    test(`${what}: 401 ${code}, with a challenge that echoes nothing`, async () => {
      const response = await fetch(`${url}/get-online-features`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(SERVICE_READ) })
      assert.equal(response.status, 401)
      assert.equal((await response.json() as { code: string }).code, code)
      const challenge = response.headers.get('www-authenticate') ?? ''
      assert.match(challenge, /^Bearer realm="feast"(, error="invalid_token", error_description="[\x20\x21\x23-\x5b\x5d-\x7e]*")?$/)
      assert.doesNotMatch(challenge, /XSRF|canary|cmVhZGVy/)
    })
  }

  test('a header over Node\'s limit is a 431 from the HTTP parser, never a 500', async () => {
    const response = await fetch(`${url}/get-online-features`, { method: 'POST', headers: { authorization: `Bearer ${'a'.repeat(17_000)}` } })
    assert.equal(response.status, 431)
  })

  test('a 403 carries RFC 6750\'s insufficient_scope challenge and no description', async () => {
    const reply = await post('/get-online-features', 'nobody', SERVICE_READ)
    assert.equal(reply.status, 403)
    assert.equal(reply.headers.get('www-authenticate'), 'Bearer realm="feast", error="insufficient_scope"')
  })
})
