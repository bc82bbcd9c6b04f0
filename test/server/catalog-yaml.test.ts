import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { describe, test } from 'node:test'
import { ConfigError } from '../../src/config/errors.ts'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'

const load = (yaml: string) => loadYamlCatalogFile({ yaml, source: 'registry.yaml' })
const VIEW = `project: p
feature_views:
  - name: stats
    entities: [driver_id]
    features: [rate]
`

describe('the registry YAML file', () => {
  test('the sample registry loads with its views, services and push sources', () => {
    const registry = loadYamlCatalogFile(fileURLToPath(new URL('../../fixtures/server/registry.yaml', import.meta.url)))
    assert.equal(registry.project, 'driver_ranking')
    assert.deepEqual(registry.featureViews().map((view) => `${view.kind}:${view.name}`), [
      'FeatureView:driver_hourly_stats', 'StreamFeatureView:driver_live_stats', 'OnDemandFeatureView:driver_transforms', 'FeatureView:experimental_scores'
    ])
    assert.deepEqual(registry.viewsFedBy('driver_stats_push').map((view) => view.name), ['driver_hourly_stats', 'driver_live_stats'])
    assert.equal(registry.featureService('driver_activity')?.features.length, 3)
  })

  test('a view without a kind is a FeatureView with no tags', () => {
    const view = load(VIEW).featureView('stats')
    assert.equal(view?.kind, 'FeatureView')
    assert.deepEqual(view?.tags, {})
  })

  test('a bare view name in a feature service stands for all its features', () => {
    const registry = load(`${VIEW}feature_services:\n  - name: svc\n    features: [stats]\n`)
    assert.deepEqual(registry.featureService('svc')?.features, [{ view: 'stats', feature: 'rate' }])
  })

  test('an unknown kind names the file, line, field and the accepted kinds', () => {
    assert.throws(() => load(`${VIEW}    kind: TableView\n`), (error: unknown) => {
      assert.ok(error instanceof ConfigError)
      assert.match(error.message, /^registry\.yaml:6:5: feature_views\[0\]\.kind: unknown kind "TableView" \(expected one of FeatureView, BatchFeatureView, StreamFeatureView, OnDemandFeatureView\)$/)
      return true
    })
  })

  test('a feature service naming a missing feature is refused', () => {
    assert.throws(() => load(`${VIEW}feature_services:\n  - name: svc\n    features: ["stats:speed"]\n`), /feature_services\[0\]\.features\[0\]: feature view "stats" has no feature "speed"/)
  })

  test('a non-string tag value is refused with a hint to quote it', () => {
    assert.throws(() => load(`${VIEW}    tags: {tier: 1}\n`), /feature_views\[0\]\.tags\.tier: expected a string tag value, got 1 \(quote numbers and booleans\)/)
  })

  test('a sample row with a column the view does not have is refused', () => {
    assert.throws(() => load(`${VIEW}sample_rows:\n  stats:\n    - {driver_id: 1, speed: 3}\n`), /sample_rows\.stats\[0\]\.speed: unknown column/)
  })

  test('a sample row without the join key is refused', () => {
    assert.throws(() => load(`${VIEW}sample_rows:\n  stats:\n    - {rate: 3}\n`), /sample_rows\.stats\[0\]: missing join key "driver_id"/)
  })

  test('an unknown top-level key is refused, so typos do not pass silently', () => {
    assert.throws(() => load(`${VIEW}feature_service: []\n`), /feature_service: unknown key/)
  })

  test('duplicate view names are refused', () => {
    assert.throws(() => load(`${VIEW}  - name: stats\n    entities: [id]\n    features: [x]\n`), /feature_views\[1\]\.name: duplicate feature view "stats"/)
  })
})
