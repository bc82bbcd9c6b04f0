/**
 * The Fastify plugin takes its permissions from the Feast registry feature_store.yaml names:
 * real servers on 127.0.0.1, real tokens from a real OpenID provider, registry files built with
 * the registry schema, replaced while the server runs.
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { before, describe, test } from 'node:test'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import feastAuthz, { type FeastAuthzOptions } from '../../src/adapters/fastify.ts'
import { ConfigError } from '../../src/config/errors.ts'
import { permission, roleBasedPolicy } from '../../src/permissions/define.ts'
import { oidcAuth } from '../helpers/authz-app.ts'
import { registryBytes, replaceFile } from '../helpers/registry-builder.ts'
import { AUDITORS, useUsers, RELOAD_WAIT, storeDir, TWO_PROJECTS, WRITERS, type StoreDir, type User } from '../helpers/registry-wiring.ts'
import { eventually } from '../helpers/eventually.ts'
import { captureLogs } from '../helpers/logs.ts'

const users = useUsers()
const { cleanups } = users

interface Served { app: FastifyInstance, store: StoreDir, status (user: User | undefined, path: string): Promise<number> }

/**
 * A server whose route `GET /views/:name` needs DESCRIBE on the feature view, in the project the
 * `project` query parameter names (the server's own by default).
 */
async function serve (options: { store?: StoreDir, plugin?: Omit<FeastAuthzOptions, 'config'> } = {}): Promise<Served> {
  const store = options.store ?? storeDir(oidcAuth(users.provider))
  cleanups.push(store.cleanup)
  const app = Fastify()
  await app.register(feastAuthz, { config: store.config, ...options.plugin })
  const query = (request: FastifyRequest): { project?: string } => request.query as { project?: string }
  app.get('/views/:name', {
    preHandler: app.requirePermission({
      resources: (request) => ({ type: 'FeatureView', name: (request.params as { name: string }).name, project: query(request).project ?? 'demo' }),
      actions: 'DESCRIBE',
      project: (request) => query(request).project
    })
  }, async (request) => ({ view: (request.params as { name: string }).name }))
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  cleanups.push(async () => { await app.close() })
  return {
    app,
    store,
    status: async (user, path) => {
      const response = await fetch(`${url}${path}`, { headers: user === undefined ? {} : { authorization: `Bearer ${users.tokens[user]}` } })
      await response.arrayBuffer()
      return response.status
    }
  }
}

describe('permissions from the registry named in feature_store.yaml', () => {
  let served: Served
  before(async () => { served = await serve() })

  test('the plugin opens the registry the config names (a path relative to feature_store.yaml)', () => {
    assert.equal(served.app.feastAuthz.registry?.path, served.store.registry)
    assert.equal(served.app.feastAuthz.registry?.project, 'demo')
  })

  test('a user the registry\'s permissions allow gets 200', async () => {
    assert.equal(await served.status('reader', '/views/driver_stats'), 200)
  })

  test('a user they do not allow gets 403', async () => {
    assert.equal(await served.status('stranger', '/views/driver_stats'), 403)
    assert.equal(await served.status('auditor', '/views/driver_stats'), 403)
  })

  test('without a token: 401, before any permission', async () => {
    assert.equal(await served.status(undefined, '/views/driver_stats'), 401)
  })

  test('the project query parameter switches to that project\'s permissions', async () => {
    assert.equal(await served.status('auditor', '/views/audit_log?project=other'), 200)
    assert.equal(await served.status('reader', '/views/audit_log?project=other'), 403)
  })

  test('a project the registry does not have is denied, never allowed for lack of permissions', async () => {
    for (const user of ['reader', 'auditor', 'stranger'] as const) {
      assert.equal(await served.status(user, '/views/anything?project=no_such_project'), 403, user)
    }
  })
})

