/**
 * The package as users get it (test/helpers/packed-package.ts), in apps that installed only one
 * of the two frameworks.
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { COMPILERS, createConsumers, filesCheckedIn, packedPackage, root, run, type Consumers } from '../helpers/packed-package.ts'

let tarball: string
let consumers: Consumers

before(async () => {
  const packed = await packedPackage()
  tarball = packed.tarball
  consumers = createConsumers(packed)
}, { timeout: 240_000 })

after(() => { consumers?.remove() })

/**
 * Express users need not install Fastify, nor Fastify users Express: both are optional peers,
 * and neither entry point loads the other framework, at run time or in its declarations. A
 * consumer process started with test/helpers/hide-packages.mjs cannot import the packages it
 * hides, as if they were not installed (they are, in the repository's node_modules).
 */
describe('an app with only one of the two frameworks installed', () => {
  const HIDE_PACKAGES = join(root, 'test/helpers/hide-packages.mjs')

  /**
   * Runs `source` (an ES module that sets `answer`) in a consumer of the tarball, with `hidden`
   * unresolvable. Reports `answer`, what importing each hidden package gives, and any of them a
   * CommonJS `require` (which the hook does not see on Node 20) loaded nonetheless.
   */
  async function runWithout (hidden: readonly string[], name: string, source: string[]): Promise<Record<string, unknown>> {
    const consumer = await consumers.unpackInto(name, { name: 'consumer', type: 'module', private: true })
    writeFileSync(join(consumer, 'run.mjs'), [
      "import { createRequire } from 'node:module'",
      ...source,
      `const names = ${JSON.stringify(hidden)}`,
      "const hidden = await Promise.all(names.map(async (name) => await import(name).then(() => 'imported', (error) => error.code)))",
      "const required = Object.keys(createRequire(import.meta.url).cache).filter((path) => names.some((name) => path.includes('/node_modules/' + name + '/')))",
      "process.stdout.write(JSON.stringify({ answer, hidden, required }) + '\\n')"
    ].join('\n'))
    const { stdout } = await run(process.execPath, ['--import', HIDE_PACKAGES, 'run.mjs'], { cwd: consumer, env: { ...process.env, HIDE_PACKAGES: hidden.join(',') } })
    return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>
  }

  test('declares both frameworks, and the Express types its declarations name, as optional peers, so that npm installs none by itself', async () => {
    const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json'])
    const manifest = JSON.parse(stdout) as { peerDependencies?: Record<string, string>, peerDependenciesMeta?: Record<string, { optional?: boolean }> }
    const peers = ['@types/express', 'express', 'fastify']
    assert.deepEqual(Object.keys(manifest.peerDependencies ?? {}).sort(), peers)
    for (const name of peers) assert.equal(manifest.peerDependenciesMeta?.[name]?.optional, true, `${name} is a required peer`)
  })

  test('feast-authz/express imports and answers a request without fastify or fastify-plugin', { timeout: 120_000 }, async () => {
    const outcome = await runWithout(['fastify', 'fastify-plugin'], 'express-only', [
      "import { once } from 'node:events'",
      "import express from 'express'",
      "import { pino } from 'pino'",
      "import { feastAuthzExpress, feastAuthzLoggerOptions } from 'feast-authz/express'",
      "const logger = pino({ ...feastAuthzLoggerOptions, level: 'silent' })",
      "const authz = feastAuthzExpress({ config: { project: 'p', auth: { type: 'no_auth' } }, logger })",
      'const app = express()',
      'app.use(authz.authenticate)',
      "app.get('/views/:name', authz.requirePermission({ resources: (req) => ({ type: 'FeatureView', name: req.params.name }), actions: 'DESCRIBE' }),",
      '  (req, res) => { res.json({ caller: req.principal?.username }) })',
      "const server = app.listen(0, '127.0.0.1')",
      "await once(server, 'listening')",
      "const response = await fetch('http://127.0.0.1:' + server.address().port + '/views/driver_stats')",
      'const answer = { status: response.status, body: await response.json() }',
      'server.close()',
      'await authz.close()'
    ])
    assert.deepEqual(outcome, { answer: { status: 200, body: { caller: 'anonymous' } }, hidden: ['ERR_MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'], required: [] })
  })

  test('feast-authz/online imports and serves an online read in an Express app without fastify or fastify-plugin', { timeout: 120_000 }, async () => {
    const outcome = await runWithout(['fastify', 'fastify-plugin'], 'online-read-express', [
      "import { once } from 'node:events'",
      "import express from 'express'",
      "import { pino } from 'pino'",
      "import { feastAuthzExpress, feastAuthzLoggerOptions } from 'feast-authz/express'",
      "import { createOnlineStore, exactJson, loadYamlCatalogFile, readFeatures, readTarget } from 'feast-authz/online'",
      'const catalog = loadYamlCatalogFile({ source: \'registry.yaml\', yaml: [',
      "  'project: p',",
      "  'feature_views: [{name: driver_stats, kind: FeatureView, entities: [driver_id], features: [conv_rate]}]',",
      "  'sample_rows: {driver_stats: [{driver_id: 1001, conv_rate: 0.5, event_timestamp: \"2026-11-01T10:00:00Z\"}]}'",
      "].join('\\n') })",
      'const store = createOnlineStore(catalog)',
      "const authz = feastAuthzExpress({ config: { project: 'p', auth: { type: 'no_auth' } }, logger: pino({ ...feastAuthzLoggerOptions, level: 'silent' }) })",
      'const app = express()',
      'app.use(authz.authenticate)',
      "app.post('/get-online-features', express.json(),",
      '  (req, res, next) => { res.locals.target = readTarget(catalog, req.body); next() },',
      "  authz.requirePermission({ resources: (req) => req.res.locals.target.resources, actions: 'READ_ONLINE' }),",
      "  (req, res) => { res.type('json').send(exactJson(readFeatures(res.locals.target, store))) })",
      "const server = app.listen(0, '127.0.0.1')",
      "await once(server, 'listening')",
      "const response = await fetch('http://127.0.0.1:' + server.address().port + '/get-online-features', {",
      "  method: 'POST', headers: { 'content-type': 'application/json' },",
      "  body: JSON.stringify({ features: ['driver_stats:conv_rate'], entities: { driver_id: [1001] } })",
      '})',
      'const answer = { status: response.status, body: await response.json() }',
      'server.close()',
      'await authz.close()'
    ])
    assert.deepEqual(outcome, {
      answer: {
        status: 200,
        body: {
          metadata: { feature_names: ['driver_id', 'conv_rate'] },
          results: [
            { values: [1001], statuses: ['PRESENT'], event_timestamps: ['1970-01-01T00:00:00Z'] },
            { values: [0.5], statuses: ['PRESENT'], event_timestamps: ['2026-11-01T10:00:00Z'] }
          ]
        }
      },
      hidden: ['ERR_MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'],
      required: []
    })
  })

  test('the root entry registers its Fastify plugin and answers a request without express', { timeout: 120_000 }, async () => {
    const outcome = await runWithout(['express'], 'fastify-only', [
      "import Fastify from 'fastify'",
      "import feastAuthz from 'feast-authz'",
      'const app = Fastify()',
      "await app.register(feastAuthz, { config: { project: 'p', auth: { type: 'no_auth' } } })",
      "app.get('/me', async (request) => ({ caller: request.principal?.username }))",
      "const response = await app.inject('/me')",
      'const answer = { status: response.statusCode, body: response.json() }',
      'await app.close()'
    ])
    assert.deepEqual(outcome, { answer: { status: 200, body: { caller: 'anonymous' } }, hidden: ['ERR_MODULE_NOT_FOUND'], required: [] })
  })

  /**
   * Strict apps of the two entry points that load no Fastify, checked without skipLibCheck: the
   * Express middleware, and the online reads (catalog, store, get-online-features) served by Express.
   */
  const FASTIFY_FREE_APPS = [{
    app: 'Express app',
    entry: 'feast-authz/express',
    declarations: 'node_modules/feast-authz/dist/adapters/express.d.ts',
    source: [
      "import express from 'express'",
      "import { pino } from 'pino'",
      "import { CHANNELS, feastAuthzExpress, feastAuthzLoggerOptions, type FeastAuthzExpressOptions, type Principal, type Resource } from 'feast-authz/express'",
      "const options: FeastAuthzExpressOptions = { config: { project: 'p', auth: { type: 'no_auth' } }, logger: pino({ level: 'info', ...feastAuthzLoggerOptions }) }",
      'const authz = feastAuthzExpress(options)',
      'const app = express()',
      'app.use(authz.authenticate)',
      "const view = (name: string): Resource => ({ type: 'FeatureView', name })",
      "app.get('/views/:name', authz.requirePermission({ resources: (req) => view(String(req.params.name)), actions: 'DESCRIBE' }),",
      '  (req, res) => { const caller: Principal | null | undefined = req.principal; res.json({ caller: caller?.username }) })',
      'export { app, CHANNELS }'
    ]
  }, {
    app: 'Express app serving online reads',
    entry: 'feast-authz/online',
    declarations: 'node_modules/feast-authz/dist/server/online.d.ts',
    source: [
      "import express from 'express'",
      'import {',
      '  catalogFromFeastRegistry, createOnlineStore, exactJson, loadYamlCatalogFile, readFeatures, readTarget,',
      '  type FeatureCatalog, type OnlineFeaturesResponse, type OnlineStore, type ReadTarget',
      "} from 'feast-authz/online'",
      "const catalog: FeatureCatalog = loadYamlCatalogFile('./registry.yaml')",
      'const store: OnlineStore = createOnlineStore(catalog)',
      'const app = express()',
      "app.post('/get-online-features', express.json(), (req, res) => {",
      '  const target: ReadTarget = readTarget(catalog, req.body)',
      '  const answer: OnlineFeaturesResponse = readFeatures(target, store)',
      "  res.type('json').send(exactJson(answer))",
      '})',
      'export { app, catalogFromFeastRegistry }'
    ]
  }] as const

  for (const { app, entry, declarations, source } of FASTIFY_FREE_APPS) {
    for (const [index, { name, tsc }] of COMPILERS.entries()) {
      test(`type-checks a strict ${app} without skipLibCheck under ${name}: the declarations of ${entry} never reach fastify or fastify-plugin`, { timeout: 120_000 }, async () => {
        const consumer = await consumers.typedConsumer(`${entry.replace(/\W/g, '-')}-app-${index}`, source, { skipLibCheck: false })
        const files = await filesCheckedIn(consumer, tsc)
        assert.ok(files.some((file) => file.endsWith(declarations)), 'the listing names the declarations it checked')
        assert.deepEqual(files.filter((file) => /\/node_modules\/fastify(-plugin)?\//.test(file)), [])
      })
    }
  }

  /**
   * An app still on Express 4 types its `express` with @types/express 4, installed here under the
   * alias `@types/express4` and given to the consumer by `paths`. A type reference
   * (`/// <reference types="express-serve-static-core" />`) is looked up in `typeRoots` first, so
   * Express 4's own come before the repository's, which hold Express 5's.
   */
  const EXPRESS_4_TYPES = {
    paths: { express: [join(root, 'node_modules/@types/express4/index.d.ts')] },
    typeRoots: [join(root, 'node_modules/@types/express4/node_modules/@types'), join(root, 'node_modules/@types')]
  }
  const [expressApp] = FASTIFY_FREE_APPS
  for (const [index, { name, tsc }] of COMPILERS.entries()) {
    test(`type-checks the strict Express app without skipLibCheck under ${name} against @types/express 4`, { timeout: 120_000 }, async () => {
      const consumer = await consumers.typedConsumer(`express-4-app-${index}`, expressApp.source, { skipLibCheck: false, compilerOptions: EXPRESS_4_TYPES })
      const files = await filesCheckedIn(consumer, tsc)
      assert.ok(files.some((file) => file.endsWith(expressApp.declarations)), 'the listing names the declarations it checked')
      assert.ok(files.some((file) => file.endsWith('node_modules/@types/express4/index.d.ts')), 'the listing names @types/express 4')
      assert.deepEqual(files.filter((file) => /\/@types\/express(-serve-static-core)?\/index\.d\.ts$/.test(file) && !file.includes('/@types/express4/')), [])
    })
  }
})
