/**
 * `GET /health` of the reference server over real HTTP: Feast's status codes (200 while the
 * registry file can be read, 503 when it cannot), public, and a body that says states only.
 */
import assert from 'node:assert/strict'
import { readFileSync, rmSync } from 'node:fs'
import { after, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { OptionError } from '../../src/base/errors.ts'
import { openFeastRegistry } from '../../src/registry/index.ts'
import { buildReferenceServer } from '../../src/server/app.ts'
import { emptyCatalog } from '../../src/server/catalog.ts'
import { closedPort } from '../helpers/listen.ts'
import { replaceFile } from '../helpers/registry-builder.ts'
import { RELOAD_WAIT, storeDir, type StoreDir } from '../helpers/registry-wiring.ts'
import { eventually } from '../helpers/eventually.ts'

const cleanups: Array<() => Promise<void> | void> = []
after(async () => { for (const cleanup of cleanups.reverse()) await cleanup() })

interface Reply { readonly status: number, readonly text: string, readonly body: any }
interface Served { readonly app: FastifyInstance, readonly store: StoreDir, health (headers?: Record<string, string>, query?: string): Promise<Reply> }

/** The reference server over a store directory whose feature_store.yaml names a Feast registry file. */
async function serve (auth: Record<string, unknown> = { type: 'no_auth' }): Promise<Served> {
  const store = storeDir(auth)
  cleanups.push(() => { store.cleanup() })
  return await listening(await buildReferenceServer({ config: store.config }), store)
}

async function listening (app: FastifyInstance, store: StoreDir): Promise<Served> {
  cleanups.push(async () => { await app.close() })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  return {
    app,
    store,
    health: async (headers = {}, query = '') => {
      const response = await fetch(`${url}/health${query}`, { headers })
      const text = await response.text()
      return { status: response.status, text, body: JSON.parse(text) }
    }
  }
}

const registryOf = (app: FastifyInstance): NonNullable<FastifyInstance['feastAuthz']['registry']> => {
  const { registry } = app.feastAuthz
  assert.ok(registry !== undefined, 'the plugin opened the registry feature_store.yaml names')
  return registry
}

describe('GET /health of the reference server', () => {
  test('answers 200 without a token while the registry reads, saying so in the body', async () => {
    const { health } = await serve()
    const reply = await health()
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.body, { status: 'ok', registry: 'current', auth: { type: 'no_auth', ready: true } })
  })

  test('answers 503 once a reload finds the registry file removed', async () => {
    const { app, store, health } = await serve()
    rmSync(store.registry)
    assert.equal(await registryOf(app).refresh(), 'rejected')
    const reply = await health()
    assert.equal(reply.status, 503)
    assert.deepEqual(reply.body, { status: 'unavailable', registry: 'unreadable', auth: { type: 'no_auth', ready: true } })
  })

  test('answers 503 when the registry file is corrupted, and 200 again once it reads', async () => {
    const { app, store, health } = await serve()
    const good = readFileSync(store.registry)
    replaceFile(store.registry, Buffer.from([0x0a, 0xff, 0xff]))
    assert.equal(await registryOf(app).refresh(), 'rejected')
    assert.equal((await health()).status, 503)
    replaceFile(store.registry, good)
    await registryOf(app).refresh()
    const reply = await health()
    assert.equal(reply.status, 200)
    assert.equal(reply.body.registry, 'current')
  })

  test('keeps answering 200 for a registry file it refuses but Feast would read (emptied), saying refused in the body', async () => {
    const { app, store, health } = await serve()
    replaceFile(store.registry, '')
    assert.equal(await registryOf(app).refresh(), 'rejected')
    const reply = await health()
    assert.equal(reply.status, 200)
    assert.deepEqual([reply.body.status, reply.body.registry], ['ok', 'refused'])
  })

  test('notices a removed registry file by itself, with no refresh call', async () => {
    const { store, health } = await serve()
    rmSync(store.registry)
    await eventually(async () => (await health()).status === 503, 'GET /health to answer 503 after the registry file was removed', RELOAD_WAIT)
  })

  test('keeps answering 200 while the identity provider cannot be reached: its readiness is in the body only', async () => {
    const port = await closedPort()
    const { app, health } = await serve({ type: 'oidc', client_id: 'feast', auth_discovery_url: `http://127.0.0.1:${port}/.well-known/openid-configuration` })
    assert.equal(app.feastAuthz.health().ready, false)
    const reply = await health()
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.body.auth, { type: 'oidc', ready: false })
  })

  test('says no secret, token or path, even when failing', async () => {
    const token = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJzZWNyZXQtdXNlciJ9.sig-not-to-echo'
    const port = await closedPort()
    const { app, store, health } = await serve({
      type: 'oidc', client_id: 'feast', client_secret: 'client-secret-never-shown', auth_discovery_url: `http://127.0.0.1:${port}/.well-known/openid-configuration`
    })
    rmSync(store.registry)
    await registryOf(app).refresh()
    const reply = await health({ authorization: `Bearer ${token}` }, `?access_token=${token}`)
    assert.equal(reply.status, 503)
    for (const secret of [token, 'client-secret-never-shown', store.dir, 'registry.db', String(port)]) {
      assert.equal(reply.text.includes(secret), false, `the body carries ${secret}`)
    }
  })
})

