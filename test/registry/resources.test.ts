import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeRegistry } from '../../src/registry/decode.ts'
import { encodeRegistry } from '../../src/registry/encode.ts'
import type { FeatureViewResource } from '../../src/registry/resources.ts'
import { buildSnapshot, pushTargets, type RegistryProject } from '../../src/registry/snapshot.ts'
import { wire, writeFeastRegistry } from '../helpers/feast-registry-writer.ts'

function project (registry: Uint8Array): RegistryProject {
  return buildSnapshot(decodeRegistry(registry), '/test/registry.db').projects.get('demo') ?? assert.fail('project demo missing')
}

describe('push sources, as Feast\'s DataSource.from_proto picks the class', () => {
  const batch = { type: 'BATCH_FILE', name: 'events', project: 'demo', data_source_class_type: 'feast.infra.offline_stores.file_source.FileSource' }
  /** The targets of a push to `incoming` when it is the stream source of a feature view and the source of a label view. */
  const targetsOf = (source: Record<string, unknown>): string[] => {
    const incoming = { ...source, name: 'incoming', project: 'demo', batch_source: batch }
    const registry = writeFeastRegistry({
      projects: [{ spec: { name: 'demo' } }],
      feature_views: [{ spec: { name: 'view', project: 'demo', batch_source: batch, stream_source: incoming, online: true } }],
      label_views: [{ spec: { name: 'labels', project: 'demo', source: incoming, online: true } }]
    })
    return pushTargets(project(registry), 'incoming').map((target) => `${target.type}:${target.name}`)
  }

  it('a PUSH_SOURCE is one: the views it feeds are its push targets', () => {
    assert.deepEqual(targetsOf({ type: 'PUSH_SOURCE', data_source_class_type: 'feast.data_source.PushSource' }), ['FeatureView:view', 'LabelView:labels'])
  })

  it('a PUSH_SOURCE is one whatever class it records, since Feast reads the class only for custom sources', () => {
    assert.deepEqual(targetsOf({ type: 'PUSH_SOURCE', data_source_class_type: 'feast.infra.offline_stores.file_source.FileSource' }), ['FeatureView:view', 'LabelView:labels'])
  })

  it('a BATCH_FILE source recording the PushSource class is not one: the views it feeds are no push targets', () => {
    assert.deepEqual(targetsOf({ type: 'BATCH_FILE', data_source_class_type: 'feast.data_source.PushSource' }), [])
  })

  it('a CUSTOM_SOURCE whose class is feast.data_source.PushSource is one, as Feast imports that class for it', () => {
    assert.deepEqual(targetsOf({ type: 'CUSTOM_SOURCE', data_source_class_type: 'feast.data_source.PushSource' }), ['FeatureView:view', 'LabelView:labels'])
  })

  it('a CUSTOM_SOURCE whose class is feast.PushSource, the package\'s export of the same class, is one', () => {
    assert.deepEqual(targetsOf({ type: 'CUSTOM_SOURCE', data_source_class_type: 'feast.PushSource' }), ['FeatureView:view', 'LabelView:labels'])
  })

  it('a CUSTOM_SOURCE whose class is another module\'s PushSource is not one', () => {
    assert.deepEqual(targetsOf({ type: 'CUSTOM_SOURCE', data_source_class_type: 'my_company.sources.PushSource' }), [])
  })

  it('a CUSTOM_SOURCE naming no class is not one', () => {
    assert.deepEqual(targetsOf({ type: 'CUSTOM_SOURCE' }), [])
  })
})

