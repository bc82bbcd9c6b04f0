/**
 * The two steps of a get-online-features request (src/server/online-read.ts), without a server:
 * what is checked, in which order, and what each step may say. The HTTP behaviour is in
 * feast-checks.test.ts and test/cross-cutting/docs/express-example.test.ts.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { readFeatures, readTarget } from '../../src/server/online-read.ts'
import { createOnlineStore } from '../../src/server/online-store.ts'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
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

  test('wrong JSON types are a 422 naming the field, never echoing the value', () => {
    for (const [body, field] of [
      [[], /body must be a JSON object, got a list/],
      [{ features: 'credit_history:credit_card_due', entities: { a: [1] } }, /"features" must be a non-empty list/],
      [{ features: ['credit_history:credit_card_due'], entities: { a: [[[1]]] } }, /entities\.a\[0\] must be a string, number, boolean or null \(an entity key\), got a list$/],
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

  test('reads the values, entity columns first', () => {
    const response = readFeatures(readTarget(registry, { features: ['credit_history:credit_card_due'], entities: { dob_ssn: ['19530219_5179', 'x'] } }), store)
    assert.deepEqual(response.metadata.feature_names, ['dob_ssn', 'credit_card_due'])
    assert.deepEqual(response.results.map((column) => column.values), [['19530219_5179', 'x'], [8419, null]])
  })

  test('a feature service whose view is gone from the registry is a 404 only now', () => {
    const target = readTarget({ ...registry, featureView: () => undefined }, { feature_service: 'credit_service', entities: { dob_ssn: ['1'] } })
    expectError(() => readFeatures(target, store), { statusCode: 404 })
  })
})
