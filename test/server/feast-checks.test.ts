/**
 * The reference server checks at least what Feast's feature server checks, in the same order
 * (issue 17): on-demand views and their sources, 403 before anything about a resource is
 * revealed, scalar entity values, Feast's default materialization set and registry listing. Over
 * HTTP, with real tokens; the same get-online-features cases run against the Express example
 * (test/cross-cutting/docs/express-example.test.ts).
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
import { defineReadChecks, useReferenceServer, nestedList, postAs, type User } from '../helpers/feast-checks.ts'

const served = useReferenceServer((store) => ({ registry: loadYamlCatalogFile(store.registry) }))

const post = async (user: User, path: string, body: unknown) => await postAs(served.base, served.tokens[user], path, body)

/** A write the writer is refused with a 422 and `message`, and the reader with a 403 (the permission is checked first). */
async function assertWriteRefused (body: unknown, message: string | RegExp): Promise<void> {
  const allowed = await post('writer', '/write-to-online-store', body)
  assert.equal(allowed.status, 422, allowed.text)
  if (typeof message === 'string') assert.equal(allowed.body.message, message)
  else assert.match(allowed.body.message, message)
  assert.equal((await post('reader', '/write-to-online-store', body)).status, 403)
}

describe('Fastify reference server: POST /get-online-features checks what Feast checks, in Feast\'s order', () => {
  for (const [name, check] of Object.entries(defineReadChecks(() => served))) test(name, check)
})

describe('Fastify reference server: the order of the answers', () => {
  test('the body\'s JSON types come before the project is looked up: 422, then 404 for an unknown project', async () => {
    assert.equal((await post('reader', '/get-online-features?project=nope', { features: 'x', entities: {} })).status, 422)
    const unknown = await post('reader', '/get-online-features?project=nope', { features: ['credit_history:credit_card_due'], entities: { dob_ssn: ['1'] } })
    assert.equal(unknown.status, 404)
    assert.match(unknown.body.message, /project "nope" is not in the registry/)
  })
})

