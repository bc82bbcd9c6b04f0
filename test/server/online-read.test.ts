/**
 * The two steps of a get-online-features request (src/server/online-read.ts), without a server:
 * what is checked, in which order, and what each step may say. The HTTP behaviour is in
 * feast-checks.test.ts and test/cross-cutting/docs/express-example.test.ts.
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { readFeatures, readTarget } from '../../src/server/online-read.ts'
import { createOnlineStore } from '../../src/server/online-store.ts'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
import type { FeatureCatalog } from '../../src/server/catalog.ts'
import { catalogFromFeastRegistry } from '../../src/server/catalog-from-feast.ts'
import { openFeastRegistry } from '../../src/registry/index.ts'
import { encodeRegistry } from '../../src/registry/encode.ts'
import { tempDir } from '../helpers/registry-builder.ts'
import { REGISTRY_YAML } from '../helpers/feast-checks.ts'
import { expectError } from '../helpers/errors.ts'

const registry = loadYamlCatalogFile({ yaml: REGISTRY_YAML, source: 'registry.yaml' })
const names = (body: unknown): string[] => readTarget(registry, body).resources.map((resource) => `${resource.type}:${resource.name}`)

describe('readTarget: the resources a request is checked on', () => {
  test('Feast\'s order: feature views and on-demand sources as first met, each once, then the on-demand views', () => {
    assert.deepEqual(names({
      features: ['transaction_gt_last_credit_card_due:transaction_gt_last_credit_card_due', 'credit_history:credit_card_due', 'zipcode_density:density', 'credit_history:missed_payments'],
      entities: { dob_ssn: ['1'], zipcode: [2] }
    }), ['FeatureView:credit_history', 'FeatureView:zipcode_features', 'OnDemandFeatureView:transaction_gt_last_credit_card_due', 'OnDemandFeatureView:zipcode_density'])
  })

  test('a feature service is the only resource, whatever it serves', () => {
    assert.deepEqual(names({ feature_service: 'credit_service', entities: { dob_ssn: ['1'] } }), ['FeatureService:credit_service'])
  })

  test('nothing about the views\' contents is judged before the check: unknown features and missing join keys pass this step', () => {
    assert.deepEqual(names({ features: ['credit_history:no_such_feature'], entities: { zipcode: [1] } }), ['FeatureView:credit_history'])
  })

  test('a name the registry does not have is a 404 here, as in Feast', () => {
    expectError(() => readTarget(registry, { features: ['nope:x'], entities: { a: [1] } }), { statusCode: 404, message: /feature view "nope"/ })
  })

  test('with both, the feature service is read and the features are not, as in Feast\'s request model', () => {
    assert.deepEqual(names({ feature_service: 'credit_service', features: ['nope:x'], entities: { dob_ssn: ['1'] } }), ['FeatureService:credit_service'])
  })

  test('an empty features list beside a feature service, as Feast\'s clients send it, is accepted', () => {
    assert.deepEqual(names({ feature_service: 'credit_service', features: [], entities: { dob_ssn: ['1'] } }), ['FeatureService:credit_service'])
  })

  test('a null or empty feature service is none, as Feast tests it for truth: the features are read', () => {
    for (const none of [null, '']) {
      assert.deepEqual(names({ feature_service: none, features: ['credit_history:credit_card_due'], entities: { dob_ssn: ['1'] } }), ['FeatureView:credit_history'])
    }
  })

  test('a feature service that is not a string is a 422', () => {
    expectError(() => readTarget(registry, { feature_service: 7, entities: { dob_ssn: ['1'] } }), { statusCode: 422, message: /"feature_service" must be a string, got a number/ })
  })

  test('view@latest and view@ name the view itself, as Feast reads references', () => {
    assert.deepEqual(names({ features: ['credit_history@latest:credit_card_due', 'credit_history@LATEST:missed_payments', 'zipcode_features@:population'], entities: { dob_ssn: ['1'] } }),
      ['FeatureView:credit_history', 'FeatureView:zipcode_features'])
  })

  test('a version-qualified reference is a 422: the reference server keeps no feature view versions', () => {
    expectError(() => readTarget(registry, { features: ['credit_history@v2:credit_card_due'], entities: { dob_ssn: ['1'] } }), { statusCode: 422, message: /names version v2 of a feature view/ })
  })

  test('any other @ suffix is part of the view\'s name, as in Feast', () => {
    expectError(() => readTarget(registry, { features: ['credit_history@beta:credit_card_due'], entities: { dob_ssn: ['1'] } }), { statusCode: 404, message: /feature view "credit_history@beta"/ })
  })

  test('wrong JSON types are a 422 naming the field, never echoing the value', () => {
    for (const [body, field] of [
      [[], /body must be a JSON object, got a list/],
      [{ features: 'credit_history:credit_card_due', entities: { a: [1] } }, /"features" must be a list of "view:feature" strings, got a string$/],
      [{ features: [], entities: { a: [1] } }, /give "features" \(a non-empty list of "view:feature" references\) or "feature_service"/],
      [{ feature_service: 'credit_service', features: [1], entities: { a: [1] } }, /features\[0\] must be a string, got a number$/],
      [{ features: ['credit_history:credit_card_due'], entities: { a: [[[1]]] } }, /entities\.a\[0\] must be a string, finite number, boolean or null \(an entity key\), got a list$/],
      [{ features: ['credit_history:credit_card_due'], entities: { a: [1, -Infinity] } }, /entities\.a\[1\] must be a string, finite number, boolean or null \(an entity key\), got a number beyond ±1\.8e308 \(-Infinity\)$/],
      [{ features: ['credit_history:credit_card_due'], entities: { a: [Number.NaN] } }, /entities\.a\[0\] must be a string, finite number, boolean or null \(an entity key\), got NaN$/],
      [{ features: ['credit_history:credit_card_due'], entities: { a: 'x'.repeat(1000) } }, /entities\.a must be a list of values, got a string$/],
      [{ features: ['credit_history'], entities: { a: [1] } }, /must be written "view:feature"/],
      [{ features: ['credit_history:credit_card_due'], entities: {} }, /"entities" must be an object of columns/]
    ] as const) {
      assert.throws(() => readTarget(registry, body), (error: any) => error.statusCode === 422 && field.test(error.message), JSON.stringify(body).slice(0, 80))
    }
  })
})

describe('readFeatures: after the check', () => {
  const store = createOnlineStore(registry)

  test('maxAnsweredValues bounds the answer: past it is a 422 naming the counts, at it the values are read', () => {
    const target = readTarget(registry, { features: ['credit_history:credit_card_due'], entities: { dob_ssn: ['19530219_5179', 'x'] } })
    expectError(() => readFeatures(target, store, { maxAnsweredValues: 3 }), { statusCode: 422, message: /^the answer would hold 2 rows × 2 columns = 4 values, more than the 3 one answer holds/ })
    assert.equal(readFeatures(target, store, { maxAnsweredValues: 4 }).results.length, 2)
  })

  test('maxAnsweredValues must be a positive whole number, else an error naming it and what was given', () => {
    const target = readTarget(registry, { features: ['credit_history:credit_card_due'], entities: { dob_ssn: ['x'] } })
    for (const [given, shown] of [[0, '0'], [-1, '-1'], [2.5, '2.5'], [Number.POSITIVE_INFINITY, 'Infinity'], ['100', '"100"']] as const) {
      assert.throws(() => readFeatures(target, store, { maxAnsweredValues: given as number }),
        { name: 'OptionError', message: `feast-authz: readFeatures: maxAnsweredValues must be a positive whole number of values (default 100000), got ${shown}` })
    }
    assert.throws(() => readFeatures(target, store, null as never), { name: 'OptionError', message: /^feast-authz: readFeatures: options must be an object/ })
  })

  test('reads the values, entity columns first', () => {
    const response = readFeatures(readTarget(registry, { features: ['credit_history:credit_card_due'], entities: { dob_ssn: ['19530219_5179', 'x'] } }), store)
    assert.deepEqual(response.metadata.feature_names, ['dob_ssn', 'credit_card_due'])
    assert.deepEqual(response.results.map((column) => column.values), [['19530219_5179', 'x'], [8419, null]])
  })

  test('given the body\'s text, answers the entity columns in the order it writes them, names like integers included', () => {
    const text = '{"features": ["credit_history:credit_card_due"], "entities": {"dob_ssn": ["19530219_5179"], "7": [1]}}'
    const body: unknown = JSON.parse(text)
    assert.deepEqual(readFeatures(readTarget(registry, body, text), store).metadata.feature_names, ['dob_ssn', '7', 'credit_card_due'])
  })

  test('a text that does not hold the body\'s entity columns is not trusted: the parsed order stands', () => {
    const body = { features: ['credit_history:credit_card_due'], entities: { dob_ssn: ['19530219_5179'], 7: [1] } }
    for (const text of ['{"entities": {"dob_ssn": [], "7": [], "8": []}}', '{"entities": {"dob_ssn": []}}', '{"entities": {"x": [], "7": []}}', 'not json']) {
      assert.deepEqual(readFeatures(readTarget(registry, body, text), store).metadata.feature_names, ['7', 'dob_ssn', 'credit_card_due'], text)
    }
  })

  test('given the body\'s text, reads entity values beyond 2^53 exactly: two keys JSON.parse reads as one are two rows', () => {
    const text = '{"features": ["zipcode_features:population"], "entities": {"zipcode": [9007199254740993, 9007199254740992]}}'
    const response = readFeatures(readTarget(registry, JSON.parse(text), text), store)
    assert.deepEqual(response.results.map((column) => column.values), [[9007199254740993n, 9007199254740992n], [null, 5]])
  })

  test('without the body\'s text, an entity value that may have been rounded is a 422 naming the column and the row, never another entity\'s row', () => {
    expectError(() => readTarget(registry, JSON.parse('{"features": ["zipcode_features:population"], "entities": {"zipcode": [1, 9007199254740993]}}')), {
      statusCode: 422,
      message: /^entities\.zipcode\[1\] is a number beyond ±\(2\^53 − 1\), which JSON\.parse may have rounded \(it read 9007199254740992\), and the body's JSON text was not given/
    })
  })

  test('entity values given as BigInts are read as given; beyond int64 they are a 422 naming the column and the row', () => {
    const response = readFeatures(readTarget(registry, { features: ['zipcode_features:population'], entities: { zipcode: [9007199254740992n, 2n ** 63n - 1n] } }), store)
    assert.deepEqual(response.results.map((column) => column.values), [[9007199254740992n, 2n ** 63n - 1n], [5, null]])
    expectError(() => readTarget(registry, { features: ['zipcode_features:population'], entities: { zipcode: [-(2n ** 63n) - 1n] } }), {
      statusCode: 422,
      message: 'entities.zipcode[0] must be a string, finite number, boolean or null (an entity key), got an integer beyond int64 (-9223372036854775808 to 9223372036854775807)'
    })
  })

  test('an entity value written as a number beyond int64 (1e19) is a 422, as the integer 10000000000000000000 is: keys compare as integers', () => {
    const text = '{"features": ["zipcode_features:population"], "entities": {"zipcode": [1e19]}}'
    expectError(() => readTarget(registry, JSON.parse(text), text), {
      statusCode: 422,
      message: 'entities.zipcode[0] must be a string, finite number, boolean or null (an entity key), got a number beyond int64 (-9223372036854775808 to 9223372036854775807), the range of an integer key'
    })
  })

  test('an entity value written as a number beyond 2^53 but within int64 (1e18) is still accepted', () => {
    const text = '{"features": ["zipcode_features:population"], "entities": {"zipcode": [1e18, 1.5]}}'
    const response = readFeatures(readTarget(registry, JSON.parse(text), text), store)
    assert.deepEqual(response.results[0]?.values, [1e18, 1.5])
  })

  test('with full feature names, a view read as view@latest is named by the view\'s own name', () => {
    const response = readFeatures(readTarget(registry, { features: ['credit_history@latest:credit_card_due'], entities: { dob_ssn: ['19530219_5179'] }, full_feature_names: true }), store)
    assert.deepEqual(response.metadata.feature_names, ['dob_ssn', 'credit_history__credit_card_due'])
    assert.deepEqual(response.results[1]?.values, [8419])
  })

  test('a feature service whose view is gone from the registry is a 404 only now', () => {
    const target = readTarget({ ...registry, featureView: () => undefined }, { feature_service: 'credit_service', entities: { dob_ssn: ['1'] } })
    expectError(() => readFeatures(target, store), { statusCode: 404 })
  })

  test('a view naming an entity its registry lacks passes the first step and is a 404 now, naming both, as Feast\'s EntityNotFoundException', () => {
    const lacking = (lost: string): FeatureCatalog => ({
      ...registry,
      featureView: (name) => {
        const view = registry.featureView(name)
        return name === lost && view !== undefined ? { ...view, unknownEntities: ['zip'] } : view
      }
    })
    const body = { features: ['zipcode_density:density'], entities: { zipcode: [1] } }
    // As Feast: the sources of an on-demand view are looked at first, then the on-demand view itself.
    for (const lost of ['zipcode_features', 'zipcode_density']) {
      const target = readTarget(lacking(lost), body)
      const kind = lost === 'zipcode_density' ? 'on-demand feature view' : 'feature view'
      expectError(() => readFeatures(target, store), { statusCode: 404, message: `${kind} "${lost}" takes entity "zip", which is not in the registry` })
    }
  })

  test('a feature service\'s on-demand view whose source view is gone is a 404 only now, naming both', () => {
    const service = { name: 'density', tags: {}, features: [{ view: 'zipcode_density', feature: 'density' }] }
    const catalog: FeatureCatalog = { ...registry, featureService: () => service, featureView: (name) => name === 'zipcode_features' ? undefined : registry.featureView(name) }
    const target = readTarget(catalog, { feature_service: 'density', entities: { zipcode: [1] } })
    assert.deepEqual(target.resources.map((resource) => resource.name), ['density'])
    expectError(() => readFeatures(target, store), { statusCode: 404, message: 'on-demand feature view "zipcode_density" reads feature view "zipcode_features", which is not in the registry' })
  })
})

describe('an on-demand view\'s source read under an alias (Feast\'s with_name given as a source)', () => {
  const store = createOnlineStore(registry)
  /** The test registry, with zipcode_density reading zipcode_features under `alias`. */
  const aliasing = (alias: string): FeatureCatalog => ({
    ...registry,
    featureView: (name) => {
      const view = registry.featureView(name)
      return name === 'zipcode_density' && view !== undefined ? { ...view, sourceAliases: { zipcode_features: alias } } : view
    }
  })

  test('is checked under the view\'s own name, as Feast asserts READ_ONLINE on the source view itself', () => {
    const target = readTarget(aliasing('zip_area'), { features: ['zipcode_density:density'], entities: { zipcode: [1] } })
    assert.deepEqual(target.resources.map((resource) => `${resource.type}:${resource.name}`), ['FeatureView:zipcode_features', 'OnDemandFeatureView:zipcode_density'])
  })

  test('an alias naming another view the request reads is a 422 naming both, where Feast reads one view\'s rows for both', () => {
    const target = readTarget(aliasing('credit_history'), { features: ['zipcode_density:density', 'credit_history:credit_card_due'], entities: { zipcode: [1], dob_ssn: ['1'] } })
    expectError(() => readFeatures(target, store), {
      statusCode: 422,
      message: 'the read would show two views as "credit_history": feature view "credit_history" and feature view "zipcode_features", a source of on-demand feature view ' +
        '"zipcode_density" under that alias; Feast would read both as the first one: read them in separate requests, or give one another alias'
    })
  })
})

