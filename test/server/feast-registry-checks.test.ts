/**
 * The reference server over a Feast registry file checks on-demand views with their sources and
 * materializes Feast's default set, as it does over its YAML registry (feast-checks.test.ts):
 * a registry file built from Feast's field numbers, real tokens, real HTTP.
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { openFeastRegistry, type FeastRegistry } from '../../src/registry/index.ts'
import { catalogFromFeastRegistry } from '../../src/server/catalog-from-feast.ts'
import { writeFeastRegistry } from '../helpers/feast-registry-writer.ts'
import { useReferenceServer, postAs } from '../helpers/feast-checks.ts'

const view = (name: string, online: boolean, { disabled = false, offline = false } = {}) => ({
  spec: { name, project: 'credit', entities: ['customer'], features: [{ name: `${name}_value` }], batch_source: { name: `${name}_source`, type: 1 }, online, offline, disabled }
})
const onDemand = (name: string, writeToOnlineStore: boolean) => ({
  spec: {
    name,
    project: 'credit',
    entities: ['customer'],
    features: [{ name }],
    // A feature view source and a request source, keyed by name as Feast writes them.
    sources: {
      credit_history: { feature_view_projection: { feature_view_name: 'credit_history' } },
      transaction: { request_data_source: { type: 'REQUEST_SOURCE', name: 'transaction', project: 'credit' } }
    },
    write_to_online_store: writeToOnlineStore
  }
})

// On-demand views computed at read time, each reading one source of the kind its name says.
const readingOnly = (name: string, sources: Record<string, unknown>) => ({
  spec: { name, project: 'credit', entities: ['customer'], features: [{ name: `${name}_value` }], sources }
})
const LOST_SOURCES = [
  // Feast writes a source as a projection of the view; this one names a view the registry lacks.
  readingOnly('lost_projection_score', { lost_history: { feature_view_projection: { feature_view_name: 'lost_history' } } }),
  // Older Feast wrote the whole view; this one is not in the registry either.
  readingOnly('lost_view_score', { gone_history: { feature_view: { spec: { name: 'gone_history', project: 'credit' } } } })
]
// A request source named like a feature view of the project: a request field, no read of the view.
const REQUEST_LIKE_VIEW = readingOnly('request_like_view_score', {
  credit_history: { request_data_source: { type: 'REQUEST_SOURCE', name: 'credit_history', project: 'credit', request_data_options: { schema: [{ name: 'amount' }] } } }
})

const REGISTRY = writeFeastRegistry({
  version_id: 'checks',
  projects: [{ spec: { name: 'credit' } }],
  entities: [{ spec: { name: 'customer', join_key: 'dob_ssn', project: 'credit' } }],
  feature_views: [
    view('credit_history', true), view('archive', false), view('archive_written_offline', false, { offline: true }), view('retired', true, { disabled: true }),
    // Feast's lifecycle: generated offline, not materialized yet (FeatureViewState GENERATED = 2).
    { ...view('staged', true), meta: { state: 2 } }
  ],
  on_demand_feature_views: [onDemand('transaction_gt_last_credit_card_due', false), onDemand('written_on_demand', true), ...LOST_SOURCES, REQUEST_LIKE_VIEW],
  // Labels arrive by push, as Feast sets label views up: the source is a push source (type 9).
  label_views: [{ spec: { name: 'loan_labels', project: 'credit', entities: ['customer'], features: [{ name: 'defaulted' }], online: true, source: { name: 'loan_labels_push', type: 9 } } }],
  // A push source the registry has, read by no view.
  data_sources: [{ name: 'unread_push', project: 'credit', type: 9 }],
  // A service showing credit_history under another name (Feast's projection alias).
  feature_services: [
    { spec: { name: 'scoring', project: 'credit', features: [{ feature_view_name: 'credit_history', feature_view_name_alias: 'history', feature_columns: [{ name: 'credit_history_value' }] }] } },
    { spec: { name: 'lost_scoring', project: 'credit', features: [{ feature_view_name: 'lost_projection_score', feature_columns: [{ name: 'lost_projection_score_value' }] }] } }
  ]
})

let registry: FeastRegistry
const served = useReferenceServer((store) => {
  const path = join(store.dir, 'registry.db')
  writeFileSync(path, REGISTRY)
  registry = openFeastRegistry({ path, project: 'credit', pollIntervalMs: 0 })
  return { registry, close: () => { registry.close() } }
})

const READ_ON_DEMAND = { features: ['transaction_gt_last_credit_card_due:transaction_gt_last_credit_card_due'], entities: { dob_ssn: ['19530219_5179'] } }

describe('the reference server over a Feast registry file', () => {
  test('an on-demand view\'s sources are its feature view sources; request sources are not resources', () => {
    assert.deepEqual(catalogFromFeastRegistry(registry).featureView('transaction_gt_last_credit_card_due')?.sources, ['credit_history'])
  })

  test('an on-demand view whose feature view source the registry lacks is a 404 for anyone, before the permission check, never read unchecked (Feast: FeatureViewNotFoundException)', async () => {
    for (const name of ['lost_projection_score', 'lost_view_score']) {
      for (const user of ['reader', 'odfv_reader', 'nobody'] as const) {
        const reply = await postAs(served.base, served.tokens[user], '/get-online-features', { features: [`${name}:${name}_value`], entities: { dob_ssn: ['1'] } })
        assert.equal(reply.status, 404, `${name}, ${user}: ${reply.text}`)
        assert.equal(reply.body.message, `on-demand feature view "${name}" reads a feature view that is not in the registry`)
      }
    }
  })

  test('a feature service reading an on-demand view whose source the registry lacks is a 404 naming the source after the service\'s check, a 403 before it', async () => {
    const read = { feature_service: 'lost_scoring', entities: { dob_ssn: ['1'] } }
    const allowed = await postAs(served.base, served.tokens.service_reader, '/get-online-features', read)
    assert.equal(allowed.status, 404, allowed.text)
    assert.equal(allowed.body.message, 'on-demand feature view "lost_projection_score" reads feature view "lost_history", which is not in the registry')
    const denied = await postAs(served.base, served.tokens.odfv_reader, '/get-online-features', read)
    assert.equal(denied.status, 403, denied.text)
    assert.equal(denied.body.message, 'Permission denied: [READ_ONLINE] on FeatureService:lost_scoring')
  })

  test('a request source named like a feature view adds no check on that view, as in Feast: READ_ONLINE on the on-demand view reads it', async () => {
    const reply = await postAs(served.base, served.tokens.odfv_reader, '/get-online-features', {
      features: ['request_like_view_score:request_like_view_score_value'], entities: { dob_ssn: ['1'], amount: [10] }
    })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', 'request_like_view_score_value'])
  })

  test('READ_ONLINE on the on-demand view alone is denied on the feature view it reads', async () => {
    const reply = await postAs(served.base, served.tokens.odfv_reader, '/get-online-features', READ_ON_DEMAND)
    assert.equal(reply.status, 403, reply.text)
    assert.equal(reply.body.message, 'Permission denied: [READ_ONLINE] on FeatureView:credit_history')
  })

  test('with READ_ONLINE on both, the on-demand view is read', async () => {
    const reply = await postAs(served.base, served.tokens.reader, '/get-online-features', READ_ON_DEMAND)
    assert.equal(reply.status, 200, reply.text)
  })

  test('materializing without a view list: online enabled views, whatever their lifecycle state, and on-demand views that write online; no disabled, offline or label view', async () => {
    const reply = await postAs(served.base, served.tokens.writer, '/materialize-incremental', { end_ts: '2026-11-02T00:00:00Z' })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.materialized, ['credit_history', 'staged', 'written_on_demand'])
  })

  test('a named view that is neither online nor offline is 422 for a caller who may write it', async () => {
    const reply = await postAs(served.base, served.tokens.writer, '/materialize-incremental', { end_ts: '2026-11-02T00:00:00Z', feature_views: ['archive'] })
    assert.equal(reply.status, 422, reply.text)
    assert.match(reply.body.message, /"archive" is not served online/)
  })

  test('a named view that is not online but has Feast\'s offline flag is materialized', async () => {
    const reply = await postAs(served.base, served.tokens.writer, '/materialize-incremental', { end_ts: '2026-11-02T00:00:00Z', feature_views: ['archive_written_offline'] })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.materialized, ['archive_written_offline'])
  })

  test('a label view is read with READ_ONLINE on LabelView, and not listed by GET /api/v1/feature_views', async () => {
    const read = await postAs(served.base, served.tokens.reader, '/get-online-features', { features: ['loan_labels:defaulted'], entities: { dob_ssn: ['1'] } })
    assert.equal(read.status, 200, read.text)
    const listed = await fetch(`${served.base}/api/v1/feature_views`, { headers: { authorization: `Bearer ${served.tokens.describer}` } })
    const names = ((await listed.json()) as { featureViews: Array<{ spec: { name: string } }> }).featureViews.map((item) => item.spec.name)
    assert.deepEqual(names, [
      'credit_history', 'archive', 'archive_written_offline', 'retired', 'staged', 'transaction_gt_last_credit_card_due', 'written_on_demand',
      'lost_projection_score', 'lost_view_score', 'request_like_view_score'
    ])
  })

  test('a push source the registry has but no view reads is 422, as an unknown one (Feast raises PushSourceNotFoundException for both)', async () => {
    assert.equal(registry.resource('DataSource', 'unread_push')?.name, 'unread_push', 'the registry has the push source')
    assert.equal(registry.resource('DataSource', 'unknown_push'), undefined)
    for (const name of ['unread_push', 'unknown_push']) {
      const reply = await postAs(served.base, served.tokens.nobody, '/push', { push_source_name: name, df: { dob_ssn: ['1'] } })
      assert.equal(reply.status, 422, `${name}: ${reply.text}`)
      assert.equal(reply.body.message, `push source "${name}" feeds no feature view in the registry`)
    }
  })

  test('a push to a label view\'s push source needs WRITE_ONLINE on the label view (Feast\'s handler checks none)', async () => {
    const push = { push_source_name: 'loan_labels_push', df: { dob_ssn: ['1'], defaulted: [true] } }
    const denied = await postAs(served.base, served.tokens.reader, '/push', push)
    assert.equal(denied.status, 403, denied.text)
    assert.equal(denied.body.message, 'Permission denied: [WRITE_ONLINE] on LabelView:loan_labels')
    const allowed = await postAs(served.base, served.tokens.writer, '/push', push)
    assert.equal(allowed.status, 200, allowed.text)
    assert.deepEqual(allowed.body.feature_views, ['loan_labels'])
  })

  test('POST /write-to-online-store does not know a label view\'s name, for a caller who may write it too (Feast\'s lookup never tries label views)', async () => {
    for (const user of ['writer', 'nobody'] as const) {
      const reply = await postAs(served.base, served.tokens[user], '/write-to-online-store', { feature_view_name: 'loan_labels', df: { dob_ssn: ['1'], defaulted: [true] } })
      assert.equal(reply.status, 404, `${user}: ${reply.text}`)
      assert.equal(reply.body.message, 'feature view "loan_labels" is not in the registry')
    }
  })

  test('a pushed feature value JSON reads as infinite is 422 naming the column, the row and the view for a caller who may push, 403 for one who may not', async () => {
    const push = '{"push_source_name": "loan_labels_push", "df": {"dob_ssn": ["1"], "defaulted": [-1e400]}}'
    const refused = await postAs(served.base, served.tokens.writer, '/push', push)
    assert.equal(refused.status, 422, refused.text)
    assert.equal(refused.body.message, 'df.defaulted[0] must hold only finite numbers (a feature of feature view "loan_labels"), got a number beyond ±1.8e308 (-Infinity)')
    assert.equal((await postAs(served.base, served.tokens.reader, '/push', push)).status, 403)
  })

  test('labels pushed to a label view are read back online', async () => {
    const pushed = await postAs(served.base, served.tokens.writer, '/push', { push_source_name: 'loan_labels_push', df: { dob_ssn: ['7'], defaulted: [false] } })
    assert.equal(pushed.status, 200, pushed.text)
    const read = await postAs(served.base, served.tokens.reader, '/get-online-features', { features: ['loan_labels:defaulted'], entities: { dob_ssn: ['7'] } })
    assert.equal(read.status, 200, read.text)
    assert.deepEqual(read.body.results.map((column: { values: unknown[] }) => column.values), [['7'], [false]])
  })

  test('with full feature names, a feature service\'s columns are named by its projection\'s alias, as Feast names them', async () => {
    const reply = await postAs(served.base, served.tokens.reader, '/get-online-features', { feature_service: 'scoring', entities: { dob_ssn: ['1'] }, full_feature_names: true })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', 'history__credit_history_value'])
  })

  test('a view Feast\'s lifecycle has not made available online is a 422 for a caller who may read it, a 403 for one who may not', async () => {
    const read = { features: ['staged:staged_value'], entities: { dob_ssn: ['1'] } }
    const allowed = await postAs(served.base, served.tokens.reader, '/get-online-features', read)
    assert.equal(allowed.status, 422, allowed.text)
    assert.equal(allowed.body.message, 'feature view "staged" is in state GENERATED and serves no features (only AVAILABLE_ONLINE views serve)')
    assert.equal((await postAs(served.base, served.tokens.nobody, '/get-online-features', read)).status, 403)
  })

  test('a disabled view is a 422 for a caller who may read it', async () => {
    const reply = await postAs(served.base, served.tokens.reader, '/get-online-features', { features: ['retired:retired_value'], entities: { dob_ssn: ['1'] } })
    assert.equal(reply.status, 422, reply.text)
    assert.match(reply.body.message, /"retired" is disabled/)
  })
})