describe('Fastify reference server: data frames', () => {
  test('a join key value that is a list is 422 for a caller who may write, 403 for one who may not', async () => {
    const body = { feature_view_name: 'credit_history', df: { dob_ssn: [['19530219_5179']], credit_card_due: [1] } }
    await assertWriteRefused(body, /df\.dob_ssn\[0\] must be a string, finite number, boolean or null \(a join key of feature view "credit_history"\), got a list$/)
  })

  test('a join key value JSON reads as infinite is 422 naming the column and the row, not a row stored under null\'s key', async () => {
    const body = '{"feature_view_name": "credit_history", "df": {"dob_ssn": ["1", 1e400], "credit_card_due": [1, 2]}}'
    await assertWriteRefused(body, 'df.dob_ssn[1] must be a string, finite number, boolean or null (a join key of feature view "credit_history"), got a number beyond ±1.8e308 (Infinity)')
    const read = await post('reader', '/get-online-features', { features: ['credit_history:credit_card_due'], entities: { dob_ssn: [null] } })
    assert.deepEqual(read.body.results[1].statuses, ['NOT_FOUND'])
  })

  test('a feature value JSON reads as infinite is 422 naming the column and the row, and nothing of the frame is stored', async () => {
    const body = '{"feature_view_name": "credit_history", "df": {"dob_ssn": ["infinite_0", "infinite_1"], "credit_card_due": [1, 1e400]}}'
    await assertWriteRefused(body, 'df.credit_card_due[1] must hold only finite numbers (a feature of feature view "credit_history"), got a number beyond ±1.8e308 (Infinity)')
    const read = await post('reader', '/get-online-features', { features: ['credit_history:credit_card_due'], entities: { dob_ssn: ['infinite_0', 'infinite_1'] } })
    assert.deepEqual(read.body.results[1].statuses, ['NOT_FOUND', 'NOT_FOUND'])
  })

  test('a number JSON reads as infinite inside a feature\'s list or map is 422 too', async () => {
    for (const [value, read] of [['[1, -1e400]', '-Infinity'], ['{"a": [1e400]}', 'Infinity']] as const) {
      const reply = await post('writer', '/write-to-online-store', `{"feature_view_name": "credit_history", "df": {"dob_ssn": ["1"], "missed_payments": [${value}]}}`)
      assert.equal(reply.status, 422, reply.text)
      assert.equal(reply.body.message, `df.missed_payments[0] must hold only finite numbers (a feature of feature view "credit_history"), got a number beyond ±1.8e308 (${read})`)
    }
  })

  test('a number JSON reads as infinite in a column that is no feature of the view is not judged: it is not stored', async () => {
    const reply = await post('writer', '/write-to-online-store', '{"feature_view_name": "credit_history", "df": {"dob_ssn": ["1"], "credit_card_due": [2], "not_a_feature": [1e400]}}')
    assert.equal(reply.status, 200, reply.text)
  })

  test('two join keys that differ only beyond 2^53 are written to two rows, and each read answers its own', async () => {
    // 2^60 + 1 and 2^60 + 2: JSON.parse reads both as 2^60.
    const written = await post('writer', '/write-to-online-store', '{"feature_view_name": "zipcode_features", "df": {"zipcode": [1152921504606846977, 1152921504606846978], "population": [1, 2]}}')
    assert.equal(written.status, 200, written.text)
    const read = await post('reader', '/get-online-features', '{"features": ["zipcode_features:population"], "entities": {"zipcode": [1152921504606846978, 1152921504606846977, 1152921504606846976]}}')
    assert.equal(read.status, 200, read.text)
    assert.deepEqual(read.body.results[1].values, [2, 1, null])
    assert.ok(read.text.includes('{"values":[1152921504606846978,1152921504606846977,1152921504606846976],'), read.text)
  })

  test('feature values beyond 2^53 are stored and answered exactly, at any depth, as Feast stores an int64', async () => {
    const written = await post('writer', '/write-to-online-store', '{"feature_view_name": "credit_history", "df": {"dob_ssn": ["exact"], ' +
      '"credit_card_due": [1234567890123456789], "missed_payments": [[9007199254740993, {"a": -9223372036854775808}]]}}')
    assert.equal(written.status, 200, written.text)
    const read = await post('reader', '/get-online-features', { features: ['credit_history:credit_card_due', 'credit_history:missed_payments'], entities: { dob_ssn: ['exact'] } })
    assert.equal(read.status, 200, read.text)
    assert.ok(read.text.includes('{"values":[1234567890123456789],'), read.text)
    assert.ok(read.text.includes('{"values":[[9007199254740993,{"a":-9223372036854775808}]],'), read.text)
  })

  test('a join key beyond int64 is 422 naming the column and the row for a caller who may write, 403 for one who may not', async () => {
    const body = '{"feature_view_name": "zipcode_features", "df": {"zipcode": [1, -9223372036854775809], "population": [1, 2]}}'
    await assertWriteRefused(body, 'df.zipcode[1] must be a string, finite number, boolean or null (a join key of feature view "zipcode_features"), got an integer beyond int64 (-9223372036854775808 to 9223372036854775807)')
  })

  test('an integer beyond int64 in a feature value is 422 naming its place, as Feast cannot write it', async () => {
    const reply = await post('writer', '/write-to-online-store', '{"feature_view_name": "credit_history", "df": {"dob_ssn": ["x"], "missed_payments": [[1, {"a": 9223372036854775808}]]}}')
    assert.equal(reply.status, 422, reply.text)
    assert.equal(reply.body.message, 'df.missed_payments[0][1].a is an integer beyond int64 (-9223372036854775808 to 9223372036854775807), which Feast cannot write')
  })

  test('feature values may be lists and maps (Feast\'s collection types) and are read back as written', async () => {
    const written = await post('writer', '/write-to-online-store', { feature_view_name: 'credit_history', df: { dob_ssn: ['1'], credit_card_due: [[1, 2]], missed_payments: [{ a: [1] }] } })
    assert.equal(written.status, 200, written.text)
    const read = await post('reader', '/get-online-features', { features: ['credit_history:credit_card_due', 'credit_history:missed_payments'], entities: { dob_ssn: ['1'] } })
    assert.deepEqual(read.body.results.slice(1).map((column: { values: unknown[] }) => column.values), [[[1, 2]], [{ a: [1] }]])
  })

  test('data frame values may nest 32 levels (Feast\'s JSON values), not 33', async () => {
    const write = async (depth: number) => await post('writer', '/write-to-online-store', `{"feature_view_name":"credit_history","df":{"dob_ssn":["1"],"credit_card_due":[${nestedList(depth)}]}}`)
    assert.equal((await write(32)).status, 200)
    const deeper = await write(33)
    assert.equal(deeper.status, 422, deeper.text)
    assert.equal(deeper.body.message, 'df.credit_card_due: a value nests more than 32 levels deep')
  })

  test('a value nested 10,000 levels deep in a data frame is a 422 from the body check on every writing route, for anyone', async () => {
    const deep = nestedList(10_000)
    for (const [path, text] of [
      ['/write-to-online-store', `{"feature_view_name":"credit_history","df":{"dob_ssn":["1"],"credit_card_due":[${deep}]}}`],
      ['/write-to-online-store', `{"feature_view_name":"credit_history","df":{"dob_ssn":[${deep}]}}`],
      ['/push', `{"push_source_name":"any","df":{"dob_ssn":[${deep}]}}`],
      ['/materialize', `{"start_ts":"2026-11-01T00:00:00Z","end_ts":"2026-11-02T00:00:00Z","feature_views":${deep}}`]
    ] as const) {
      for (const user of ['writer', 'nobody'] as const) {
        const reply = await post(user, path, text)
        assert.equal(reply.status, 422, `${path}: ${reply.text}`)
      }
    }
  })
})