// fare_quote is computed at read time from trip_stats; fare_stored is written to the online store.
// trips and rating are features of trip_stats and trip_stats_weekly; this_and_previous reads
// trip_stats twice, once under an alias.
const rides = loadYamlCatalogFile({
  yaml: `project: rides
feature_views:
  - name: trip_stats
    entities: [rider_id]
    features: [trips, rating]
  - name: trip_stats_weekly
    entities: [rider_id]
    features: [trips, rating]
  - name: fare_quote
    kind: OnDemandFeatureView
    entities: [rider_id]
    features: [base_fare, surge, total]
    sources: [trip_stats]
  - name: fare_stored
    kind: OnDemandFeatureView
    entities: [rider_id]
    features: [base_fare, surge]
    sources: [trip_stats]
    write_to_online_store: true
feature_services:
  - name: quote
    features: ["fare_quote:total", "trip_stats:rating", "fare_quote:base_fare"]
  - name: this_and_previous
    features:
      - trip_stats:trips
      - {view: trip_stats, alias: previous_trip_stats, features: [trips], join_key_map: {rider_id: previous_rider_id}}
sample_rows:
  trip_stats: [{rider_id: 1, trips: 12, rating: 4.9}]
  fare_quote: [{rider_id: 1, base_fare: 10, surge: 1.5, total: 15}]
  fare_stored: [{rider_id: 1, base_fare: 11, surge: 1.2}]
`,
  source: 'registry.yaml'
})
const ridesStore = createOnlineStore(rides)

