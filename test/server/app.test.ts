/**
 * `buildReferenceServer` is built on the public API only: it checks what it adds (`registry`,
 * `pinoLogger`, the bounds `onlineStoreMaxBytes` and `maxAnsweredValues`) before building
 * anything, the plugin checks the options it shares (OptionError), and Fastify checks its own
 * (`bodyLimit`), each naming the option.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildReferenceServer, type ReferenceServerOptions } from '../../src/server/app.ts'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
import type { FeatureCatalog } from '../../src/server/catalog.ts'
import { captureLogs } from '../helpers/logs.ts'

const config = { project: 'p', auth: { type: 'no_auth' } }
const build = async (options: Record<string, unknown>): Promise<unknown> => await buildReferenceServer({ config, ...options } as ReferenceServerOptions)

describe('reference server options', () => {
  test('an infinite bodyLimit, which would accept bodies of any size, is refused with the option named', async () => {
    await assert.rejects(build({ bodyLimit: Number.POSITIVE_INFINITY }), (error: unknown) => {
      assert.equal((error as { code?: string }).code, 'FST_ERR_ROUTE_BODY_LIMIT_OPTION_NOT_INT')
      assert.match((error as Error).message, /'bodyLimit' option must be an integer > 0\. Got 'Infinity'/)
      return true
    })
  })

  test('a registry file path given as the registry option is refused at startup, with where the path belongs', async () => {
    await assert.rejects(build({ registry: './registry.db' }), {
      name: 'OptionError',
      option: 'registry',
      message: 'feast-authz: buildReferenceServer: registry must be a Feast registry opened with openFeastRegistry ' +
        '(a path goes in feature_store.yaml\'s `registry`), or a FeatureCatalog, got "./registry.db"'
    })
  })

  test('an object that is neither a Feast registry nor a feature catalog is refused as the registry', async () => {
    await assert.rejects(build({ registry: { featureViews: () => [] } }), { name: 'OptionError', option: 'registry', message: /got an object that is neither$/ })
  })

  test('a Feast registry look-alike without fileState, which GET /health asks, is refused at startup rather than failing there', async () => {
    const lookAlike = Object.fromEntries(['permissionsFor', 'projectView', 'featureView', 'resource', 'pushTargets', 'hasProject'].map((name) => [name, () => undefined]))
    await assert.rejects(build({ registry: lookAlike }), { name: 'OptionError', option: 'registry', message: /got an object that is neither$/ })
  })

  test('a pinoLogger that is not a logger is refused with the option named', async () => {
    await assert.rejects(build({ pinoLogger: { info () {} } }), {
      name: 'OptionError',
      option: 'pinoLogger',
      message: 'feast-authz: buildReferenceServer: pinoLogger must be a pino logger (createLogger()), with the methods trace, debug, info, warn, error, fatal, child'
    })
  })

  test('without a registry, the server says at startup that it serves an empty one and how to give one', async (t) => {
    const logs = captureLogs()
    const app = await buildReferenceServer({ config, pinoLogger: logs.logger })
    t.after(async () => { await app.close() })
    const said = logs.at('warn').filter((line) => line.msg.includes('serving an empty registry'))
    assert.equal(said.length, 1, JSON.stringify(logs.lines))
    assert.equal(said[0]?.project, 'p')
    assert.match(said[0]?.msg ?? '', /feast-authz serve --registry/)
  })

  test('without a registry, a configuration that names no project is refused, naming the field', async () => {
    await assert.rejects(buildReferenceServer({ config: { auth: { type: 'no_auth' } } }), {
      name: 'ConfigError',
      field: 'project',
      message: 'project: expected the project name when no registry is given'
    })
  })

  test('a request must arrive within 60 s, body included: Fastify alone lets a caller send it a byte at a time for ever', async (t) => {
    // Node checks every 30 s, so the connection being closed is not waited for here.
    const app = await buildReferenceServer({ config })
    t.after(async () => { await app.close() })
    assert.equal(app.server.requestTimeout, 60_000)
    assert.ok(app.server.headersTimeout <= app.server.requestTimeout)
  })

  test('a bad plugin option is refused by the plugin, with its name', async () => {
    await assert.rejects(build({ maxTokenLength: -1 }), {
      name: 'OptionError',
      option: 'maxTokenLength',
      message: 'feast-authz: maxTokenLength must be an integer of at least 1, got -1'
    })
  })

  // Each kind of bad bound, for both bounds: refused before anything is built, naming the option,
  // what it takes (with its default) and the value given.
  const BOUNDS = [['onlineStoreMaxBytes', 'bytes', 67108864], ['maxAnsweredValues', 'values', 100000]] as const
  const refusesBound = async (value: unknown, shown: string): Promise<void> => {
    for (const [option, unit, fallback] of BOUNDS) {
      await assert.rejects(build({ [option]: value }), {
        name: 'OptionError',
        option,
        message: `feast-authz: buildReferenceServer: ${option} must be a positive whole number of ${unit} (default ${fallback}), got ${shown}`
      })
    }
  }

  // A row of a ten-character value counts 343 bytes: the three take 1,029.
  const threeSampleRows = (): FeatureCatalog => loadYamlCatalogFile({
    yaml: 'project: p\nfeature_views:\n  - {name: stats, entities: [id], features: [f]}\nsample_rows:\n  stats:\n' +
      [1, 2, 3].map((id) => `    - {id: ${id}, f: "ten chars!"}\n`).join(''),
    source: 'registry.yaml'
  })

  test('a bound of 0 is refused, as it would refuse every write and every read', async () => {
    await refusesBound(0, '0')
  })

  test('a negative bound is refused', async () => {
    await refusesBound(-5, '-5')
  })

  test('a bound that is not a whole number is refused', async () => {
    await refusesBound(1.5, '1.5')
  })

  test('a bound given as text is refused, quoted, even when it reads as a number', async () => {
    await refusesBound('1000', '"1000"')
  })

  test('a bound beyond 2^53 − 1, or infinite, is refused: it would be no bound', async () => {
    await refusesBound(2 ** 53, '9007199254740992')
    await refusesBound(Number.POSITIVE_INFINITY, 'Infinity')
  })

  test('sample rows that do not fit onlineStoreMaxBytes stop startup, naming the project, what they take, the bound and the option to raise', async () => {
    await assert.rejects(build({ registry: threeSampleRows(), onlineStoreMaxBytes: 1000 }), {
      name: 'OptionError',
      option: 'onlineStoreMaxBytes',
      message: /^feast-authz: buildReferenceServer: the registry's sample rows of project "p" take 1,029 bytes in the online store, over its bound of 1,000 \(onlineStoreMaxBytes; .*\): raise onlineStoreMaxBytes, or give fewer sample rows$/
    })
  })

  test('sample rows that just fit onlineStoreMaxBytes are served', async (t) => {
    const app = await buildReferenceServer({ config, registry: threeSampleRows(), onlineStoreMaxBytes: 1029 })
    t.after(async () => { await app.close() })
    const reply = await app.inject({ method: 'POST', url: '/get-online-features', payload: { features: ['stats:f'], entities: { id: [3] } } })
    assert.equal(reply.statusCode, 200, reply.body)
    assert.deepEqual(reply.json().results[1].values, ['ten chars!'])
  })
})