const WINDOW = { start_ts: '2026-11-01T00:00:00Z', end_ts: '2026-11-02T00:00:00Z' }

describe('Fastify reference server: POST /push to a push source that feeds no view', () => {
  const PUSH_NOWHERE = { push_source_name: 'nowhere_push', df: { dob_ssn: ['1'] } }

  test('is 422 naming the push source, as Feast\'s PushSourceNotFoundException', async () => {
    const reply = await post('writer', '/push', PUSH_NOWHERE)
    assert.equal(reply.status, 422, reply.text)
    assert.equal(reply.body.message, 'push source "nowhere_push" feeds no feature view in the registry')
  })

  test('asks no permission: the same 422 for a caller who may write nothing', async () => {
    const reply = await post('nobody', '/push', { ...PUSH_NOWHERE, to: 'online_and_offline' })
    assert.equal(reply.status, 422, reply.text)
    assert.match(reply.body.message, /feeds no feature view/)
  })
})

describe('Fastify reference server: POST /materialize uses Feast\'s default set', () => {
  test('without a view list: online, enabled feature, batch and stream views, and enabled on-demand views that write online', async () => {
    const reply = await post('writer', '/materialize', WINDOW)
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.materialized, ['credit_history', 'zipcode_features', 'live_payments', 'batch_scores', 'transaction_gt_last_credit_card_due'])
    const incremental = await post('writer', '/materialize-incremental', { end_ts: WINDOW.end_ts })
    assert.deepEqual(incremental.body.materialized, reply.body.materialized)
  })

  test('an empty view list names no view: nothing is materialized, not the default set', async () => {
    for (const [path, body] of [['/materialize', { ...WINDOW, feature_views: [] }], ['/materialize-incremental', { end_ts: WINDOW.end_ts, feature_views: [] }]] as const) {
      const reply = await post('writer', path, body)
      assert.equal(reply.status, 200, `${path}: ${reply.text}`)
      assert.deepEqual(reply.body, { materialized: [] })
    }
  })

  test('an empty view list asks no permission: 200 for a caller who may write no view', async () => {
    const reply = await post('nobody', '/materialize', { ...WINDOW, feature_views: [] })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body, { materialized: [] })
  })

  test('a null view list is Feast\'s None: the default set, as when the list is absent', async () => {
    const reply = await post('writer', '/materialize-incremental', { end_ts: WINDOW.end_ts, feature_views: null })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.materialized, ['credit_history', 'zipcode_features', 'live_payments', 'batch_scores', 'transaction_gt_last_credit_card_due'])
  })

  test('a named view Feast would not materialize is 422 for a caller who may write it', async () => {
    for (const [name, reason] of [
      ['retired_scores', /is disabled/], ['offline_only', /is not served online/], ['zipcode_density', /without write_to_online_store/], ['loan_labels', /is a LabelView/]
    ] as const) {
      const reply = await post('writer', '/materialize', { ...WINDOW, feature_views: [name] })
      assert.equal(reply.status, 422, `${name}: ${reply.text}`)
      assert.match(reply.body.message, reason)
    }
  })

  test('... and 403, saying nothing more, for a caller who may not', async () => {
    for (const name of ['retired_scores', 'offline_only', 'zipcode_density', 'loan_labels']) {
      const reply = await post('reader', '/materialize', { ...WINDOW, feature_views: [name] })
      assert.equal(reply.status, 403, `${name}: ${reply.text}`)
    }
  })

  test('a named view that is not online but writes offline is materialized, as Feast does', async () => {
    const reply = await post('writer', '/materialize', { ...WINDOW, feature_views: ['written_offline'] })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.materialized, ['written_offline'])
  })

  test('a named on-demand view that writes to the online store is materialized', async () => {
    const reply = await post('writer', '/materialize-incremental', { end_ts: WINDOW.end_ts, feature_views: ['transaction_gt_last_credit_card_due'] })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.materialized, ['transaction_gt_last_credit_card_due'])
  })
})