describe('readFeatures: the order of an on-demand view\'s features, as Feast answers them', () => {
  const read = (body: Record<string, unknown>) => readFeatures(readTarget(rides, { entities: { rider_id: [1] }, ...body }), ridesStore)

  test('an on-demand view computed at read time answers its features in its schema order, not the request\'s', () => {
    const response = read({ features: ['fare_quote:total', 'fare_quote:surge', 'fare_quote:base_fare'] })
    assert.deepEqual(response.metadata.feature_names, ['rider_id', 'base_fare', 'surge', 'total'])
    assert.deepEqual(response.results.map((column) => column.values), [[1], [10], [1.5], [15]])
  })

  test('interleaved with a feature view\'s features, its features come after them, in its schema order, with full feature names too', () => {
    const response = read({ features: ['fare_quote:total', 'trip_stats:rating', 'fare_quote:base_fare', 'trip_stats:trips'], full_feature_names: true })
    assert.deepEqual(response.metadata.feature_names, ['rider_id', 'trip_stats__rating', 'trip_stats__trips', 'fare_quote__base_fare', 'fare_quote__total'])
    assert.deepEqual(response.results.map((column) => column.values), [[1], [4.9], [12], [10], [15]])
  })

  test('read through a feature service, its features come in its schema order too', () => {
    assert.deepEqual(read({ feature_service: 'quote' }).metadata.feature_names, ['rider_id', 'rating', 'base_fare', 'total'])
  })

  test('an on-demand view written to the online store keeps the request\'s order, as Feast reads it as a feature view and keeps none', () => {
    assert.deepEqual(read({ features: ['fare_stored:surge', 'fare_stored:base_fare'] }).metadata.feature_names, ['rider_id', 'surge', 'base_fare'])
  })
})