describe('entities, in the project their spec names (Feast lists them by spec.project only)', () => {
  const { bytes, string, tag, varint } = wire
  const PROJECT = bytes(17, bytes(1, string(1, 'demo')))
  const entity = (...fields: number[][]): number[] => bytes(1, fields.flat())
  const entities = (...parts: number[][]): string[] =>
    project(Uint8Array.from([...parts.flat(), ...PROJECT])).resources.filter((resource) => resource.type === 'Entity').map((resource) => resource.name)

  it('an entity whose spec names the project is one of its resources', () => {
    assert.deepEqual(entities(entity(bytes(1, [...string(1, 'driver'), ...string(9, 'demo')]))), ['driver'])
  })

  it('an entity whose spec names no project is left out, even with a project in the removed field 3', () => {
    assert.deepEqual(entities(entity(bytes(1, string(1, 'driver')), string(3, 'demo'))), [])
  })

  it('the removed field 3 is skipped as any unknown field, whatever its wire type', () => {
    const withNumber = entity(bytes(1, [...string(1, 'driver'), ...string(9, 'demo')]), tag(3, 0), varint(7))
    assert.deepEqual(entities(withNumber), ['driver'])
  })
})

describe('lifecycle states, as Feast serves views online only in some of them', () => {
  const view = (name: string, state?: string) => ({ spec: { name, project: 'demo', online: true }, ...(state === undefined ? {} : { meta: { state } }) })
  const states = (registry: Uint8Array): Record<string, string | undefined> =>
    Object.fromEntries(project(registry).resources.filter((resource) => 'features' in resource)
      .map((resource) => [resource.name, (resource as { unservedState?: string }).unservedState]))

  it('a feature view registered, generated or being materialized is not served online', () => {
    const registry = writeFeastRegistry({
      projects: [{ spec: { name: 'demo' } }],
      feature_views: [view('created', 'CREATED'), view('generated', 'GENERATED'), view('materializing', 'MATERIALIZING')]
    })
    assert.deepEqual(states(registry), { created: 'CREATED', generated: 'GENERATED', materializing: 'MATERIALIZING' })
  })

  it('a view available online, or without a state (older registries), is served', () => {
    const registry = writeFeastRegistry({
      projects: [{ spec: { name: 'demo' } }],
      feature_views: [view('available', 'AVAILABLE_ONLINE'), view('unspecified', 'STATE_UNSPECIFIED'), view('stateless')]
    })
    assert.deepEqual(states(registry), { available: undefined, unspecified: undefined, stateless: undefined })
  })

  it('a state number Feast does not know is served, as Feast reads it as unspecified', () => {
    const { bytes, string, tag, varint } = wire
    // Written by hand: the test protobuf writer refuses an enum number its .proto does not list.
    const future = bytes(6, [...bytes(1, [...string(1, 'future'), ...string(2, 'demo')]), ...bytes(2, [...tag(6, 0), ...varint(9)])])
    assert.deepEqual(states(Uint8Array.from([...future, ...bytes(17, bytes(1, string(1, 'demo')))])), { future: undefined })
    const generated = bytes(6, [...bytes(1, [...string(1, 'staged'), ...string(2, 'demo')]), ...bytes(2, [...tag(6, 0), ...varint(2)])])
    assert.deepEqual(states(Uint8Array.from([...generated, ...bytes(17, bytes(1, string(1, 'demo')))])), { staged: 'GENERATED' }, 'the hand-written bytes are read')
  })

  it('the state of stream and on-demand views is read from their own meta messages', () => {
    const registry = writeFeastRegistry({
      projects: [{ spec: { name: 'demo' } }],
      stream_feature_views: [view('live', 'GENERATED')],
      on_demand_feature_views: [{ spec: { name: 'derived', project: 'demo' }, meta: { state: 'MATERIALIZING' } }]
    })
    assert.deepEqual(states(registry), { live: 'GENERATED', derived: 'MATERIALIZING' })
  })
})

