/**
 * `buildReferenceServer` is built on the public API only: the plugin checks the options it shares
 * (OptionError), and Fastify checks its own (`bodyLimit`, `pinoLogger`), naming them.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildReferenceServer } from '../../src/server/app.ts'

const config = { project: 'p', auth: { type: 'no_auth' } }

describe('reference server options', () => {
  test('an infinite bodyLimit, which would accept bodies of any size, is refused with the option named', async () => {
    await assert.rejects(buildReferenceServer({ config, bodyLimit: Number.POSITIVE_INFINITY }), (error: unknown) => {
      assert.equal((error as { code?: string }).code, 'FST_ERR_ROUTE_BODY_LIMIT_OPTION_NOT_INT')
      assert.match((error as Error).message, /'bodyLimit' option must be an integer > 0\. Got 'Infinity'/)
      return true
    })
  })

  test('a bad plugin option is refused by the plugin, with its name', async () => {
    await assert.rejects(buildReferenceServer({ config, maxTokenLength: -1 }), {
      name: 'OptionError',
      option: 'maxTokenLength',
      message: 'feast-authz: maxTokenLength must be an integer of at least 1, got -1'
    })
  })
})