describe('readFeatures: two features the answer would show under one name, as Feast refuses them', () => {
  const read = (body: Record<string, unknown>) => readFeatures(readTarget(rides, { entities: { rider_id: [1], previous_rider_id: [2] }, ...body }), ridesStore)

  test('the same feature named twice is a 422 naming it, with full feature names too', () => {
    for (const fullNames of [false, true]) {
      expectError(() => read({ features: ['trip_stats:trips', 'trip_stats:rating', 'trip_stats:trips'], full_feature_names: fullNames }), {
        statusCode: 422,
        message: new RegExp(`more than one feature named "${fullNames ? 'trip_stats__trips' : 'trips'}"`)
      })
    }
  })

  test('without full feature names, features of two views sharing a name are a 422 that says to set full_feature_names', () => {
    expectError(() => read({ features: ['trip_stats:trips', 'trip_stats_weekly:trips'] }), { statusCode: 422, message: /"trips": set "full_feature_names": true/ })
  })

  test('with full feature names, features of two views sharing a name are answered, each under its view\'s name', () => {
    assert.deepEqual(read({ features: ['trip_stats:trips', 'trip_stats_weekly:trips'], full_feature_names: true }).metadata.feature_names,
      ['rider_id', 'trip_stats__trips', 'trip_stats_weekly__trips'])
  })

  test('a feature service reading a view twice, once under an alias, collides only without full feature names', () => {
    expectError(() => read({ feature_service: 'this_and_previous' }), { statusCode: 422, message: /"trips"/ })
    assert.deepEqual(read({ feature_service: 'this_and_previous', full_feature_names: true }).metadata.feature_names,
      ['rider_id', 'previous_rider_id', 'trip_stats__trips', 'previous_trip_stats__trips'])
  })
})

