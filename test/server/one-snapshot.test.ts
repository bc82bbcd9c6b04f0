/**
 * Each request of the reference server acts on the registry snapshot its permission check saw:
 * a registry that refreshes between the check and the handler (here, right after the request's
 * first lookup) changes nothing for that request, and the next request sees the new snapshot.
 */
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { permission, roleBasedPolicy } from '../../src/permissions/index.ts'
import { createPrincipal } from '../../src/base/principal.ts'
import { buildReferenceServer } from '../../src/server/app.ts'
import { registryFromSnapshot, type FeatureRegistry, type FeatureViewDef, type YamlRegistrySnapshot } from '../../src/server/registry.ts'
import { stubManager } from '../helpers/stub-manager.ts'

const view = (def: Partial<FeatureViewDef> & Pick<FeatureViewDef, 'name' | 'entities' | 'features'>): FeatureViewDef => ({ kind: 'FeatureView', tags: {}, ...def })

// What the permission check sees: `stats`, for the drivers team, fed by `stats_push`.
const CHECKED: YamlRegistrySnapshot = {
  project: 'demo',
  featureViews: [view({ name: 'stats', tags: { team: 'drivers' }, entities: ['driver_id'], features: ['conv_rate'], pushSource: 'stats_push' })],
  featureServices: [],
  sampleRows: {}
}
// After the refresh: `stats` changed (another team, key and feature) and `extra` joined the push source.
const REFRESHED: YamlRegistrySnapshot = {
  project: 'demo',
  featureViews: [
    view({ name: 'stats', tags: { team: 'research' }, entities: ['customer_id'], features: ['score'], pushSource: 'stats_push' }),
    view({ name: 'extra', tags: { team: 'drivers' }, entities: ['driver_id'], features: ['trips'], pushSource: 'stats_push' })
  ],
  featureServices: [],
  sampleRows: {}
}

/** A registry that moves to `REFRESHED` right after its next lookup, once armed. */
function refreshingRegistry (): { registry: FeatureRegistry, refreshAfterNextLookup: () => void } {
  const checked = registryFromSnapshot(CHECKED)
  const refreshed = registryFromSnapshot(REFRESHED)
  let current = checked
  let armed = false
  const lookup = (): FeatureRegistry => {
    const seen = current
    if (armed) { current = refreshed; armed = false }
    return seen
  }
  return {
    registry: {
      project: 'demo',
      featureViews: () => lookup().featureViews(),
      featureView: (name) => lookup().featureView(name),
      featureService: (name) => lookup().featureService(name),
      viewsFedBy: (source) => lookup().viewsFedBy(source),
      sampleRows: (name) => current.sampleRows(name)
    },
    refreshAfterNextLookup: () => { current = checked; armed = true }
  }
}

// Everything on views of the drivers team, nothing else: a view of another team would be a 403.
const PERMISSIONS = [permission({
  name: 'drivers-team',
  types: ['FeatureView'],
  requiredTags: { team: 'drivers' },
  actions: ['DESCRIBE', 'READ_ONLINE', 'WRITE_ONLINE'],
  policy: roleBasedPolicy(['writer'])
})]
const OIDC_CONFIG = { project: 'demo', auth: { type: 'oidc', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration', client_id: 'feast' } }

const refreshing = refreshingRegistry()
let app: FastifyInstance

before(async () => {
  app = await buildReferenceServer({
    config: OIDC_CONFIG,
    manager: stubManager({ writer: createPrincipal({ username: 'walt', roles: ['writer'], source: 'oidc' }) }),
    permissions: PERMISSIONS,
    registry: refreshing.registry
  })
})
after(async () => { await app.close() })
beforeEach(() => { refreshing.refreshAfterNextLookup() })

async function call (method: 'GET' | 'POST', url: string, payload?: unknown): Promise<{ status: number, body: any }> {
  const response = await app.inject({ method, url, headers: { authorization: 'Bearer writer' }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })
  return { status: response.statusCode, body: response.json() }
}

describe('reference server: one registry snapshot per request', () => {
  test('get-online-features reads the view its permission check saw', async () => {
    const reply = await call('POST', '/get-online-features', { features: ['stats:conv_rate'], entities: { driver_id: [1] } })
    assert.equal(reply.status, 200, JSON.stringify(reply.body))
    assert.deepEqual(reply.body.metadata.feature_names, ['driver_id', 'conv_rate'])
  })

  test('write-to-online-store writes the view its permission check saw', async () => {
    const reply = await call('POST', '/write-to-online-store', { feature_view_name: 'stats', df: { driver_id: [1], conv_rate: [0.5] } })
    assert.equal(reply.status, 200, JSON.stringify(reply.body))
    assert.deepEqual(reply.body, { feature_view_name: 'stats', rows: 1 })
  })

  test('push writes only the views whose permissions were checked', async () => {
    const reply = await call('POST', '/push', { push_source_name: 'stats_push', df: { driver_id: [1], conv_rate: [0.5] } })
    assert.equal(reply.status, 200, JSON.stringify(reply.body))
    assert.deepEqual(reply.body.feature_views, ['stats'])
  })

  test('materialize covers only the views whose permissions were checked', async () => {
    const reply = await call('POST', '/materialize', { start_ts: '2026-11-01T00:00:00Z', end_ts: '2026-11-02T00:00:00Z' })
    assert.equal(reply.status, 200, JSON.stringify(reply.body))
    assert.deepEqual(reply.body, { materialized: ['stats'] })
  })

  test('the feature view listing shows the views as the filter check saw them', async () => {
    const reply = await call('GET', '/api/v1/feature_views')
    assert.equal(reply.status, 200, JSON.stringify(reply.body))
    assert.deepEqual(reply.body.featureViews.map((entry: { spec: { name: string, tags: unknown } }) => [entry.spec.name, entry.spec.tags]), [['stats', { team: 'drivers' }]])
  })

  test('the next request sees the refreshed registry', async () => {
    await call('POST', '/materialize', { start_ts: '2026-11-01T00:00:00Z', end_ts: '2026-11-02T00:00:00Z' })
    const reply = await call('POST', '/write-to-online-store', { feature_view_name: 'extra', df: { driver_id: [1], trips: [3] } })
    assert.equal(reply.status, 200, JSON.stringify(reply.body))
    assert.deepEqual(reply.body, { feature_view_name: 'extra', rows: 1 })
  })
})