describe('Fastify reference server: POST /materialize and /materialize-incremental take Feast\'s request fields', () => {
  const ONE_VIEW = { feature_views: ['credit_history'] }

  test('the body Feast\'s own client sends to a remote feature server is accepted by both routes', async () => {
    // FeatureStore.materialize / materialize_incremental with a remote server: isoformat() times, every field present.
    const full = { start_ts: '2026-11-01T00:00:00+00:00', end_ts: '2026-11-02T00:00:00+00:00', feature_views: null, disable_event_timestamp: false, full_feature_names: true, version: null }
    const incremental = { end_ts: '2026-11-02T00:00:00', feature_views: ['credit_history'], full_feature_names: false }
    for (const [path, body] of [['/materialize', full], ['/materialize-incremental', incremental]] as const) {
      const reply = await post('writer', path, body)
      assert.equal(reply.status, 200, `${path}: ${reply.text}`)
    }
  })

  test('disable_event_timestamp as a word Feast reads as true needs no window', async () => {
    const reply = await post('writer', '/materialize', { ...ONE_VIEW, disable_event_timestamp: 'True' })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.materialized, ['credit_history'])
  })

  test('a body flag that is not a boolean to Feast is 422 naming the field, before any permission is looked at', async () => {
    for (const [path, body] of [['/materialize', { ...WINDOW, ...ONE_VIEW, disable_event_timestamp: 'maybe' }], ['/materialize-incremental', { end_ts: WINDOW.end_ts, full_feature_names: null }]] as const) {
      const reply = await post('nobody', path, body)
      assert.equal(reply.status, 422, `${path}: ${reply.text}`)
      assert.match(reply.body.message, /^body\/(disable_event_timestamp|full_feature_names) must be true or false \(or 1, 0/)
    }
  })

  test('a start_ts that is not before end_ts (equal or later) is 422, as Feast refuses it', async () => {
    for (const [start, end] of [[WINDOW.end_ts, WINDOW.end_ts], [WINDOW.end_ts, WINDOW.start_ts]]) {
      const reply = await post('writer', '/materialize', { start_ts: start, end_ts: end, ...ONE_VIEW })
      assert.equal(reply.status, 422, reply.text)
      assert.equal(reply.body.message, `start_ts (${start}) must be before end_ts (${end})`)
    }
  })

  test('a window that is not a window is 422 before any permission is looked at, for a caller who may write nothing', async () => {
    const reply = await post('nobody', '/materialize', { start_ts: WINDOW.end_ts, end_ts: WINDOW.start_ts, ...ONE_VIEW })
    assert.equal(reply.status, 422, reply.text)
  })

  test('without disable_event_timestamp, a missing or empty start_ts is 422', async () => {
    for (const start of [undefined, null, '']) {
      const reply = await post('writer', '/materialize', { start_ts: start, end_ts: WINDOW.end_ts, ...ONE_VIEW })
      assert.equal(reply.status, 422, `${String(start)}: ${reply.text}`)
      assert.equal(reply.body.message, 'start_ts and end_ts are both required unless disable_event_timestamp is true')
    }
  })

  test('with disable_event_timestamp, no timestamp is needed', async () => {
    const reply = await post('writer', '/materialize', { disable_event_timestamp: true, ...ONE_VIEW })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body, { materialized: ['credit_history'] })
  })

  test('with disable_event_timestamp, the timestamps are not read: a reversed or unreadable window is accepted, as Feast ignores it', async () => {
    for (const window of [{ start_ts: WINDOW.end_ts, end_ts: WINDOW.start_ts }, { start_ts: 'soon', end_ts: null }]) {
      const reply = await post('writer', '/materialize', { ...window, disable_event_timestamp: true, ...ONE_VIEW })
      assert.equal(reply.status, 200, reply.text)
    }
  })

  test('disable_event_timestamp is not a field of /materialize-incremental: it does not excuse an unreadable end_ts', async () => {
    const reply = await post('writer', '/materialize-incremental', { end_ts: 'soon', disable_event_timestamp: true, ...ONE_VIEW })
    assert.equal(reply.status, 422, reply.text)
    assert.match(reply.body.message, /end_ts must be an ISO 8601 date-time/)
  })

  test('a version without exactly one named view is 422, as Feast refuses it', async () => {
    for (const views of [undefined, null, [], ['credit_history', 'zipcode_features']]) {
      const reply = await post('writer', '/materialize-incremental', { end_ts: WINDOW.end_ts, feature_views: views, version: 'v2' })
      assert.equal(reply.status, 422, `${JSON.stringify(views)}: ${reply.text}`)
      assert.equal(reply.body.message, 'version needs feature_views naming exactly one feature view')
    }
  })

  test('a version with one named view is 422: no view versions are kept, as in Feast with versioning off', async () => {
    const reply = await post('writer', '/materialize', { ...WINDOW, ...ONE_VIEW, version: 'latest' })
    assert.equal(reply.status, 422, reply.text)
    assert.match(reply.body.message, /version is not supported/)
  })

  test('?async=true answers 202 with Feast\'s accepted body', async () => {
    const reply = await post('writer', '/materialize?async=true', WINDOW)
    assert.equal(reply.status, 202, reply.text)
    assert.deepEqual(reply.body, { status: 'accepted', feature_views: ['credit_history', 'zipcode_features', 'live_payments', 'batch_scores', 'transaction_gt_last_credit_card_due'] })
  })

  test('?async=true still checks the permission: 403 for a caller who may not write the view', async () => {
    const reply = await post('reader', '/materialize-incremental?async=true', { end_ts: WINDOW.end_ts, ...ONE_VIEW })
    assert.equal(reply.status, 403, reply.text)
  })

  test('?async and ?force take the words FastAPI reads as booleans, in any case', async () => {
    for (const query of ['async=TRUE&force=yes', 'async=1&force=On', 'async=t&force=false', 'async=Y&force=0']) {
      const reply = await post('writer', `/materialize-incremental?${query}`, { end_ts: WINDOW.end_ts, ...ONE_VIEW })
      assert.equal(reply.status, 202, `${query}: ${reply.text}`)
    }
    for (const query of ['async=false', 'async=off&force=true', 'force=true']) {
      const reply = await post('writer', `/materialize-incremental?${query}`, { end_ts: WINDOW.end_ts, ...ONE_VIEW })
      assert.equal(reply.status, 200, `${query}: ${reply.text}`)
    }
  })

  test('an ?async or ?force that is not a boolean is 422', async () => {
    for (const query of ['async=maybe', 'force=2', 'async=', 'async=true&async=false']) {
      const reply = await post('writer', `/materialize?${query}`, { ...WINDOW, ...ONE_VIEW })
      assert.equal(reply.status, 422, `${query}: ${reply.text}`)
    }
  })
})

