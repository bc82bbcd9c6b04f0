/**
 * `buildReferenceServer` checks what it adds to the plugin's options before it builds anything;
 * the plugin checks the rest.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildReferenceServer } from '../../src/server/app.ts'

const config = { project: 'p', auth: { type: 'no_auth' } }

describe('reference server options', () => {
  test('an infinite bodyLimit, which would accept bodies of any size, is refused with the option named', async () => {
    await assert.rejects(buildReferenceServer({ config, bodyLimit: Number.POSITIVE_INFINITY }), {
      name: 'OptionError',
      option: 'bodyLimit',
      message: 'feast-authz: buildReferenceServer: bodyLimit must be an integer of at least 1, got Infinity'
    })
  })

  test('a registry that is not an object is refused', async () => {
    await assert.rejects(buildReferenceServer({ config, registry: 'registry.db' as never }), { name: 'OptionError', option: 'registry' })
  })

  test('a bad plugin option is refused by the plugin, with its name', async () => {
    await assert.rejects(buildReferenceServer({ config, maxTokenLength: -1 }), { name: 'OptionError', option: 'maxTokenLength' })
  })
})
