import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { loadRegistryFile, openFeastRegistry, UNKNOWN_PROJECT_PERMISSIONS, type FeatureServiceResource, type FeatureViewResource } from '../../src/registry/index.ts'
import { RAG_REGISTRY, SAMPLE_REGISTRY } from '../helpers/registry-builder.ts'

const PROJECT = 'credit_scoring_aws'

for (const [label, path] of [['ui-sample-registry.db', SAMPLE_REGISTRY], ['ui-rag-registry.db', RAG_REGISTRY]] as const) {
  describe(`Feast's ${label}`, () => {
    const snapshot = loadRegistryFile(path, PROJECT)
    const project = snapshot.projects.get(PROJECT)

    it('lists the one project credit_scoring_aws', () => {
      assert.deepEqual(snapshot.projectNames, [PROJECT])
      assert.deepEqual([...snapshot.projects.keys()], [PROJECT])
    })

    it('carries the version id Feast wrote', () => {
      assert.equal(snapshot.versionId, '1607e20e-dc39-45a8-9e5b-ec52ba7176ef')
    })

    it('has the feature views credit_history, zipcode_features and zipcode_money_features', () => {
      const views = project?.resources.filter((resource) => resource.type === 'FeatureView').map((resource) => resource.name)
      assert.deepEqual(views, ['credit_history', 'zipcode_features', 'zipcode_money_features'])
    })

    it('reads the tags of a feature view', () => {
      assert.deepEqual({ ...project?.find('FeatureView', 'credit_history')?.tags }, {
        date_added: '2022-02-6', access_group: 'feast-team@feast.ai', experiments: 'experiment-A'
      })
      assert.equal(project?.find('FeatureView', 'zipcode_features')?.tags.experiments, 'experiment-A,experiment-B,experiment-C')
    })

    it('reads the features, entities and batch source of a feature view', () => {
      const view = project?.find('FeatureView', 'zipcode_money_features') as FeatureViewResource | undefined
      assert.deepEqual(view?.features, ['tax_returns_filed', 'total_wages'])
      assert.deepEqual(view?.entities, ['zipcode'])
      assert.equal(view?.batchSource, 'zipcode')
      assert.equal(view?.pushSource, undefined)
      assert.equal(view?.project, PROJECT)
    })

    it('has the on-demand feature view transaction_gt_last_credit_card_due, its feature view source and its request source', () => {
      const view = project?.find('OnDemandFeatureView', 'transaction_gt_last_credit_card_due') as FeatureViewResource | undefined
      assert.deepEqual(view?.features, ['transaction_gt_last_credit_card_due'])
      assert.deepEqual([view?.sources, view?.requestSources], [['credit_history'], ['transaction']])
    })

    it('reads the request data the on-demand view needs from its request source transaction', () => {
      const view = project?.find('OnDemandFeatureView', 'transaction_gt_last_credit_card_due') as FeatureViewResource | undefined
      assert.deepEqual(view?.requestData, ['transaction_amt'])
    })

    it('has the five feature services with their tags', () => {
      const services = project?.resources.filter((resource) => resource.type === 'FeatureService')
      assert.deepEqual(services?.map((service) => service.name), ['credit_score_v2', 'zipcode_model', 'zipcode_model_v2', 'credit_score_v3', 'credit_score_v1'])
      assert.deepEqual({ ...services?.[0]?.tags }, { owner: 'tony@feast.ai', stage: 'prod' })
      assert.deepEqual({ ...services?.[4]?.tags }, { owner: 'tony@feast.ai', stage: 'staging' })
    })

    it('reads the feature view projections of a feature service', () => {
      const service = project?.find('FeatureService', 'credit_score_v1') as FeatureServiceResource | undefined
      assert.deepEqual(service?.projections, [
        { featureView: 'credit_history', features: ['credit_card_due', 'missed_payments_1y'] },
        { featureView: 'zipcode_features', features: ['city', 'state', 'location_type', 'tax_returns_filed', 'population', 'total_wages'] }
      ])
    })

    it('has the entities and data sources, with their tags', () => {
      assert.deepEqual(project?.resources.filter((r) => r.type === 'Entity').map((r) => r.name), ['__dummy', 'zipcode', 'dob_ssn'])
      assert.deepEqual({ ...project?.find('Entity', 'zipcode')?.tags }, { owner: 'danny@feast.ai', team: 'hack week' })
      assert.deepEqual(project?.resources.filter((r) => r.type === 'DataSource').map((r) => r.name), ['zipcode', 'transaction', 'credit_history'])
    })

    it('holds no permissions', () => {
      assert.equal(snapshot.permissions.length, 0)
      assert.deepEqual(project?.permissions, [])
    })
  })
}

describe('a live registry over a Feast registry file', () => {
  const registry = openFeastRegistry({ path: SAMPLE_REGISTRY, project: PROJECT, pollIntervalMs: 0, cacheTtlSeconds: 0 })
  after(() => { registry.close() })

  it('gives the server project\'s permissions when a request names no project', () => {
    assert.deepEqual(registry.permissionsFor(), [])
    assert.deepEqual(registry.permissionsFor(''), [])
  })

  it('gives an unknown project a permission that denies everything, never an empty list', () => {
    assert.equal(registry.permissionsFor('no_such_project'), UNKNOWN_PROJECT_PERMISSIONS)
    assert.deepEqual(UNKNOWN_PROJECT_PERMISSIONS[0]?.policy, { kind: 'role', roles: [] })
  })

  it('finds a feature view of any kind by name', () => {
    assert.equal(registry.featureView('credit_history')?.type, 'FeatureView')
    assert.equal(registry.featureView('transaction_gt_last_credit_card_due')?.type, 'OnDemandFeatureView')
    assert.equal(registry.featureView('credit_history', 'no_such_project'), undefined)
  })

  it('looks a resource up by type and name', () => {
    assert.equal(registry.resource('FeatureService', 'zipcode_model')?.name, 'zipcode_model')
    assert.equal(registry.resource('FeatureView', 'zipcode_model'), undefined)
  })
})
