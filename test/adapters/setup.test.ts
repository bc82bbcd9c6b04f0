/**
 * `setUpAuthz` opens the Feast registry only for the adapters (`openRegistry: true`), never for
 * tools that only authenticate, and never when permissions are given.
 */
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { setUpAuthz } from '../../src/adapters/setup.ts'
import { silentLogger } from '../../src/base/logging.ts'
import { storeDir, TWO_PROJECTS } from '../helpers/registry-wiring.ts'

const store = storeDir({ type: 'no_auth' })
after(() => { store.cleanup() })

describe('setUpAuthz and the registry', () => {
  test('with openRegistry and no permissions, the registry becomes the permission source', async () => {
    const setup = setUpAuthz({ config: store.config }, silentLogger, { openRegistry: true })
    try {
      assert.equal(setup.registry?.path, store.registry)
      assert.equal(setup.permissions, setup.registry)
    } finally {
      setup.close()
      await setup.manager.close()
    }
  })

  test('given permissions, the registry is not opened', async () => {
    const setup = setUpAuthz({ config: store.config, permissions: [] }, silentLogger, { openRegistry: true })
    assert.equal(setup.registry, undefined)
    assert.deepEqual(setup.permissions, [])
    await setup.manager.close()
  })

  test('without openRegistry (inspect, check), an unsupported registry type is not an error: the registry is not read', async () => {
    const sql = storeDir({ type: 'no_auth' }, TWO_PROJECTS, { registry_type: 'sql', path: 'postgresql://db/feast' })
    try {
      const setup = setUpAuthz({ config: sql.config }, silentLogger)
      assert.equal(setup.registry, undefined)
      await setup.manager.close()
    } finally {
      sql.cleanup()
    }
  })
})
