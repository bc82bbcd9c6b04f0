import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { decide } from '../../src/permissions/decide.ts'
import type { Action, Resource } from '../../src/permissions/model.ts'
import { createPrincipal, type Principal } from '../../src/base/principal.ts'
import { loadRegistryFile, type FeatureViewResource, type LabelViewResource, type RegistryResource } from '../../src/registry/index.ts'
import { pushTargets } from '../../src/registry/snapshot.ts'
import { everyKindRegistry, writeFeastRegistry } from '../helpers/feast-registry-writer.ts'
import { tempDir } from '../helpers/registry-builder.ts'

const { dir, cleanup } = tempDir()
after(cleanup)
const path = join(dir, 'registry.db')
writeFileSync(path, writeFeastRegistry(everyKindRegistry()))
const snapshot = loadRegistryFile(path, 'fraud')
const fraud = snapshot.projects.get('fraud') ?? assert.fail('project fraud missing')
const risk = snapshot.projects.get('risk') ?? assert.fail('project risk missing')

const find = (type: RegistryResource['type'], name: string): RegistryResource => fraud.find(type, name) ?? assert.fail(`${type} ${name} missing`)
const view = (type: RegistryResource['type'], name: string): FeatureViewResource => find(type, name) as FeatureViewResource
const allowed = (roles: Partial<Pick<Principal, 'roles' | 'groups' | 'namespaces'>>, resource: Resource, action: Action): boolean =>
  decide(fraud.permissions, createPrincipal({ username: 'u', roles: roles.roles ?? [], groups: roles.groups ?? [], namespaces: roles.namespaces ?? [], source: 'oidc' }), resource, [action]).allowed