describe('readFeatures over a Feast registry file: an on-demand view\'s sources in the file\'s order', () => {
  // blend is computed from a and then 7; Feast groups a source view's features where the on-demand view meets it, in that order.
  const { dir, cleanup } = tempDir()
  const path = join(dir, 'registry.db')
  writeFileSync(path, encodeRegistry({
    projects: [{ spec: { name: 'mix' } }],
    entities: [{ spec: { name: 'key', join_key: 'key', project: 'mix' } }],
    feature_views: ['a', '7'].map((name) => ({ spec: { name, project: 'mix', entities: ['key'], features: [{ name: `f${name}` }], online: true } })),
    on_demand_feature_views: [{
      spec: {
        name: 'blend',
        project: 'mix',
        entities: ['key'],
        features: [{ name: 'x' }],
        // A Map, written in this order: an object would put "7" first.
        sources: new Map(['a', '7'].map((name) => [name, { feature_view_projection: { feature_view_name: name } }]))
      }
    }]
  }))
  const registry = openFeastRegistry({ path, project: 'mix', pollIntervalMs: 0 })
  after(() => { registry.close(); cleanup() })
  const catalog = catalogFromFeastRegistry(registry)

  test('the features of source views requested after the on-demand view come in its sources\' order, a view named like an integer included', () => {
    const response = readFeatures(readTarget(catalog, { features: ['blend:x', '7:f7', 'a:fa'], entities: { key: [1] } }), createOnlineStore(catalog))
    assert.deepEqual(response.metadata.feature_names, ['key', 'fa', 'f7', 'x'])
  })
})
