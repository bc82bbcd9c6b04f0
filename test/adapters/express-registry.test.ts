/**
 * The Express adapter takes its permissions from the Feast registry feature_store.yaml names,
 * like the Fastify plugin: a real Express server, real tokens, a registry file built in the test.
 */
import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import { after, before, describe, test } from 'node:test'
import express from 'express'
import { feastAuthzExpress, type FeastAuthzExpress } from '../../src/adapters/express.ts'
import { ConfigError } from '../../src/config/errors.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { oidcAuth } from '../helpers/authz-app.ts'
import { registryBytes, replaceFile } from '../helpers/registry-builder.ts'
import { AUDITORS, issueTokens, storeDir, TWO_PROJECTS, WRITERS, type StoreDir, type User } from '../helpers/registry-wiring.ts'
import { listenOnLoopback } from '../helpers/listen.ts'
import { expectError } from '../helpers/errors.ts'

let provider: TestProvider
let tokens: Record<User, string>
let store: StoreDir
let authz: FeastAuthzExpress
let server: Server
let baseUrl: string

before(async () => {
  // The provider is started here, not by the OIDC-app fixture: an Express app, which the fixture (Fastify) does not build.
  provider = await startOidcProvider()
  tokens = await issueTokens(provider)
  store = storeDir(oidcAuth(provider))
  authz = feastAuthzExpress({ config: store.config, logger: { debug () {}, info () {}, warn () {}, error () {} } as never })
  const app = express()
  app.use(authz.authenticate)
  const project = (req: express.Request): string | undefined => typeof req.query.project === 'string' ? req.query.project : undefined
  app.get('/views/:name', authz.requirePermission({
    resources: (req) => ({ type: 'FeatureView', name: String(req.params.name), project: project(req) ?? 'demo' }),
    actions: 'DESCRIBE',
    project
  }), (req, res) => { res.json({ name: req.params.name }) })
  ;({ server, url: baseUrl } = await listenOnLoopback(app))
})

after(async () => {
  await new Promise((resolve) => server.close(resolve))
  await authz.close()
  await provider.close()
  store.cleanup()
})

const status = async (user: User, path: string): Promise<number> => {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${tokens[user]}` } })
  await response.arrayBuffer()
  return response.status
}

describe('Express: permissions from the registry named in feature_store.yaml', () => {
  test('the registry\'s permissions are enforced: 200 for the allowed role, 403 for the others', async () => {
    assert.equal(authz.registry?.path, store.registry)
    assert.equal(await status('reader', '/views/driver_stats'), 200)
    assert.equal(await status('stranger', '/views/driver_stats'), 403)
  })

  test('the project query parameter switches to that project\'s permissions; an unknown project is denied', async () => {
    assert.equal(await status('auditor', '/views/audit_log?project=other'), 200)
    assert.equal(await status('reader', '/views/audit_log?project=other'), 403)
    assert.equal(await status('reader', '/views/driver_stats?project=no_such_project'), 403)
  })

  test('a refreshed registry is enforced at once', async () => {
    replaceFile(store.registry, registryBytes({ ...TWO_PROJECTS, permissions: { demo: [WRITERS], other: [AUDITORS] } }))
    assert.equal(await authz.registry?.refresh(), 'updated')
    assert.equal(await status('reader', '/views/driver_stats'), 403)
    assert.equal(await status('writer', '/views/driver_stats'), 200)
  })

  test('an unsupported registry type is a startup error', () => {
    const bad = storeDir(oidcAuth(provider), TWO_PROJECTS, { registry_type: 'remote', path: 'grpc://registry:6570' })
    try {
      expectError(() => feastAuthzExpress({ config: bad.config }), { type: ConfigError, message: /"remote" is not supported yet/ })
    } finally {
      bad.cleanup()
    }
  })
})
