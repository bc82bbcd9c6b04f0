import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, describe, test } from 'node:test'
import { ConfigError } from '../../src/config/errors.ts'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
import { viewResource } from '../../src/server/catalog.ts'
import { createOnlineStore } from '../../src/server/online-store.ts'
import { decide, permission, roleBasedPolicy } from '../../src/permissions/index.ts'
import { expectError } from '../helpers/errors.ts'
import { tempDir } from '../helpers/registry-builder.ts'

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

  test('a tag called __proto__ is kept as an ordinary tag, so a permission requiring it applies to the view', () => {
    const view = load(`${VIEW}    tags: {__proto__: restricted, team: drivers}\n`).featureView('stats')
    assert.ok(view !== undefined)
    assert.deepEqual(Object.entries(view.tags), [['__proto__', 'restricted'], ['team', 'drivers']])
    const restricted = permission({ name: 'restricted', requiredTags: JSON.parse('{"__proto__": "restricted"}') as Record<string, string>, actions: 'DESCRIBE', policy: roleBasedPolicy(['reader']) })
    assert.equal(decide([restricted], { roles: ['reader'], groups: [], namespaces: [] }, viewResource(view, 'p'), ['DESCRIBE']).allowed, true)
  })

  test('a bare view name in a feature service stands for all its features', () => {
    const registry = load(`${VIEW}feature_services:\n  - name: svc\n    features: [stats]\n`)
    assert.deepEqual(registry.featureService('svc')?.features, [{ view: 'stats', feature: 'rate' }])
  })

  test('an unknown kind names the file, line, field and the accepted kinds', () => {
    assert.throws(() => load(`${VIEW}    kind: TableView\n`), (error: unknown) => {
      assert.ok(error instanceof ConfigError)
      assert.match(error.message, /^registry\.yaml:6:5: feature_views\[0\]\.kind: unknown kind "TableView" \(expected one of FeatureView, BatchFeatureView, StreamFeatureView, OnDemandFeatureView, LabelView\)$/)
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

  test('a sample row\'s integer join key beyond 2^53 is the row of that key, not of its neighbour a double would round it to', () => {
    const registry = load(`${VIEW}sample_rows:\n  stats:\n    - {driver_id: 1152921504606846977, rate: 9007199254740993}\n`)
    const view = registry.featureView('stats')
    assert.ok(view !== undefined)
    const store = createOnlineStore(registry)
    assert.deepEqual(store.read(view, [1152921504606846977n])?.values, { rate: 9007199254740993n })
    assert.equal(store.read(view, [1152921504606846976n]), undefined)
  })

  test('a sample row\'s integers a double holds exactly stay numbers', () => {
    assert.deepEqual(load(`${VIEW}sample_rows:\n  stats:\n    - {driver_id: 1001, rate: -9007199254740991}\n`).sampleRows('stats'), [{ driver_id: 1001, rate: -9007199254740991 }])
  })

  test('a sample row\'s feature value beyond int64 is refused with the file, line and column', () => {
    expectError(() => load(`${VIEW}sample_rows:\n  stats:\n    - {driver_id: 1, rate: 9223372036854775808}\n`), {
      type: ConfigError,
      message: 'registry.yaml:8:22: sample_rows.stats[0].rate: expected integers within int64 (-9223372036854775808 to 9223372036854775807), as Feast stores them, got one beyond it'
    })
  })

  test('a sample row\'s join key beyond int64 is refused as the routes refuse such a key', () => {
    expectError(() => load(`${VIEW}sample_rows:\n  stats:\n    - {driver_id: -9223372036854775809, rate: 1}\n`), {
      type: ConfigError,
      message: 'registry.yaml:8:8: sample_rows.stats[0].driver_id: expected a string, finite number, boolean or null (a join key), got an integer beyond int64 (-9223372036854775808 to 9223372036854775807)'
    })
  })

  test('a sample row\'s join key written as a number beyond int64 (1e19) is refused too: keys compare as integers', () => {
    expectError(() => load(`${VIEW}sample_rows:\n  stats:\n    - {driver_id: 1e19, rate: 1}\n`), {
      type: ConfigError,
      message: 'registry.yaml:8:8: sample_rows.stats[0].driver_id: expected a string, finite number, boolean or null (a join key), got a number beyond int64 (-9223372036854775808 to 9223372036854775807), the range of an integer key'
    })
  })

  test('a sample row\'s large integer is quoted in a message as the file writes it, without JavaScript\'s n', () => {
    expectError(() => load(`${VIEW}sample_rows:\n  stats:\n    - {driver_id: 1, event_timestamp: 12345678901234567890}\n`), {
      type: ConfigError,
      message: 'registry.yaml:8:22: sample_rows.stats[0].event_timestamp: expected an ISO 8601 date-time, got 12345678901234567890'
    })
  })

  test('a sample row\'s join key that is a list is refused: Feast\'s keys are scalars', () => {
    expectError(() => load(`${VIEW}sample_rows:\n  stats:\n    - {driver_id: [1, 2], rate: 1}\n`), {
      type: ConfigError,
      message: 'registry.yaml:8:8: sample_rows.stats[0].driver_id: expected a string, finite number, boolean or null (a join key), got a list'
    })
  })

  for (const [written, where] of [['.inf', 'rate: .inf'], ['-.inf', 'rate: -.inf'], ['.nan', 'rate: .NaN']] as const) {
    test(`a sample row's ${written} is refused, as the write routes refuse a number that is not finite`, () => {
      expectError(() => load(`${VIEW}sample_rows:\n  stats:\n    - {driver_id: 1, ${where}}\n`), {
        type: ConfigError,
        message: `registry.yaml:8:22: sample_rows.stats[0].rate: expected finite numbers (a JSON answer cannot carry ${written}), got ${written}`
      })
    })
  }

  test('a number that is not finite within a list of a sample row is refused too', () => {
    expectError(() => load(`${VIEW}sample_rows:\n  stats:\n    - {driver_id: 1, rate: [1.5, .inf]}\n`), {
      type: ConfigError,
      message: 'registry.yaml:8:22: sample_rows.stats[0].rate: expected finite numbers (a JSON answer cannot carry .inf), got .inf within the value'
    })
  })

  test('an unknown top-level key is refused, so typos do not pass silently', () => {
    assert.throws(() => load(`${VIEW}feature_service: []\n`), /feature_service: unknown key/)
  })

  test('a misspelt top-level key names the file, line and field and the key it was probably meant to be', () => {
    assert.throws(() => load(`${VIEW}feature_service: []\n`), (error: unknown) => {
      assert.ok(error instanceof ConfigError)
      assert.match(error.message, /^registry\.yaml:6:1: feature_service: unknown key \(did you mean feature_services\?\) \(expected project, /)
      return true
    })
  })

  test('a misspelt key of a feature view gets a did-you-mean', () => {
    assert.throws(() => load(`${VIEW}    push_sorce: p\n`), /registry\.yaml:6:5: feature_views\[0\]\.push_sorce: unknown key \(did you mean push_source\?\)/)
  })

  test('a misspelt kind gets a did-you-mean', () => {
    assert.throws(() => load(`${VIEW}    kind: StreamFeatureVeiw\n`), /feature_views\[0\]\.kind: unknown kind "StreamFeatureVeiw" \(did you mean StreamFeatureView\?\)/)
  })

  test('a misspelt view name in a feature service gets a did-you-mean', () => {
    assert.throws(() => load(`${VIEW}feature_services:\n  - name: svc\n    features: ["stat:rate"]\n`), /feature_services\[0\]\.features\[0\]: feature view "stat" is not declared under feature_views \(did you mean stats\?\)/)
  })

  test('a misspelt feature in a feature service gets a did-you-mean', () => {
    assert.throws(() => load(`${VIEW}feature_services:\n  - name: svc\n    features: ["stats:rat"]\n`), /feature view "stats" has no feature "rat" \(did you mean rate\?\)/)
  })

  test('a misspelt column of a sample row gets a did-you-mean', () => {
    assert.throws(() => load(`${VIEW}sample_rows:\n  stats:\n    - {driver_id: 1, rte: 3}\n`), /sample_rows\.stats\[0\]\.rte: unknown column \(did you mean rate\?\)/)
  })

  test('duplicate view names are refused', () => {
    assert.throws(() => load(`${VIEW}  - name: stats\n    entities: [id]\n    features: [x]\n`), /feature_views\[1\]\.name: duplicate feature view "stats"/)
  })

  test('Feast\'s flags load: online, enabled and, for on-demand views, sources and write_to_online_store', () => {
    const registry = load(`${VIEW}    online: false\n    enabled: false\n  - name: derived\n    kind: OnDemandFeatureView\n    entities: [driver_id]\n    features: [double_rate]\n    sources: [stats]\n    write_to_online_store: true\n`)
    const stats = registry.featureView('stats')
    assert.equal(stats?.online, false)
    assert.equal(stats?.disabled, true)
    const derived = registry.featureView('derived')
    assert.deepEqual(derived?.sources, ['stats'])
    assert.equal(derived?.writeToOnlineStore, true)
  })

  test('offline loads on feature and batch feature views', () => {
    const registry = load(`${VIEW}    online: false\n    offline: true\n  - name: scores\n    kind: BatchFeatureView\n    entities: [driver_id]\n    features: [score]\n    offline: true\n`)
    assert.equal(registry.featureView('stats')?.offline, true)
    assert.equal(registry.featureView('scores')?.offline, true)
  })

  test('offline on a stream view is refused: Feast\'s stream view spec has no such field', () => {
    assert.throws(() => load('project: p\nfeature_views:\n  - name: live\n    kind: StreamFeatureView\n    entities: [driver_id]\n    features: [rate]\n    offline: true\n'), /feature_views\[0\]\.offline: only FeatureView and BatchFeatureView views take offline/)
  })

  test('an on-demand view without sources is refused: reading it is checked against them', () => {
    assert.throws(() => load(`${VIEW}  - name: derived\n    kind: OnDemandFeatureView\n    entities: [driver_id]\n    features: [x]\n`), /registry\.yaml:7:5: feature_views\[1\]\.kind: an OnDemandFeatureView needs sources/)
  })

  test('a push source on an on-demand view is refused: Feast never pushes to one', () => {
    assert.throws(() => load(`${VIEW}  - name: derived\n    kind: OnDemandFeatureView\n    entities: [driver_id]\n    features: [x]\n    sources: [stats]\n    push_source: stats_push\n`), /registry\.yaml:11:5: feature_views\[1\]\.push_source: only non-on-demand views take push_source/)
  })

  test('a label view fed by a push source is one of that push source\'s targets', () => {
    const registry = load(`${VIEW}    push_source: driver_push\n  - name: outcomes\n    kind: LabelView\n    entities: [driver_id]\n    features: [churned]\n    push_source: driver_push\n`)
    assert.deepEqual(registry.viewsFedBy('driver_push').map((view) => `${view.kind}:${view.name}`), ['FeatureView:stats', 'LabelView:outcomes'])
  })

  test('an on-demand view\'s source must be a declared, non-on-demand feature view', () => {
    const odfv = (sources: string) => `  - name: derived\n    kind: OnDemandFeatureView\n    entities: [driver_id]\n    features: [x]\n    sources: ${sources}\n`
    assert.throws(() => load(`${VIEW}${odfv('[speed]')}`), /feature_views\[1\]\.sources\[0\]: feature view "speed" is not declared under feature_views/)
    assert.throws(() => load(`${VIEW}${odfv('[derived]')}`), /feature_views\[1\]\.sources\[0\]: "derived" is an OnDemandFeatureView; an on-demand view reads feature views/)
  })

  test('an on-demand view\'s request_data loads: the request columns a read of it must send', () => {
    const registry = load(`${VIEW}  - name: derived\n    kind: OnDemandFeatureView\n    entities: [driver_id]\n    features: [x]\n    sources: [stats]\n    request_data: [trip_km, fare]\n`)
    assert.deepEqual(registry.featureView('derived')?.requestData, ['trip_km', 'fare'])
  })

  test('request_data is refused on a view that is not on-demand', () => {
    assert.throws(() => load(`${VIEW}    request_data: [trip_km]\n`), /feature_views\[0\]\.request_data: only on-demand views take request_data/)
  })

  test('request_data naming the view\'s join key is refused: Feast would read that column as request data, never as the key', () => {
    assert.throws(() => load(`${VIEW}  - name: derived\n    kind: OnDemandFeatureView\n    entities: [driver_id]\n    features: [x]\n    sources: [stats]\n    request_data: [driver_id]\n`),
      /feature_views\[1\]\.request_data\[0\]: "driver_id" is a join key of the view/)
  })

  test('a flag on a kind Feast does not give it to is refused, and a flag must be a boolean', () => {
    assert.throws(() => load(`${VIEW}    sources: [stats]\n`), /feature_views\[0\]\.sources: only on-demand views take sources/)
    assert.throws(() => load(`${VIEW}    write_to_online_store: true\n`), /feature_views\[0\]\.write_to_online_store: only on-demand views take write_to_online_store/)
    assert.throws(() => load(`${VIEW}    online: "yes"\n`), /feature_views\[0\]\.online: expected true or false, got "yes"/)
  })
})

describe('the registry YAML file: a feature service entry as a mapping, with a join_key_map', () => {
  // A trip reads the location view twice: at its origin and at its destination (Feast's with_join_key_map example).
  const TRIPS = `project: p
feature_views:
  - name: location_stats
    entities: [location_id, day]
    features: [temperature, rain]
  - name: location_check
    kind: OnDemandFeatureView
    entities: [location_id]
    features: [cold]
    sources: [location_stats]
`
  const service = (...entries: string[]): string => `${TRIPS}feature_services:\n  - name: trips\n    features:\n${entries.map((entry) => `      - ${entry}\n`).join('')}`
  const ORIGIN = '{view: location_stats, alias: origin, features: [temperature], join_key_map: {location_id: origin_id}}'

  test('reads the view under its alias, with the features listed (all when none are) and the join_key_map, beside the view:feature form', () => {
    const registry = load(service(ORIGIN, '{view: location_stats, alias: destination, join_key_map: {location_id: destination_id}}', 'location_stats:rain'))
    assert.deepEqual(registry.featureService('trips')?.features, [
      { view: 'location_stats', feature: 'temperature', alias: 'origin', joinKeyMap: { location_id: 'origin_id' } },
      { view: 'location_stats', feature: 'temperature', alias: 'destination', joinKeyMap: { location_id: 'destination_id' } },
      { view: 'location_stats', feature: 'rain', alias: 'destination', joinKeyMap: { location_id: 'destination_id' } },
      { view: 'location_stats', feature: 'rain' }
    ])
  })

  test('a join key named __proto__ is renamed like any other, not dropped', () => {
    const yaml = 'project: p\nfeature_views:\n  - name: odd\n    entities: [__proto__]\n    features: [f]\n' +
      'feature_services:\n  - name: s\n    features:\n      - {view: odd, join_key_map: {__proto__: pid}}\n'
    const [feature] = load(yaml).featureService('s')?.features ?? []
    assert.ok(feature?.joinKeyMap !== undefined && Object.hasOwn(feature.joinKeyMap, '__proto__'))
    assert.equal(Object.getOwnPropertyDescriptor(feature.joinKeyMap, '__proto__')?.value, 'pid')
  })

  test('a join_key_map naming a key the view does not have is refused, with the join keys it has', () => {
    assert.throws(() => load(service('{view: location_stats, join_key_map: {location: origin_id}}')),
      /feature_services\[0\]\.features\[0\]\.join_key_map\.location: feature view "location_stats" has no join key "location" \(did you mean location_id\?\) \(it has location_id, day\)/)
  })

  test('a join_key_map giving one column to two join keys is refused', () => {
    assert.throws(() => load(service('{view: location_stats, join_key_map: {location_id: origin, day: origin}}')),
      /features\[0\]\.join_key_map\.day: column "origin" is already given to join key "location_id"/)
  })

  test('a join_key_map renaming a join key to another join key of the view that it keeps is refused', () => {
    assert.throws(() => load(service('{view: location_stats, join_key_map: {location_id: day}}')),
      /features\[0\]\.join_key_map\.location_id: column "day" is a join key of the view that the map keeps/)
    // Swapping two join keys renames both: accepted.
    assert.deepEqual(load(service('{view: location_stats, join_key_map: {location_id: day, day: location_id}}')).featureService('trips')?.features[0]?.joinKeyMap, { location_id: 'day', day: 'location_id' })
  })

  test('a join_key_map on an on-demand view is refused: Feast renames the join keys of feature views only', () => {
    assert.throws(() => load(service('{view: location_check, join_key_map: {location_id: origin_id}}')),
      /features\[0\]\.join_key_map: feature view "location_check" is of kind OnDemandFeatureView: Feast renames join keys \(with_join_key_map\) of FeatureView, BatchFeatureView and StreamFeatureView only/)
  })

  test('two entries showing the view under one name with other join_key_maps are refused: Feast would read both with the first', () => {
    assert.throws(() => load(service(ORIGIN, '{view: location_stats, alias: origin, features: [rain]}')),
      /features\[1\]: features\[0\] already shows feature view "location_stats" as "origin" with another join_key_map: give one an alias/)
    assert.throws(() => load(service('location_stats:rain', '{view: location_check, alias: location_stats}')),
      /features\[1\]: features\[0\] already shows feature view "location_stats" as "location_stats": give this one an alias/)
  })

  test('an unknown key or a missing view in an entry is refused, naming the entry', () => {
    assert.throws(() => load(service('{view: location_stats, join_key_maps: {location_id: origin_id}}')), /features\[0\]\.join_key_maps: unknown key \(did you mean join_key_map\?\)/)
    assert.throws(() => load(service('{view: location_stat}')), /features\[0\]\.view: feature view "location_stat" is not declared under feature_views \(did you mean location_stats\?\)/)
  })
})

describe('the registry YAML file: an on-demand view\'s source as a mapping, with an alias and a join_key_map', () => {
  // A trip's weather at its origin: the location view read as an on-demand view's source, its join key taken from origin_id.
  const odfv = (source: string): string => `project: p
feature_views:
  - name: location_stats
    entities: [location_id, day]
    features: [temperature]
  - name: origin_weather
    kind: OnDemandFeatureView
    entities: [trip_id]
    features: [cold_start]
    sources: [${source}]
`

  test('reads the source\'s join_key_map, by source name, as Feast\'s with_join_key_map given as a source', () => {
    const view = load(odfv('{view: location_stats, join_key_map: {location_id: origin_id}}')).featureView('origin_weather')
    assert.deepEqual(view?.sources, ['location_stats'])
    assert.deepEqual(view?.sourceJoinKeyMaps, { location_stats: { location_id: 'origin_id' } })
  })

  test('a source\'s join_key_map is checked as a feature service\'s: a key the source view does not have is refused, with the join keys it has', () => {
    assert.throws(() => load(odfv('{view: location_stats, join_key_map: {location: origin_id}}')),
      /feature_views\[1\]\.sources\[0\]\.join_key_map\.location: feature view "location_stats" has no join key "location" \(did you mean location_id\?\) \(it has location_id, day\)/)
  })

  test('reads the source\'s alias, by source name, as Feast\'s with_name given as a source', () => {
    const view = load(odfv('{view: location_stats, alias: origin, join_key_map: {location_id: origin_id}}')).featureView('origin_weather')
    assert.deepEqual(view?.sources, ['location_stats'])
    assert.deepEqual(view?.sourceAliases, { location_stats: 'origin' })
  })

  test('an alias naming another declared view is refused: a read would show both views under one name', () => {
    assert.throws(() => load(odfv('{view: location_stats, alias: origin_weather}')),
      /feature_views\[1\]\.sources\[0\]\.alias: "origin_weather" is the name of another feature view: a read would show both under one name/)
  })

  test('two sources shown under one alias are refused, naming the first', () => {
    const twoViews = `project: p
feature_views:
  - name: location_stats
    entities: [location_id]
    features: [temperature]
  - name: airport_stats
    entities: [airport_id]
    features: [delays]
  - name: trip_risk
    kind: OnDemandFeatureView
    entities: [trip_id]
    features: [risk]
    sources: [{view: location_stats, alias: origin}, {view: airport_stats, alias: origin}]
`
    assert.throws(() => load(twoViews), /feature_views\[2\]\.sources\[1\]\.alias: sources\[0\] already shows its view as "origin": take another alias/)
  })

  test('an alias that is not a non-empty string is refused', () => {
    assert.throws(() => load(odfv('{view: location_stats, alias: ""}')), /feature_views\[1\]\.sources\[0\]\.alias: expected a non-empty string, got ""/)
  })

  test('an unknown key or an undeclared view in a source mapping is refused, naming the source', () => {
    assert.throws(() => load(odfv('{view: location_stats, join_key_maps: {location_id: origin_id}}')), /feature_views\[1\]\.sources\[0\]\.join_key_maps: unknown key \(did you mean join_key_map\?\)/)
    assert.throws(() => load(odfv('{view: location_stat}')), /feature_views\[1\]\.sources\[0\]\.view: feature view "location_stat" is not declared under feature_views \(did you mean location_stats\?\)/)
  })
})

describe('the registry YAML file: read errors name it as the registry YAML file, with its path', () => {
  const { dir, cleanup } = tempDir()
  after(cleanup)
  const refused = (input: Parameters<typeof loadYamlCatalogFile>[0], message: string): void => {
    expectError(() => loadYamlCatalogFile(input), { type: ConfigError, message })
  }

  test('a missing file', () => {
    const path = join(dir, 'missing.yaml')
    refused(path, `${path}: cannot read the registry YAML file: file not found`)
  })

  test('a directory where the file should be', () => {
    const path = join(dir, 'registry.yaml')
    mkdirSync(path)
    refused(path, `${path}: cannot read the registry YAML file: is a directory, expected a file`)
  })

  test('a file larger than 1 MiB, refused before it is read', () => {
    const path = join(dir, 'huge.yaml')
    const text = `project: p\n#${'x'.repeat(1024 * 1024)}\n`
    writeFileSync(path, text)
    refused(path, `${path}: file is ${Buffer.byteLength(text)} bytes, larger than the 1048576 bytes a registry YAML file may have`)
  })

  test('YAML text larger than 1 MiB, naming its source', () => {
    refused({ yaml: `project: p\n#${'x'.repeat(1024 * 1024)}\n`, source: 'registry.yaml' }, 'registry.yaml: the registry YAML file is larger than 1048576 bytes')
  })

  test('nothing given (from JavaScript) is refused, not read as ./feature_store.yaml', () => {
    refused(undefined as unknown as string, 'expected a path, YAML text or an object for a registry YAML file, got nothing')
  })
})