describe('a registry written with Feast\'s field numbers, with every kind of object', () => {
  it('lists the projects Feast lists, ignoring the deprecated project_metadata beside them', () => {
    assert.deepEqual(snapshot.projectNames, ['fraud', 'risk'])
    assert.equal(snapshot.versionId, 'every-kind-1')
    assert.equal(snapshot.lastUpdated?.toISOString(), '2026-01-01T00:00:00.000Z')
  })

  it('lists every object with the type Feast loads it as, in registry order by kind', () => {
    assert.deepEqual(fraud.resources.map((resource) => `${resource.type}:${resource.name}`), [
      'Project:fraud',
      'Entity:user',
      'DataSource:user_stats_source', 'DataSource:user_push', 'DataSource:request_amount', 'DataSource:chargeback_push',
      'FeatureView:user_stats', 'BatchFeatureView:user_stats_batch', 'FeatureView:user_stats_legacy', 'FeatureView:user_history',
      'StreamFeatureView:user_stream',
      'OnDemandFeatureView:amount_ratio', 'OnDemandFeatureView:amount_check',
      'LabelView:fraud_labels', 'LabelView:chargeback_labels',
      'FeatureService:fraud_model',
      'SavedDataset:training_set',
      'ValidationReference:training_profile',
      'Permission:analysts-read', 'Permission:batch-writers', 'Permission:labelers', 'Permission:platform-admins'
    ])
    assert.deepEqual(risk.resources.map((resource) => `${resource.type}:${resource.name}`), ['Project:risk', 'Permission:risk-readers'])
  })

  it('reads the tags of every kind', () => {
    const tags = Object.fromEntries(fraud.resources.map((resource) => [`${resource.type}:${resource.name}`, { ...resource.tags }]))
    assert.deepEqual(tags['Project:fraud'], { domain: 'payments' })
    assert.deepEqual(tags['Entity:user'], { pii: 'true' })
    assert.deepEqual(tags['DataSource:user_stats_source'], { format: 'parquet' })
    assert.deepEqual(tags['FeatureView:user_stats'], { team: 'fraud', tier: 'gold' })
    assert.deepEqual(tags['BatchFeatureView:user_stats_batch'], { team: 'fraud', kind: 'batch' })
    assert.deepEqual(tags['StreamFeatureView:user_stream'], { team: 'fraud', kind: 'stream' })
    assert.deepEqual(tags['OnDemandFeatureView:amount_ratio'], { team: 'fraud', odfv: 'yes' })
    assert.deepEqual(tags['LabelView:fraud_labels'], { team: 'fraud', kind: 'labels' })
    assert.deepEqual(tags['FeatureService:fraud_model'], { stage: 'prod' })
    assert.deepEqual(tags['SavedDataset:training_set'], { purpose: 'training' })
    assert.deepEqual(tags['Permission:analysts-read'], { managed_by: 'platform' })
  })

  it('reads a validation reference with a description: description is field 4, tags field 5', () => {
    const reference = find('ValidationReference', 'training_profile')
    assert.deepEqual({ ...reference, tags: { ...reference.tags } }, {
      type: 'ValidationReference',
      name: 'training_profile',
      project: 'fraud',
      tags: { checked_by: 'great_expectations' },
      description: 'expectations for the training set',
      referenceDataset: 'training_set'
    })
  })

  it('reads a label view: entities, features, source, online, description, owner', () => {
    const labels = find('LabelView', 'fraud_labels') as LabelViewResource
    assert.deepEqual({ ...labels, tags: { ...labels.tags } }, {
      type: 'LabelView',
      name: 'fraud_labels',
      project: 'fraud',
      tags: { team: 'fraud', kind: 'labels' },
      description: 'confirmed fraud cases',
      owner: 'investigations@example.com',
      features: ['is_fraud'],
      entities: ['user'],
      source: 'fraud_labels_source',
      online: true
    })
  })

  it('types a feature view with a transformation as a BatchFeatureView, and one without as a FeatureView', () => {
    assert.equal(fraud.find('FeatureView', 'user_stats_batch'), undefined)
    assert.equal(view('BatchFeatureView', 'user_stats_batch').batchSource, 'user_stats_source')
    assert.equal(view('FeatureView', 'user_stats').type, 'FeatureView')
  })

  it('reads online, disabled and write_to_online_store (what Feast\'s default materialize set depends on)', () => {
    const flags = (resource: FeatureViewResource): unknown => ({
      online: resource.online, disabled: resource.disabled, writeToOnlineStore: resource.writeToOnlineStore
    })
    assert.deepEqual(flags(view('FeatureView', 'user_stats')), { online: true, disabled: undefined, writeToOnlineStore: undefined })
    assert.deepEqual(flags(view('FeatureView', 'user_stats_legacy')), { online: true, disabled: true, writeToOnlineStore: undefined })
    assert.deepEqual(flags(view('FeatureView', 'user_history')), { online: false, disabled: undefined, writeToOnlineStore: undefined })
    assert.deepEqual(flags(view('StreamFeatureView', 'user_stream')), { online: true, disabled: undefined, writeToOnlineStore: undefined })
    assert.deepEqual(flags(view('OnDemandFeatureView', 'amount_ratio')), { online: undefined, disabled: undefined, writeToOnlineStore: true })
    assert.deepEqual(flags(view('OnDemandFeatureView', 'amount_check')), { online: undefined, disabled: true, writeToOnlineStore: false })
  })

  it('reads offline (field 13) of feature views: what lets Feast materialize a named view that is not online', () => {
    assert.equal(view('FeatureView', 'user_history').offline, true)
    assert.equal(view('FeatureView', 'user_stats').offline, true)
    assert.equal(view('BatchFeatureView', 'user_stats_batch').offline, undefined)
    assert.equal(view('StreamFeatureView', 'user_stream').offline, undefined)
  })

  it('reads a stream view fed by a push source, and an on-demand view\'s feature view and request sources apart', () => {
    assert.equal(view('StreamFeatureView', 'user_stream').pushSource, 'user_push')
    assert.deepEqual(view('OnDemandFeatureView', 'amount_ratio').sources, ['user_stats'])
    assert.deepEqual(view('OnDemandFeatureView', 'amount_ratio').requestSources, ['request_amount'])
  })

  it('reads the join_key_map of an on-demand view\'s source projection, by source name; a source renaming none has no map', () => {
    assert.deepEqual({ ...view('OnDemandFeatureView', 'amount_ratio').sourceJoinKeyMaps?.user_stats }, { user_id: 'customer_id' })
    assert.equal(view('OnDemandFeatureView', 'amount_check').sourceJoinKeyMaps, undefined)
  })

  it('reads the alias of an on-demand view\'s source projection, by source name; a source without one has none', () => {
    assert.deepEqual({ ...view('OnDemandFeatureView', 'amount_ratio').sourceAliases }, { user_stats: 'customer_stats' })
    assert.equal(view('OnDemandFeatureView', 'amount_check').sourceAliases, undefined)
  })

  it('reads the fields of an on-demand view\'s request sources, as Feast\'s get_request_data_schema lists them', () => {
    assert.deepEqual(view('OnDemandFeatureView', 'amount_ratio').requestData, ['amount'])
    // A request source written without request_data_options carries no field.
    assert.equal(view('OnDemandFeatureView', 'amount_check').requestData, undefined)
  })

  it('reads a label view fed by a push source as that push source\'s, and one fed by a file as nobody\'s', () => {
    assert.equal((find('LabelView', 'chargeback_labels') as LabelViewResource).pushSource, 'chargeback_push')
    assert.equal((find('LabelView', 'fraud_labels') as LabelViewResource).pushSource, undefined)
  })

  it('lists a label view among the targets of its push source, as Feast\'s FeatureStore.push writes to it', () => {
    assert.deepEqual(pushTargets(fraud, 'chargeback_push').map((resource) => `${resource.type}:${resource.name}`), ['LabelView:chargeback_labels'])
    assert.deepEqual(pushTargets(fraud, 'user_push').map((resource) => `${resource.type}:${resource.name}`), ['StreamFeatureView:user_stream'])
  })

  it('reads a feature service\'s projections, alias and join key map included', () => {
    const service = find('FeatureService', 'fraud_model')
    const projections = service.type === 'FeatureService' ? service.projections : []
    assert.deepEqual(projections.map(({ joinKeyMap, ...rest }) => ({ ...rest, ...(joinKeyMap === undefined ? {} : { joinKeyMap: { ...joinKeyMap } }) })), [
      { featureView: 'user_stats', features: ['txn_count_7d'] },
      { featureView: 'amount_ratio', alias: 'ratio_view', features: ['ratio'], joinKeyMap: { user_id: 'customer_id' } }
    ])
  })

  it('reads each permission field by field, for every policy type', () => {
    const [analysts, batch, labelers, admins] = fraud.permissions
    assert.deepEqual({ ...analysts, requiredTags: { ...analysts?.requiredTags }, tags: { ...analysts?.tags } }, {
      name: 'analysts-read',
      types: ['FeatureView', 'OnDemandFeatureView', 'FeatureService'],
      namePatterns: ['user_.*', 'amount_.*'],
      requiredTags: { team: 'fraud' },
      actions: ['DESCRIBE', 'READ_ONLINE', 'READ_OFFLINE'],
      policy: { kind: 'role', roles: ['analyst', 'auditor'] },
      tags: { managed_by: 'platform' }
    })
    assert.deepEqual(batch?.types, ['BatchFeatureView'])
    assert.deepEqual(batch?.policy, { kind: 'group', groups: ['etl'] })
    assert.deepEqual(labelers?.types, ['LabelView'])
    assert.deepEqual(labelers?.policy, { kind: 'namespace', namespaces: ['labeling'] })
    assert.equal(admins?.types.length, 12, 'an empty type list is every type')
    assert.deepEqual(admins?.policy, { kind: 'combined', groups: ['platform'], namespaces: ['feast-system'] })
    assert.deepEqual(risk.permissions.map((permission) => permission.types), [['Project', 'Entity', 'DataSource', 'ValidationReference', 'SavedDataset', 'Permission', 'StreamFeatureView']])
  })
})

describe('permissions over the types Feast loads', () => {
  it('a BatchFeatureView permission grants on a batch feature view', () => {
    assert.equal(allowed({ groups: ['etl'] }, find('BatchFeatureView', 'user_stats_batch'), 'WRITE_ONLINE'), true)
  })

  it('a BatchFeatureView permission does not grant on a plain feature view', () => {
    assert.equal(allowed({ groups: ['etl'] }, find('FeatureView', 'user_stats'), 'WRITE_ONLINE'), false)
  })

  it('a FeatureView permission grants on a batch feature view, a subclass of FeatureView in Feast', () => {
    assert.equal(allowed({ roles: ['analyst'] }, find('BatchFeatureView', 'user_stats_batch'), 'READ_ONLINE'), true)
  })

  it('a LabelView permission grants on a label view, and a FeatureView permission does not (LabelView is not a FeatureView)', () => {
    assert.equal(allowed({ namespaces: ['labeling'] }, find('LabelView', 'fraud_labels'), 'UPDATE'), true)
    assert.equal(allowed({ roles: ['analyst'] }, { ...find('LabelView', 'fraud_labels'), tags: { team: 'fraud' } }, 'DESCRIBE'), false)
  })
})
