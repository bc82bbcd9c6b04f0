/**
 * `buildReferenceServer` is built on the public API only: it checks what it adds (`registry`,
 * `pinoLogger`) before building anything, the plugin checks the options it shares (OptionError),
 * and Fastify checks its own (`bodyLimit`), each naming the option.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildReferenceServer, type ReferenceServerOptions } from '../../src/server/app.ts'
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
})
