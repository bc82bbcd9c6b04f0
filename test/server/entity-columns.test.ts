/**
 * The `entities` columns of `POST /get-online-features`, sorted as Feast sorts them
 * (`utils._prepare_entities_to_read_from_online_store`): join keys answered, entity names mapped
 * to their join key, request data used and not answered, anything else skipped. The same
 * project is served from a registry YAML file and from a Feast registry file; both answer alike
 * except where the YAML file has nothing to go on (entity names).
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { stringify } from 'yaml'
import { openFeastRegistry, type FeastRegistry } from '../../src/registry/index.ts'
import { catalogFromFeastRegistry } from '../../src/server/catalog-from-feast.ts'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
import { entityColumns, sortEntityColumns } from '../../src/server/entity-columns.ts'
import { readFeatures, readTarget } from '../../src/server/online-read.ts'
import { createOnlineStore } from '../../src/server/online-store.ts'
import { postAs, useReferenceServer, type Reply, type Served, type User } from '../helpers/feast-checks.ts'
import { replaceFile, SAMPLE_REGISTRY, tempDir } from '../helpers/registry-builder.ts'
import { expectError } from '../helpers/errors.ts'
import { writeFeastRegistry } from '../helpers/feast-registry-writer.ts'

// One project, written both as a registry YAML file and as a Feast registry file. `store` is an
// entity no view takes: Feast still counts its join key.
const ENTITIES = [['customer', 'dob_ssn'], ['zip', 'zipcode'], ['merchant', 'merchant_id'], ['store', 'store_id']] as const
const JOIN_KEY: Readonly<Record<string, string>> = Object.fromEntries(ENTITIES)
const VIEWS = [
  { name: 'credit_history', entity: 'customer', features: ['credit_card_due', 'missed_payments'] },
  { name: 'zipcode_features', entity: 'zip', features: ['population'] },
  { name: 'merchant_stats', entity: 'merchant', features: ['rating'] }
]
// Computed at read time from credit_history and the request data transaction_amt.
const ON_DEMAND = { name: 'transaction_check', entity: 'customer', features: ['over_limit'], source: 'credit_history', requestData: ['transaction_amt'] }
// Computed from two views with other join keys than its own: computed at read time, and written to the online store.
const RISK = { entity: 'customer', features: ['risky'], sources: ['credit_history', 'zipcode_features'] }
const RISK_VIEWS = [{ name: 'risk_score', written: false }, { name: 'risk_score_stored', written: true }]
// Reads zipcode_features twice, under two names, each with its join key taken from another column (Feast's with_join_key_map).
const RELOCATION = [
  { view: 'zipcode_features', alias: 'home', features: ['population'], joinKeyMap: { zipcode: 'home_zipcode' } },
  { view: 'zipcode_features', alias: 'work', features: ['population'], joinKeyMap: { zipcode: 'work_zipcode' } },
  { view: 'credit_history', features: ['credit_card_due'] }
]
// Computed from zipcode_features read at a customer's home: its source projection takes zipcode from
// home_zipcode (Feast's zipcode_features.with_join_key_map(...) given as a source); computed at read time, and written to the online store.
const HOME = { entity: 'customer', features: ['home_population'], source: 'zipcode_features', joinKeyMap: { zipcode: 'home_zipcode' } }
const HOME_VIEWS = [{ name: 'home_area', written: false }, { name: 'home_area_stored', written: true }]
// Computed at read time from zipcode_features read at a customer's workplace: its source is
// zipcode_features.with_name('workplace').with_join_key_map({zipcode: 'work_zipcode'}) in Feast.
const WORK = { name: 'work_area', entity: 'customer', features: ['work_population'], source: 'zipcode_features', alias: 'workplace', joinKeyMap: { zipcode: 'work_zipcode' } }
const SAMPLE_ROWS = {
  credit_history: [{ dob_ssn: '1', credit_card_due: 10, missed_payments: 0 }],
  zipcode_features: [{ zipcode: 94107, population: 5 }, { zipcode: 10001, population: 8 }],
  transaction_check: [{ dob_ssn: '1', over_limit: true }],
  risk_score: [{ dob_ssn: '1', risky: false }],
  risk_score_stored: [{ dob_ssn: '1', risky: true }],
  home_area: [{ dob_ssn: '1', home_population: 5 }],
  home_area_stored: [{ dob_ssn: '1', home_population: 6 }],
  work_area: [{ dob_ssn: '1', work_population: 8 }]
}

const REGISTRY_YAML = stringify({
  project: 'credit',
  feature_views: [
    ...VIEWS.map(({ name, entity, features }) => ({ name, entities: [JOIN_KEY[entity]], features })),
    {
      name: ON_DEMAND.name,
      kind: 'OnDemandFeatureView',
      entities: [JOIN_KEY[ON_DEMAND.entity]],
      features: ON_DEMAND.features,
      sources: [ON_DEMAND.source],
      request_data: ON_DEMAND.requestData
    },
    ...RISK_VIEWS.map(({ name, written }) => ({
      name, kind: 'OnDemandFeatureView', entities: [JOIN_KEY[RISK.entity]], features: RISK.features, sources: RISK.sources, write_to_online_store: written
    })),
    ...HOME_VIEWS.map(({ name, written }) => ({
      name,
      kind: 'OnDemandFeatureView',
      entities: [JOIN_KEY[HOME.entity]],
      features: HOME.features,
      sources: [{ view: HOME.source, join_key_map: HOME.joinKeyMap }],
      write_to_online_store: written
    })),
    {
      name: WORK.name,
      kind: 'OnDemandFeatureView',
      entities: [JOIN_KEY[WORK.entity]],
      features: WORK.features,
      sources: [{ view: WORK.source, alias: WORK.alias, join_key_map: WORK.joinKeyMap }]
    }
  ],
  feature_services: [
    { name: 'relocation', features: RELOCATION.map(({ view, alias, features, joinKeyMap }) => ({ view, alias, features, join_key_map: joinKeyMap })) },
    { name: 'risk', features: ['risk_score'] }
  ],
  sample_rows: SAMPLE_ROWS
})

// The Feast registry file has one view more: courier_stats, whose entity courier the registry does not have.
const COURIER = { name: 'courier_stats', entity: 'courier', features: ['deliveries'] }

function feastRegistry (entities: ReadonlyArray<readonly [string, string]>): Uint8Array {
  const names = (features: readonly string[]) => features.map((name) => ({ name }))
  const fromViews = (views: readonly string[]) => Object.fromEntries(views.map((view) => [view, { feature_view_projection: { feature_view_name: view } }]))
  return writeFeastRegistry({
    projects: [{ spec: { name: 'credit' } }],
    entities: entities.map(([name, joinKey]) => ({ spec: { name, join_key: joinKey, project: 'credit' } })),
    feature_views: [...VIEWS, COURIER].map(({ name, entity, features }) => ({ spec: { name, project: 'credit', entities: [entity], features: names(features), online: true } })),
    on_demand_feature_views: [{
      spec: {
        name: ON_DEMAND.name,
        project: 'credit',
        entities: [ON_DEMAND.entity],
        features: names(ON_DEMAND.features),
        sources: {
          ...fromViews([ON_DEMAND.source]),
          transaction: { request_data_source: { type: 'REQUEST_SOURCE', name: 'transaction', request_data_options: { schema: names(ON_DEMAND.requestData) } } }
        }
      }
    }, ...RISK_VIEWS.map(({ name, written }) => ({
      spec: { name, project: 'credit', entities: [RISK.entity], features: names(RISK.features), sources: fromViews(RISK.sources), write_to_online_store: written }
    })), ...HOME_VIEWS.map(({ name, written }) => ({
      spec: {
        name,
        project: 'credit',
        entities: [HOME.entity],
        features: names(HOME.features),
        sources: { [HOME.source]: { feature_view_projection: { feature_view_name: HOME.source, feature_columns: names(['population']), join_key_map: HOME.joinKeyMap } } },
        write_to_online_store: written
      }
    })), {
      spec: {
        name: WORK.name,
        project: 'credit',
        entities: [WORK.entity],
        features: names(WORK.features),
        // Keyed by the view's own name, the alias in the projection: what Feast's to_proto writes.
        sources: {
          [WORK.source]: {
            feature_view_projection: { feature_view_name: WORK.source, feature_view_name_alias: WORK.alias, feature_columns: names(['population']), join_key_map: WORK.joinKeyMap }
          }
        }
      }
    }],
    feature_services: [
      {
        spec: {
          name: 'relocation',
          project: 'credit',
          features: RELOCATION.map(({ view, alias, features, joinKeyMap }) => ({
            feature_view_name: view,
            feature_columns: names(features),
            ...(alias === undefined ? {} : { feature_view_name_alias: alias }),
            ...(joinKeyMap === undefined ? {} : { join_key_map: joinKeyMap })
          }))
        }
      },
      { spec: { name: 'risk', project: 'credit', features: [{ feature_view_name: 'risk_score', feature_columns: names(RISK.features) }] } },
      // Renames zipcode to its entity's name: Feast then finds no join key for the view (a documented difference).
      { spec: { name: 'by_zip', project: 'credit', features: [{ feature_view_name: 'zipcode_features', feature_columns: names(['population']), join_key_map: { zipcode: 'zip' } }] } }
    ]
  })
}

const yamlServer = useReferenceServer(() => ({
  registry: loadYamlCatalogFile({ yaml: REGISTRY_YAML, source: 'registry.yaml' })
}))
let feastFile: FeastRegistry | undefined
const feastServer = useReferenceServer((store) => {
  const path = join(store.dir, 'registry.db')
  writeFileSync(path, feastRegistry(ENTITIES))
  const registry = openFeastRegistry({ path, project: 'credit', pollIntervalMs: 0 })
  feastFile = registry
  return { registry: catalogFromFeastRegistry(registry, SAMPLE_ROWS), close: () => { registry.close() } }
})

const CREDIT = ['credit_history:credit_card_due']
const postFeast = async (user: User, body: unknown): Promise<Reply> => await postAs(feastServer.base, feastServer.tokens[user], '/get-online-features', body)
const values = (reply: Reply): unknown[] => reply.body.results.map((column: { values: unknown[] }) => column.values)

for (const [label, served] of [['registry YAML', yamlServer], ['Feast registry file', feastServer]] as const) {
  const post = async (user: User, body: unknown): Promise<Reply> => await postAs(served.base, served.tokens[user], '/get-online-features', body)
  const read = async (body: unknown): Promise<Reply> => {
    const reply = await post('reader', body)
    assert.equal(reply.status, 200, reply.text)
    return reply
  }

  describe(`get-online-features over a ${label}: the entities columns, as Feast sorts them`, () => {
    test('a join key column is answered first, under its name, with the values sent', async () => {
      const reply = await read({ features: CREDIT, entities: { dob_ssn: ['1', '2'] } })
      assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', 'credit_card_due'])
      assert.deepEqual(values(reply), [['1', '2'], [10, null]])
    })

    test('a join key of the project that the views read do not take is answered too, as Feast answers every entity\'s join key', async () => {
      const reply = await read({ features: CREDIT, entities: { dob_ssn: ['1'], merchant_id: [7] } })
      assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', 'merchant_id', 'credit_card_due'])
    })

    test('a column that is no join key, entity name or request data is not read and not answered, as Feast skips it', async () => {
      const reply = await read({ features: CREDIT, entities: { note: ['x'], dob_ssn: ['1'] } })
      assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', 'credit_card_due'])
      assert.deepEqual(values(reply), [['1'], [10]])
    })

    test('a misspelt join key is a 422 naming the missing join key, the join keys the views read take and the column not read', async () => {
      const reply = await post('reader', { features: [...CREDIT, 'zipcode_features:population'], entities: { zipcode: [94107], dob_sn: ['1'] } })
      assert.equal(reply.status, 422, reply.text)
      assert.equal(reply.body.message, 'entities has no column "dob_ssn", the join key of feature view "credit_history" ' +
        '(the views read take the join keys dob_ssn, zipcode; not read: "dob_sn", neither a join key nor an entity name of the project)')
    })

    test('request data of an on-demand view computed at read time is read, and not answered', async () => {
      const reply = await read({ features: ['transaction_check:over_limit'], entities: { transaction_amt: [500], dob_ssn: ['1'] } })
      assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', 'over_limit'])
      assert.deepEqual(values(reply), [['1'], [true]])
    })

    test('missing request data is a 404 naming the column and the on-demand view, as Feast\'s RequestDataNotFoundInEntityRowsException', async () => {
      const reply = await post('reader', { features: ['transaction_check:over_limit'], entities: { dob_ssn: ['1'] } })
      assert.equal(reply.status, 404, reply.text)
      assert.equal(reply.body.message, 'entities has no column "transaction_amt", request data of on-demand feature view "transaction_check"')
    })

    test('the columns come in Feast\'s order: join keys as first sent, then features by view, on-demand views computed at read time last', async () => {
      const reply = await read({
        features: ['transaction_check:over_limit', 'zipcode_features:population', 'credit_history:missed_payments', 'credit_history:credit_card_due'],
        entities: { zipcode: [94107], note: ['x'], transaction_amt: [1], merchant_id: [7], dob_ssn: ['1'] }
      })
      // The on-demand view reads credit_history: Feast meets that view first, through it.
      assert.deepEqual(reply.body.metadata.feature_names, ['zipcode', 'merchant_id', 'dob_ssn', 'missed_payments', 'credit_card_due', 'population', 'over_limit'])
      assert.deepEqual(values(reply), [[94107], [7], ['1'], [0], [10], [5], [true]])
    })

    test('the columns never widen access: a caller denied a view is denied whatever the entities hold', async () => {
      const reply = await post('zip_reader', { features: CREDIT, entities: { zipcode: [94107], dob_ssn: ['1'], customer: ['1'], transaction_amt: [1] } })
      assert.equal(reply.status, 403, reply.text)
      assert.equal(reply.body.message, 'Permission denied: [READ_ONLINE] on FeatureView:credit_history')
    })

    test('a denied caller gets 403, never the 404 naming missing request data or the 422 naming a join key', async () => {
      for (const entities of [{ dob_ssn: ['1'] }, { transaction_amt: [1] }]) {
        const reply = await post('nobody', { features: ['transaction_check:over_limit'], entities })
        assert.equal(reply.status, 403, reply.text)
        assert.ok(!reply.text.includes('transaction_amt') && !reply.text.includes('dob_ssn'), reply.text)
      }
    })
  })

  describe(`get-online-features over a ${label}: a feature service's join_key_map, as Feast reads it`, () => {
    const RELOCATE = { feature_service: 'relocation', full_feature_names: true }

    test('each projection reads its view from the column its join_key_map names, answered under that name', async () => {
      const reply = await read({ ...RELOCATE, entities: { home_zipcode: [94107], work_zipcode: [10001], dob_ssn: ['1'] } })
      assert.deepEqual(reply.body.metadata.feature_names, ['home_zipcode', 'work_zipcode', 'dob_ssn', 'home__population', 'work__population', 'credit_history__credit_card_due'])
      assert.deepEqual(values(reply), [[94107], [10001], ['1'], [5], [8], [10]])
    })

    test('the view\'s own join key supplies a renamed one too, as Feast reads it; sent both ways, the later column counts', async () => {
      const own = await read({ ...RELOCATE, entities: { zipcode: [94107], work_zipcode: [10001], dob_ssn: ['1'] } })
      assert.deepEqual(values(own).slice(3, 5), [[5], [8]])
      // home: home_zipcode, then zipcode (later: 94107); work: zipcode, then work_zipcode (later: 10001).
      const both = await read({ ...RELOCATE, entities: { home_zipcode: [10001], zipcode: [94107], work_zipcode: [10001], dob_ssn: ['1'] } })
      assert.deepEqual(both.body.metadata.feature_names.slice(0, 3), ['home_zipcode', 'zipcode', 'work_zipcode'])
      assert.deepEqual(values(both).slice(4, 6), [[5], [8]])
    })

    test('a missing renamed column is a 422 naming it, the join key, the view, the projection and the service', async () => {
      const reply = await post('reader', { ...RELOCATE, entities: { home_zipcode: [94107], dob_ssn: ['1'] } })
      assert.equal(reply.status, 422, reply.text)
      assert.equal(reply.body.message, 'entities has no column "work_zipcode", the join key "zipcode" of feature view "zipcode_features" renamed by ' +
        'the join_key_map of its projection "work" in feature service "relocation" (the views read take the join keys home_zipcode, work_zipcode, dob_ssn)')
    })

    test('a renamed column is a join key only in a read of the service renaming to it: elsewhere it is not read, as in Feast', async () => {
      const reply = await post('reader', { features: ['zipcode_features:population'], entities: { home_zipcode: [94107] } })
      assert.equal(reply.status, 422, reply.text)
      assert.match(reply.body.message, /^entities has no column "zipcode", the join key of feature view "zipcode_features" .*; not read: "home_zipcode",/)
    })

    test('a denied caller gets 403 on the service whatever its entities hold, never the 422 naming a renamed column', async () => {
      for (const entities of [{ home_zipcode: [94107] }, { zipcode: [1] }]) {
        const reply = await post('zip_reader', { ...RELOCATE, entities })
        assert.equal(reply.status, 403, reply.text)
        assert.equal(reply.body.message, 'Permission denied: [READ_ONLINE] on FeatureService:relocation')
      }
    })
  })

  describe(`get-online-features over a ${label}: an on-demand view's source's join_key_map, as Feast reads it`, () => {
    test('an on-demand view computed at read time reads its source from the column the source\'s join_key_map names, answered under that name', async () => {
      const reply = await read({ features: ['home_area:home_population'], entities: { home_zipcode: [94107], dob_ssn: ['1'] } })
      assert.deepEqual(reply.body.metadata.feature_names, ['home_zipcode', 'dob_ssn', 'home_population'])
      assert.deepEqual(values(reply), [[94107], ['1'], [5]])
    })

    test('a missing renamed column is a 422 naming it, the join key, the view and the on-demand view', async () => {
      const reply = await post('reader', { features: ['home_area:home_population'], entities: { dob_ssn: ['1'] } })
      assert.equal(reply.status, 422, reply.text)
      assert.equal(reply.body.message, 'entities has no column "home_zipcode", the join key "zipcode" of feature view "zipcode_features" renamed by ' +
        'the join_key_map of its projection among the sources of on-demand feature view "home_area" (the views read take the join keys home_zipcode, dob_ssn)')
    })

    test('the source view is read with the projection the request meets first: after the on-demand view, by the renamed column, as Feast merges them', async () => {
      const after = await read({ features: ['home_area:home_population', 'zipcode_features:population'], entities: { home_zipcode: [10001], dob_ssn: ['1'] } })
      assert.deepEqual(after.body.metadata.feature_names, ['home_zipcode', 'dob_ssn', 'population', 'home_population'])
      assert.deepEqual(values(after), [[10001], ['1'], [8], [5]])
      // Named first, the view keeps its own join key, and the renamed column is no join key of the read.
      const before = await read({ features: ['zipcode_features:population', 'home_area:home_population'], entities: { zipcode: [94107], home_zipcode: [10001], dob_ssn: ['1'] } })
      assert.deepEqual(before.body.metadata.feature_names, ['zipcode', 'dob_ssn', 'population', 'home_population'])
      assert.deepEqual(values(before), [[94107], ['1'], [5], [5]])
    })

    test('an on-demand view written to the online store answers its source\'s renamed column as a join key, as Feast\'s _get_entity_maps counts it', async () => {
      const reply = await read({ features: ['home_area_stored:home_population'], entities: { home_zipcode: [94107], dob_ssn: ['1'] } })
      assert.deepEqual(reply.body.metadata.feature_names, ['home_zipcode', 'dob_ssn', 'home_population'])
      assert.deepEqual(values(reply), [[94107], ['1'], [6]])
    })
  })

  describe(`get-online-features over a ${label}: an on-demand view's source read under an alias (with_name)`, () => {
    test('the source view\'s rows are read through the aliased projection, from the column its join_key_map names, answered under that name', async () => {
      const reply = await read({ features: ['work_area:work_population'], entities: { work_zipcode: [10001], dob_ssn: ['1'] } })
      assert.deepEqual(reply.body.metadata.feature_names, ['work_zipcode', 'dob_ssn', 'work_population'])
      assert.deepEqual(values(reply), [[10001], ['1'], [8]])
    })

    test('a missing renamed column is a 422 naming the alias the on-demand view reads the view under', async () => {
      const reply = await post('reader', { features: ['work_area:work_population'], entities: { dob_ssn: ['1'] } })
      assert.equal(reply.status, 422, reply.text)
      assert.equal(reply.body.message, 'entities has no column "work_zipcode", the join key "zipcode" of feature view "zipcode_features" renamed by ' +
        'the join_key_map of its projection "workplace" among the sources of on-demand feature view "work_area" (the views read take the join keys work_zipcode, dob_ssn)')
    })

    test('the view read under its own name beside it is another table: read by its own join key, its features in their own place', async () => {
      const reply = await read({
        features: ['work_area:work_population', 'credit_history:credit_card_due', 'zipcode_features:population'],
        entities: { work_zipcode: [10001], zipcode: [94107], dob_ssn: ['1'] }
      })
      assert.deepEqual(reply.body.metadata.feature_names, ['work_zipcode', 'zipcode', 'dob_ssn', 'credit_card_due', 'population', 'work_population'])
      assert.deepEqual(values(reply), [[10001], [94107], ['1'], [10], [5], [8]])
      const withoutItsKey = await post('reader', { features: ['work_area:work_population', 'zipcode_features:population'], entities: { work_zipcode: [10001], dob_ssn: ['1'] } })
      assert.equal(withoutItsKey.status, 422, withoutItsKey.text)
      assert.match(withoutItsKey.body.message, /^entities has no column "zipcode", the join key of feature view "zipcode_features" /)
    })
  })

  describe(`get-online-features over a ${label}: the views an on-demand view is computed from`, () => {
    test('an on-demand view computed at read time needs the join keys of the views it is computed from, which Feast reads', async () => {
      for (const named of [{ features: ['risk_score:risky'] }, { feature_service: 'risk' }]) {
        const reply = await post('reader', { ...named, entities: { dob_ssn: ['1'] } })
        assert.equal(reply.status, 422, reply.text)
        assert.equal(reply.body.message, 'entities has no column "zipcode", the join key of feature view "zipcode_features", ' +
          'which on-demand feature view "risk_score" is computed from (the views read take the join keys dob_ssn, zipcode)')
      }
    })

    test('with them, it is read from its own join keys and answers every join key sent', async () => {
      const reply = await read({ features: ['risk_score:risky'], entities: { zipcode: [94107], dob_ssn: ['1'] } })
      assert.deepEqual(reply.body.metadata.feature_names, ['zipcode', 'dob_ssn', 'risky'])
      assert.deepEqual(values(reply), [[94107], ['1'], [false]])
    })

    test('an on-demand view written to the online store is read as stored: its own join keys are enough, as in Feast', async () => {
      const reply = await read({ features: ['risk_score_stored:risky'], entities: { dob_ssn: ['1'] } })
      assert.deepEqual(values(reply), [['1'], [true]])
    })

    test('a denied caller gets 403, never the 422 naming a source view\'s join key', async () => {
      const reply = await post('odfv_reader', { features: ['risk_score:risky'], entities: { dob_ssn: ['1'] } })
      assert.equal(reply.status, 403, reply.text)
      assert.equal(reply.body.message, 'Permission denied: [READ_ONLINE] on FeatureView:credit_history')
    })
  })
}

describe('get-online-features: a view naming an entity the registry does not have, which only a Feast registry file can hold', () => {
  const READ_COURIER = { features: ['courier_stats:deliveries'], entities: { courier: [1] } }

  test('is a 404 naming the view and the entity, as Feast\'s EntityNotFoundException, after the permission check', async () => {
    const reply = await postFeast('reader', READ_COURIER)
    assert.equal(reply.status, 404, reply.text)
    assert.equal(reply.body.message, 'feature view "courier_stats" takes entity "courier", which is not in the registry')
  })

  test('a caller denied the view gets the 403, never the 404 about its entity', async () => {
    const reply = await postFeast('zip_reader', READ_COURIER)
    assert.equal(reply.status, 403, reply.text)
    assert.equal(reply.body.message, 'Permission denied: [READ_ONLINE] on FeatureView:courier_stats')
  })

  test('its entity name is no join key of the project: sent in a read of another view, it is skipped', async () => {
    const reply = await postFeast('reader', { features: CREDIT, entities: { courier: [1], dob_ssn: ['1'] } })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', 'credit_card_due'])
  })
})

describe('get-online-features: entity names, which only a Feast registry file has', () => {
  const post = async (served: Served, entities: Record<string, unknown[]>): Promise<Reply> =>
    await postAs(served.base, served.tokens.reader, '/get-online-features', { features: CREDIT, entities })

  test('an entity name stands for its join key and is answered under the join key, as Feast (deprecated) reads it', async () => {
    const reply = await post(feastServer, { customer: ['1'] })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', 'credit_card_due'])
    assert.deepEqual(values(reply), [['1'], [10]])
  })

  test('an entity name and its join key make one column, where the first was sent, with the later one\'s values, as a Python dict keeps them', async () => {
    const reply = await post(feastServer, { customer: ['2'], zipcode: [94107], dob_ssn: ['1'] })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', 'zipcode', 'credit_card_due'])
    assert.deepEqual(values(reply), [['1'], [94107], [10]])
  })

  test('a join_key_map renaming a join key to its entity\'s name reads the view from that column, answered under it', async () => {
    const reply = await postFeast('reader', { feature_service: 'by_zip', entities: { zip: [10001] } })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(reply.body.metadata.feature_names, ['zip', 'population'])
    assert.deepEqual(values(reply), [[10001], [8]])
  })

  test('the registry YAML file declares join keys only: a column named like an entity is not read there', async () => {
    const reply = await post(yamlServer, { customer: ['1'] })
    assert.equal(reply.status, 422, reply.text)
    assert.match(reply.body.message, /no column "dob_ssn".*not read: "customer"/)
  })
})

describe('the entity columns of a catalog', () => {
  const { dir, cleanup } = tempDir()
  after(cleanup)

  test('of a Feast registry: every entity\'s join key, a view\'s or not, and its name standing for it; an entity it lacks gives none', () => {
    const columns = entityColumns(catalogFromFeastRegistry(feastFile ?? assert.fail('the Feast server is up')))
    assert.deepEqual([...columns.joinKeys].sort(), ['dob_ssn', 'merchant_id', 'store_id', 'zipcode'])
    assert.deepEqual([...columns.entityNames], [['customer', 'dob_ssn'], ['zip', 'zipcode'], ['merchant', 'merchant_id'], ['store', 'store_id']])
  })

  test('of a Feast registry are worked out once per registry version, and again for the next', async () => {
    const path = join(dir, 'versions.db')
    writeFileSync(path, feastRegistry(ENTITIES))
    const registry = openFeastRegistry({ path, project: 'credit', pollIntervalMs: 0 })
    try {
      const catalog = catalogFromFeastRegistry(registry)
      const first = entityColumns(catalog)
      assert.equal(entityColumns(catalog), first, 'the same version asks again')
      replaceFile(path, feastRegistry([['client', 'dob_ssn'], ['zip', 'zipcode'], ['merchant', 'merchant_id']]))
      assert.equal(await registry.refresh(), 'updated')
      assert.deepEqual([...entityColumns(catalog).entityNames.keys()], ['client', 'zip', 'merchant'])
    } finally {
      registry.close()
    }
  })

  test('of a catalog that does not give them are its views\' join keys, worked out once per list of views', () => {
    const yaml = loadYamlCatalogFile({ yaml: REGISTRY_YAML, source: 'registry.yaml' })
    const { entityColumns: _omitted, ...bare } = yaml
    const columns = entityColumns(bare)
    assert.deepEqual([...columns.joinKeys], ['dob_ssn', 'zipcode', 'merchant_id'])
    assert.equal(columns.entityNames.size, 0)
    assert.equal(entityColumns(bare), columns)
  })

  test('sorting: request data first, then join keys, then entity names; the rest is left out, in body order', () => {
    const columns = { joinKeys: new Set(['dob_ssn', 'zipcode']), entityNames: new Map([['customer', 'dob_ssn'], ['dob_ssn', 'other']]) }
    const sorted = sortEntityColumns(Object.entries({ z: [0], zipcode: [1], amount: [2], customer: [3], dob_ssn: [4], a: [5] }), columns, new Set(['amount', 'zipcode']))
    assert.deepEqual([...sorted.keys], [['dob_ssn', [4]]])
    assert.deepEqual([...sorted.requestData], ['zipcode', 'amount'])
    assert.deepEqual(sorted.ignored, ['z', 'a'])
  })
})

describe('the error for a missing join key', () => {
  test('names five of the columns not read, and how many more there are', () => {
    const catalog = loadYamlCatalogFile({ yaml: REGISTRY_YAML, source: 'registry.yaml' })
    const entities = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`c${i}`, [i]]))
    expectError(() => readFeatures(readTarget(catalog, { features: CREDIT, entities }), createOnlineStore(catalog)), {
      statusCode: 422, message: /; not read: "c0", "c1", "c2", "c3", "c4" and 995 more, neither a join key nor an entity name of the project\)$/
    })
  })
})

describe('Feast\'s sample registry (written by Feast): its on-demand view without entities', () => {
  const sample = openFeastRegistry({ path: SAMPLE_REGISTRY, project: 'credit_scoring_aws', pollIntervalMs: 0, cacheTtlSeconds: 0 })
  after(() => { sample.close() })
  const catalog = catalogFromFeastRegistry(sample)
  const store = createOnlineStore(catalog)
  const read = (entities: Record<string, unknown[]>) =>
    readFeatures(readTarget(catalog, { features: ['transaction_gt_last_credit_card_due:transaction_gt_last_credit_card_due'], entities }), store)

  test('is read with its request data, which is not answered, and without the dummy join key Feast fills in itself', () => {
    const response = read({ dob_ssn: ['19530219_5179'], transaction_amt: [100] })
    assert.deepEqual(response.metadata.feature_names, ['dob_ssn', 'transaction_gt_last_credit_card_due'])
    assert.deepEqual(response.results[1]?.statuses, ['NOT_FOUND'])
  })

  test('is a 404 without its request data', () => {
    expectError(() => read({ dob_ssn: ['19530219_5179'] }), {
      statusCode: 404, message: 'entities has no column "transaction_amt", request data of on-demand feature view "transaction_gt_last_credit_card_due"'
    })
  })
})

describe('a view without entities (Feast\'s dummy join key)', () => {
  const catalog = loadYamlCatalogFile({
    yaml: stringify({
      project: 'totals',
      feature_views: [{ name: 'daily_totals', entities: ['__dummy_id'], features: ['orders'] }],
      sample_rows: { daily_totals: [{ __dummy_id: '', orders: 7 }] }
    }),
    source: 'registry.yaml'
  })
  const read = (entities: Record<string, unknown[]>) => readFeatures(readTarget(catalog, { features: ['daily_totals:orders'], entities }), createOnlineStore(catalog))

  test('is read under the empty key whatever __dummy_id the caller sends, as Feast overwrites it', () => {
    const response = read({ __dummy_id: ['x', 'y'] })
    assert.deepEqual(response.results.at(-1)?.values, [7, 7])
    assert.deepEqual(response.results.at(-1)?.statuses, ['PRESENT', 'PRESENT'])
  })

  test('answers a sent __dummy_id column as sent, as Feast does before it overwrites the key', () => {
    assert.deepEqual(read({ __dummy_id: ['x'] }).metadata.feature_names, ['__dummy_id', 'orders'])
  })
})
