import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { writeFileSync } from 'node:fs'
import { openFeastRegistry } from '../../src/registry/index.ts'
import { catalogFromFeastRegistry } from '../../src/server/index.ts'
import { registryBytes, replaceFile, SAMPLE_REGISTRY, tempDir } from '../helpers/registry-builder.ts'
import { everyKindRegistry, writeFeastRegistry } from '../helpers/feast-registry-writer.ts'

const { dir, cleanup } = tempDir()
const sample = openFeastRegistry({ path: SAMPLE_REGISTRY, project: 'credit_scoring_aws', pollIntervalMs: 0, cacheTtlSeconds: 0 })
// Every kind of object, with a feature service's projection and an on-demand view's source giving an alias and a join_key_map.
writeFileSync(join(dir, 'every-kind.db'), writeFeastRegistry(everyKindRegistry()))
const everyKind = openFeastRegistry({ path: join(dir, 'every-kind.db'), project: 'fraud', pollIntervalMs: 0 })
after(() => { sample.close(); everyKind.close(); cleanup() })

describe('the reference server\'s registry over a Feast registry file', () => {
  const served = catalogFromFeastRegistry(sample)

  it('serves the feature views of the server\'s project, keyed by their entities\' join keys', () => {
    assert.equal(served.project, 'credit_scoring_aws')
    assert.deepEqual(served.featureViews().map((view) => `${view.kind}:${view.name}`), [
      'FeatureView:credit_history', 'FeatureView:zipcode_features', 'FeatureView:zipcode_money_features', 'OnDemandFeatureView:transaction_gt_last_credit_card_due'
    ])
    const view = served.featureView('zipcode_features')
    assert.deepEqual(view?.entities, ['zipcode'])
    assert.equal(view?.tags.access_group, 'feast-team@feast.ai')
    assert.deepEqual(served.featureView('transaction_gt_last_credit_card_due')?.entities, ['__dummy_id'])
  })

  it('serves a feature service as the features of its projections', () => {
    assert.deepEqual(served.featureService('credit_score_v1')?.features.slice(0, 3), [
      { view: 'credit_history', feature: 'credit_card_due' }, { view: 'credit_history', feature: 'missed_payments_1y' }, { view: 'zipcode_features', feature: 'city' }
    ])
    assert.equal(served.featureService('no_such_service'), undefined)
  })

  it('gives each feature of a service its projection\'s alias and join_key_map', () => {
    assert.deepEqual(catalogFromFeastRegistry(everyKind).featureService('fraud_model')?.features.map((ref) => ({ ...ref, ...(ref.joinKeyMap === undefined ? {} : { joinKeyMap: { ...ref.joinKeyMap } }) })), [
      { view: 'user_stats', feature: 'txn_count_7d' },
      { view: 'amount_ratio', feature: 'ratio', alias: 'ratio_view', joinKeyMap: { user_id: 'customer_id' } }
    ])
  })

  it('gives an on-demand view the join_key_map of each source it reads through a projection renaming join keys', () => {
    const catalog = catalogFromFeastRegistry(everyKind)
    const maps = catalog.featureView('amount_ratio')?.sourceJoinKeyMaps ?? {}
    assert.deepEqual(Object.entries(maps).map(([source, map]) => [source, { ...map }]), [['user_stats', { user_id: 'customer_id' }]])
    assert.equal(catalog.featureView('amount_check')?.sourceJoinKeyMaps, undefined)
  })

  it('gives an on-demand view the alias of each source it reads through a projection with one', () => {
    const catalog = catalogFromFeastRegistry(everyKind)
    assert.deepEqual({ ...catalog.featureView('amount_ratio')?.sourceAliases }, { user_stats: 'customer_stats' })
    assert.equal(catalog.featureView('amount_check')?.sourceAliases, undefined)
  })

  it('reads an on-demand view\'s source given as a whole feature view (older Feast) by the view\'s own name, not by a key naming another view', () => {
    const path = join(dir, 'whole-view-source.db')
    const view = (name: string): Record<string, unknown> => ({ spec: { name, project: 'demo', features: [{ name: 'count' }], online: true } })
    writeFileSync(path, writeFeastRegistry({
      projects: [{ spec: { name: 'demo' } }],
      feature_views: [view('trips'), view('rides')],
      on_demand_feature_views: [{ spec: { name: 'derived', project: 'demo', features: [{ name: 'double_count' }], sources: { rides: { feature_view: view('trips') } } } }]
    }))
    const registry = openFeastRegistry({ path, project: 'demo', pollIntervalMs: 0 })
    try {
      assert.deepEqual(catalogFromFeastRegistry(registry).featureView('derived')?.sources, ['trips'])
    } finally {
      registry.close()
    }
  })

  it('keeps every feature view source of an on-demand view, one the registry lacks or another on-demand view included, and no request source', () => {
    const path = join(dir, 'sources-of-each-kind.db')
    const view = (name: string): Record<string, unknown> => ({ spec: { name, project: 'demo', features: [{ name: 'count' }], online: true } })
    const onDemand = (name: string, sources: Record<string, unknown>): Record<string, unknown> => ({ spec: { name, project: 'demo', features: [{ name: 'out' }], sources } })
    writeFileSync(path, writeFeastRegistry({
      projects: [{ spec: { name: 'demo' } }],
      feature_views: [view('trips')],
      on_demand_feature_views: [
        onDemand('inner', { trips: { feature_view_projection: { feature_view_name: 'trips' } } }),
        onDemand('derived', {
          trips: { feature_view_projection: { feature_view_name: 'trips' } },
          lost: { feature_view_projection: { feature_view_name: 'lost' } },
          gone: { feature_view: { spec: { name: 'gone' } } },
          inner: { feature_view_projection: { feature_view_name: 'inner' } },
          // A request source named like a view of the project.
          trips_request: { request_data_source: { type: 'REQUEST_SOURCE', name: 'trips', project: 'demo' } },
          amount: { request_data_source: { type: 'REQUEST_SOURCE', name: 'amount', project: 'demo' } }
        })
      ]
    }))
    const registry = openFeastRegistry({ path, project: 'demo', pollIntervalMs: 0 })
    try {
      assert.deepEqual(catalogFromFeastRegistry(registry).featureView('derived')?.sources, ['trips', 'lost', 'gone', 'inner'])
    } finally {
      registry.close()
    }
  })

  it('keeps the name of an entity the registry lacks in its place, and says it lacks it', () => {
    const path = join(dir, 'lost-entity.db')
    writeFileSync(path, writeFeastRegistry({
      projects: [{ spec: { name: 'demo' } }],
      entities: [{ spec: { name: 'driver', join_key: 'driver_id', project: 'demo' } }],
      feature_views: [{ spec: { name: 'trips', project: 'demo', entities: ['driver', 'rider'], features: [{ name: 'count' }], online: true } }]
    }))
    const registry = openFeastRegistry({ path, project: 'demo', pollIntervalMs: 0 })
    try {
      const view = catalogFromFeastRegistry(registry).featureView('trips')
      assert.deepEqual(view?.entities, ['driver_id', 'rider'])
      assert.deepEqual(view?.unknownEntities, ['rider'])
      assert.equal(catalogFromFeastRegistry(sample).featureView('credit_history')?.unknownEntities, undefined)
    } finally {
      registry.close()
    }
  })

  it('has no rows unless sample rows are given', () => {
    assert.deepEqual(served.sampleRows('credit_history'), [])
    assert.deepEqual(catalogFromFeastRegistry(sample, { credit_history: [{ dob_ssn: '1', mortgage_due: 5 }] }).sampleRows('credit_history'), [{ dob_ssn: '1', mortgage_due: 5 }])
  })

  it('finds the views fed by a push source, and follows the registry when it is refreshed', async () => {
    const path = join(dir, 'push.db')
    writeFileSync(path, registryBytes({ featureViews: [{ name: 'driver_stats', project: 'demo', pushSource: 'driver_push' }] }))
    const registry = openFeastRegistry({ path, project: 'demo', pollIntervalMs: 0 })
    try {
      const live = catalogFromFeastRegistry(registry)
      assert.deepEqual(live.viewsFedBy('driver_push').map((view) => view.name), ['driver_stats'])
      replaceFile(path, registryBytes({ featureViews: [{ name: 'driver_stats_v2', project: 'demo', pushSource: 'driver_push' }] }))
      assert.equal(await registry.refresh(), 'updated')
      assert.deepEqual(live.viewsFedBy('driver_push').map((view) => view.name), ['driver_stats_v2'])
    } finally {
      registry.close()
    }
  })
})