describe('an on-demand view\'s sources, in the order the registry file writes them', () => {
  // Feast keeps an on-demand view's sources in a dict, which never moves a key named like an integer.
  const withSources = (sources: ReadonlyArray<readonly [string, 'view' | 'request']>): Uint8Array => encodeRegistry({
    projects: [{ spec: { name: 'demo' } }],
    on_demand_feature_views: [{
      spec: {
        name: 'derived',
        project: 'demo',
        // A Map: the encoder writes its entries in this order (an object would put "7" first).
        sources: new Map(sources.map(([name, kind]) => [name, kind === 'request'
          ? { request_data_source: { name, request_data_options: { schema: [{ name: `field_${name}` }] } } }
          : { feature_view_projection: { feature_view_name: name } }]))
      }
    }]
  })
  const derived = (registry: Uint8Array) => project(registry).resources.find((resource) => resource.name === 'derived') as { sources?: readonly string[], requestData?: readonly string[] }

  it('keeps the file\'s order, a source named like an integer included', () => {
    assert.deepEqual(derived(withSources([['a', 'view'], ['7', 'view'], ['10', 'view']])).sources, ['a', '7', '10'])
  })

  it('a source given as a projection is the view the projection names, whatever its key, as Feast\'s from_proto reads it', () => {
    const registry = writeFeastRegistry({
      projects: [{ spec: { name: 'demo' } }],
      on_demand_feature_views: [{
        spec: {
          name: 'derived',
          project: 'demo',
          // Feast writes the key equal to the view's name; from_proto reads the projection's name and drops the key.
          sources: { inputs: { feature_view_projection: { feature_view_name: 'trips', feature_view_name_alias: 'recent_trips', join_key_map: { rider: 'driver' } } } }
        }
      }]
    })
    const view = project(registry).resources.find((resource) => resource.name === 'derived') as { sources?: readonly string[], sourceAliases?: object, sourceJoinKeyMaps?: object }
    assert.deepEqual(view.sources, ['trips'])
    assert.deepEqual({ ...view.sourceAliases }, { trips: 'recent_trips' })
    assert.deepEqual(Object.keys(view.sourceJoinKeyMaps ?? {}), ['trips'])
  })

  // Feast's from_proto walks the sources' values and files each under the name it carries.
  const sourcesOf = (sources: Record<string, unknown>): Pick<FeatureViewResource, 'sources' | 'requestSources' | 'sourceAliases' | 'sourceJoinKeyMaps'> => {
    const registry = writeFeastRegistry({ projects: [{ spec: { name: 'demo' } }], on_demand_feature_views: [{ spec: { name: 'derived', project: 'demo', sources } }] })
    return project(registry).resources.find((resource) => resource.name === 'derived') as FeatureViewResource
  }

  it('a source given as a whole feature view (older Feast) is the view\'s own name, whatever its key, read through no projection', () => {
    const view = sourcesOf({ rides: { feature_view: { spec: { name: 'trips', project: 'demo', features: [{ name: 'count' }], online: true } } } })
    assert.deepEqual([view.sources, view.sourceAliases, view.sourceJoinKeyMaps], [['trips'], undefined, undefined])
  })

  it('a request source is its own name, whatever its key, among the request sources, not the feature views read', () => {
    const view = sourcesOf({ inputs: { request_data_source: { type: 'REQUEST_SOURCE', name: 'trip_request', project: 'demo' } } })
    assert.deepEqual([view.sources, view.requestSources], [[], ['trip_request']])
  })

  it('a request source and a feature view source of one name are both kept, each with its kind, as Feast keeps them in two dicts', () => {
    const view = sourcesOf({
      trips: { feature_view_projection: { feature_view_name: 'trips' } },
      trips_request: { request_data_source: { type: 'REQUEST_SOURCE', name: 'trips', project: 'demo' } }
    })
    assert.deepEqual([view.sources, view.requestSources], [['trips'], ['trips']])
  })

  it('a source carrying no name is known by its key, which keeps a check where Feast cannot read the view', () => {
    for (const source of [{ feature_view: { spec: { project: 'demo' } } }, { feature_view_projection: { feature_view_name_alias: 'recent' } }, {}]) {
      const view = sourcesOf({ trips: source })
      assert.deepEqual([view.sources, view.requestSources], [['trips'], undefined], JSON.stringify(source))
    }
    assert.deepEqual(sourcesOf({ trips: { request_data_source: { project: 'demo' } } }).requestSources, ['trips'])
  })

  it('lists the request data fields in the order of their request sources, one named like an integer included', () => {
    assert.deepEqual(derived(withSources([['trip', 'request'], ['7', 'request']])).requestData, ['field_trip', 'field_7'])
  })
})
