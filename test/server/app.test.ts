/**
 * `buildReferenceServer` checks its options as every options object of the package is checked
 * (src/base/option-rules.ts): the plugin's and its own (`registry`, `pinoLogger`, `bodyLimit`),
 * all together, before anything is built, each failure an OptionError naming the function, the
 * option, the value received and what was expected.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { pino } from 'pino'
import { buildReferenceServer, type ReferenceServerOptions } from '../../src/server/app.ts'
import { catalogFromSnapshot } from '../../src/server/catalog.ts'
import { expectError } from '../helpers/errors.ts'

const config = { project: 'p', auth: { type: 'no_auth' } }
const OPTION_ERROR = { name: 'OptionError', code: 'FEAST_AUTHZ_OPTION' } as const
// Options as JavaScript (or a YAML-fed caller) may pass them, past the types.
const build = async (options: Record<string, unknown>): Promise<unknown> => await buildReferenceServer({ config, ...options } as ReferenceServerOptions)

describe('reference server options', () => {
  test('an infinite bodyLimit, which would accept bodies of any size, is refused with the option and the value named', async () => {
    await expectError(build({ bodyLimit: Number.POSITIVE_INFINITY }), {
      ...OPTION_ERROR,
      option: 'bodyLimit',
      message: 'feast-authz: buildReferenceServer: bodyLimit must be an integer of at least 1, got Infinity'
    })
  })

  test('a bodyLimit that is not a whole positive number of bytes is refused', async () => {
    for (const bodyLimit of [0, -1, 1.5, Number.NaN, '1mb']) {
      await expectError(build({ bodyLimit }), { ...OPTION_ERROR, option: 'bodyLimit', message: /bodyLimit must be an integer of at least 1, got / })
    }
  })

  test('a pinoLogger without the methods Fastify calls (console has no fatal or child) is refused with the option named', async () => {
    await expectError(build({ pinoLogger: console }), {
      ...OPTION_ERROR,
      option: 'pinoLogger',
      message: 'feast-authz: buildReferenceServer: pinoLogger must be a pino logger (with the methods info, error, debug, fatal, warn, trace, child), got a mapping'
    })
  })

  test('a registry given as a file path is refused, saying what a registry is', async () => {
    await expectError(build({ registry: './registry.yaml' }), {
      ...OPTION_ERROR,
      option: 'registry',
      message: 'feast-authz: buildReferenceServer: registry must be a Feast registry (openFeastRegistry), or a FeatureCatalog (loadYamlCatalogFile, catalogFromSnapshot), got "./registry.yaml"'
    })
  })

  test('an object that is neither a FeatureCatalog nor a Feast registry is refused as registry', async () => {
    await expectError(build({ registry: { project: 'p', featureViews: [] } }), { ...OPTION_ERROR, option: 'registry', message: /registry must be a Feast registry .* got a mapping$/ })
  })

  test('a catalog without a project is refused as registry', async () => {
    const { project, ...withoutProject } = catalogFromSnapshot({ project: 'p', featureViews: [], featureServices: [], sampleRows: {} })
    assert.equal(project, 'p')
    await expectError(build({ registry: withoutProject }), { ...OPTION_ERROR, option: 'registry' })
  })

  test('a misspelt server option is refused with a did-you-mean', async () => {
    for (const [key, meant] of [['bodyLimt', 'bodyLimit'], ['pinoLoger', 'pinoLogger'], ['registy', 'registry']] as const) {
      await expectError(build({ [key]: 1 }), {
        ...OPTION_ERROR,
        option: key,
        message: `feast-authz: buildReferenceServer: ${key} is not an option (did you mean ${meant}?)`
      })
    }
  })

  test('a misspelt plugin option is refused with a did-you-mean too', async () => {
    await expectError(build({ maxTokenLenght: 10 }), { ...OPTION_ERROR, option: 'maxTokenLenght', message: /maxTokenLenght is not an option \(did you mean maxTokenLength\?\)/ })
  })

  test('a bad plugin option is refused before anything is built, with the function and the option named', async () => {
    await expectError(build({ maxTokenLength: -1 }), {
      ...OPTION_ERROR,
      option: 'maxTokenLength',
      message: 'feast-authz: buildReferenceServer: maxTokenLength must be an integer of at least 1, got -1'
    })
  })

  test('options that are not an object are refused', async () => {
    await expectError(buildReferenceServer('./feature_store.yaml' as unknown as ReferenceServerOptions), {
      ...OPTION_ERROR,
      message: 'feast-authz: buildReferenceServer: the options must be an object, got "./feature_store.yaml"'
    })
  })

  test('a pino logger, a catalog and a body limit are accepted', async () => {
    const app = await buildReferenceServer({
      config,
      pinoLogger: pino({ enabled: false }),
      registry: catalogFromSnapshot({ project: 'p', featureViews: [], featureServices: [], sampleRows: {} }),
      bodyLimit: 1024
    })
    try {
      const reply = await app.inject({ method: 'GET', url: '/health' })
      assert.equal(reply.statusCode, 200)
    } finally {
      await app.close()
    }
  })
})