describe('Fastify reference server: POST /materialize when Feast\'s default set is empty', () => {
  // Only views Feast leaves out of its default set: not online, disabled, on-demand without write_to_online_store.
  const NOTHING_TO_MATERIALIZE = `
project: credit
feature_views:
  - name: archive
    entities: [dob_ssn]
    features: [archived]
    online: false
  - name: retired
    entities: [dob_ssn]
    features: [old_score]
    enabled: false
  - name: archive_ratio
    kind: OnDemandFeatureView
    entities: [dob_ssn]
    features: [ratio]
    sources: [archive]
`
  const empty = useReferenceServer(() => ({ registry: loadYamlCatalogFile({ yaml: NOTHING_TO_MATERIALIZE, source: 'nothing-to-materialize.yaml' }) }))

  test('materializes nothing and answers 200, even to a caller who may write no view (Feast asserts no permission)', async () => {
    for (const user of ['writer', 'nobody'] as const) {
      for (const [path, body] of [['/materialize', WINDOW], ['/materialize-incremental', { end_ts: WINDOW.end_ts }]] as const) {
        const reply = await postAs(empty.base, empty.tokens[user], path, body)
        assert.equal(reply.status, 200, `${user} ${path}: ${reply.text}`)
        assert.deepEqual(reply.body, { materialized: [] })
      }
    }
  })

  test('still needs an authenticated caller: 401 without a token', async () => {
    const response = await fetch(`${empty.base}/materialize-incremental`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ end_ts: WINDOW.end_ts }) })
    assert.equal(response.status, 401)
  })
})

describe('Fastify reference server: GET /api/v1/feature_views lists what Feast\'s registry server lists', () => {
  test('feature, batch, stream and on-demand views; label views are not listed', async () => {
    const response = await fetch(`${served.base}/api/v1/feature_views`, { headers: { authorization: `Bearer ${served.tokens.describer}` } })
    const body = await response.json() as { featureViews: Array<{ type: string, spec: { name: string } }> }
    assert.deepEqual(body.featureViews.map((view) => `${view.type}:${view.spec.name}`), [
      'FeatureView:credit_history', 'FeatureView:zipcode_features', 'StreamFeatureView:live_payments', 'BatchFeatureView:batch_scores',
      'FeatureView:offline_only', 'FeatureView:written_offline', 'FeatureView:retired_scores', 'OnDemandFeatureView:transaction_gt_last_credit_card_due', 'OnDemandFeatureView:zipcode_density'
    ])
  })
})