describe('GET /health with a YAML registry served and the permissions from a Feast registry', () => {
  /** A server of an empty catalog of `demo`, its permissions from the Feast registry file of a store directory. */
  async function serveWithPermissionRegistry (): Promise<Served & { readonly permissions: ReturnType<typeof openFeastRegistry> }> {
    const store = storeDir({ type: 'no_auth' })
    cleanups.push(() => { store.cleanup() })
    const permissions = openFeastRegistry({ path: store.registry, project: 'demo' })
    cleanups.push(() => { permissions.close() })
    const served = await listening(await buildReferenceServer({ config: { project: 'demo', auth: { type: 'no_auth' } }, registry: emptyCatalog('demo'), permissions }), store)
    return { ...served, permissions }
  }

  test('answers 200 while the permissions\' registry file reads', async () => {
    const { health } = await serveWithPermissionRegistry()
    const reply = await health()
    assert.equal(reply.status, 200)
    assert.equal(reply.body.registry, 'current')
  })

  test('answers 503 once the permissions\' registry file cannot be read, as the permissions in force are then stale', async () => {
    const { store, permissions, health } = await serveWithPermissionRegistry()
    rmSync(store.registry)
    assert.equal(await permissions.refresh(), 'rejected')
    const reply = await health()
    assert.equal(reply.status, 503)
    assert.deepEqual([reply.body.status, reply.body.registry], ['unavailable', 'unreadable'])
  })
})

describe('the plugin\'s healthRoute on the reference server', () => {
  test('answers the identity source\'s readiness on its own path, beside GET /health', async () => {
    const store = storeDir({ type: 'no_auth' })
    cleanups.push(() => { store.cleanup() })
    const { app, health } = await listening(await buildReferenceServer({ config: store.config, healthRoute: '/ready' }), store)
    const ready = await app.inject({ method: 'GET', url: '/ready' })
    assert.equal(ready.statusCode, 200)
    assert.deepEqual(ready.json(), { ready: true, type: 'no_auth' })
    assert.equal((await health()).body.registry, 'current')
  })

  for (const path of ['/health', '/api/v1/feature_views']) {
    test(`is refused at ${path}, a route of the server's own, with an OptionError naming healthRoute`, async () => {
      await assert.rejects(buildReferenceServer({ config: { project: 'demo', auth: { type: 'no_auth' } }, healthRoute: path }), (error: unknown) => {
        assert.ok(error instanceof OptionError, String(error))
        assert.equal(error.option, 'healthRoute')
        assert.match(error.message, /is a route of the reference server .* another path, such as "\/ready"/)
        return true
      })
    })
  }
})