describe('a registry replaced while the server runs', () => {
  test('new permissions take effect without a restart (the file is watched)', async () => {
    const served = await serve()
    assert.equal(await served.status('reader', '/views/driver_stats'), 200)
    replaceFile(served.store.registry, registryBytes({ ...TWO_PROJECTS, permissions: { demo: [WRITERS], other: [AUDITORS] } }))
    await eventually(async () => await served.status('reader', '/views/driver_stats') === 403, 'the reader lost access', RELOAD_WAIT)
    assert.equal(await served.status('writer', '/views/driver_stats'), 200)
  })

  test('a corrupt file leaves the last good registry in force: still 403 for the denied user, 200 for the allowed one', async () => {
    const { logger, lines } = captureLogs()
    const served = await serve({ plugin: { logger } })
    replaceFile(served.store.registry, Buffer.from('this is not a registry, just text that protobuf cannot read \u00ff\u00ff'))
    assert.equal(await served.app.feastAuthz.registry?.refresh(), 'rejected')
    assert.equal(await served.status('stranger', '/views/driver_stats'), 403)
    assert.equal(await served.status('reader', '/views/driver_stats'), 200)
    assert.ok(lines.some((line) => line.level === 50 && line.registry === served.store.registry), 'the failure is logged with the file')
  })

  test('a file whose permissions became empty is refused: the denied user stays denied', async () => {
    const served = await serve()
    replaceFile(served.store.registry, registryBytes({ ...TWO_PROJECTS, permissions: { other: [AUDITORS] } }))
    assert.equal(await served.app.feastAuthz.registry?.refresh(), 'rejected')
    assert.equal(await served.status('stranger', '/views/driver_stats'), 403)
  })
})

describe('where the permissions come from', () => {
  test('explicit permissions win over the registry, which is then not opened (and the log says so)', async () => {
    const { logger, lines } = captureLogs()
    const auditors = permission({ name: 'auditors-here', types: ['FeatureView'], actions: ['DESCRIBE'], policy: roleBasedPolicy(['auditor']) })
    const served = await serve({ plugin: { logger, permissions: [auditors] } })
    assert.equal(served.app.feastAuthz.registry, undefined)
    assert.equal(await served.status('auditor', '/views/driver_stats'), 200)
    assert.equal(await served.status('reader', '/views/driver_stats'), 403)
    assert.ok(lines.some((line) => line.level === 30 && /registry .*not used/.test(String(line.msg))))
  })

  test('a registry path ending in .yaml (the reference server\'s own format) is not read for permissions', async () => {
    const store = storeDir(oidcAuth(users.provider), TWO_PROJECTS, 'registry.yaml')
    const served = await serve({ store })
    assert.equal(served.app.feastAuthz.registry, undefined)
  })
})

describe('a registry that cannot be used stops startup', () => {
  async function startupError (store: StoreDir): Promise<unknown> {
    cleanups.push(store.cleanup)
    const app = Fastify()
    try {
      await app.register(feastAuthz, { config: store.config })
      await app.ready()
    } catch (error) {
      return error
    } finally {
      await app.close()
    }
    return undefined
  }

  test('an unsupported registry type names the type and what is supported', async () => {
    const error = await startupError(storeDir(oidcAuth(users.provider), TWO_PROJECTS, { registry_type: 'sql', path: 'postgresql://feast@db/feast' }))
    assert.ok(error instanceof ConfigError, String(error))
    assert.equal(error.field, 'registry.registry_type')
    assert.match(error.message, /"sql" is not supported yet .*file registries/)
  })

  test('a corrupt registry file names the file', async () => {
    const store = storeDir(oidcAuth(users.provider))
    writeFileSync(store.registry, 'garbage')
    const error = await startupError(store)
    assert.ok(error instanceof ConfigError, String(error))
    assert.ok(error.message.startsWith(`${store.registry}: `), error.message)
  })

  test('a registry without the server\'s project names the projects it has', async () => {
    const error = await startupError(storeDir(oidcAuth(users.provider), { ...TWO_PROJECTS, projects: ['other'] }))
    assert.ok(error instanceof ConfigError, String(error))
    assert.match(error.message, /no project "demo" \(it has "other"\)/)
  })
})
