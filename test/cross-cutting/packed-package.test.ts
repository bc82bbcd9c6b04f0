import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'

/**
 * The package as users get it: `npm pack` (which builds through `prepack`), then a
 * separate consumer project that imports it by name and type-checks against it.
 * The consumer lives inside the repository so that the packed package finds its
 * dependencies in the repository's node_modules, as it would in the user's.
 */

const run = promisify(execFile)
const root = resolve(import.meta.dirname, '../..')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' }

let workDir: string
let tarball: string
let packedFiles: string[]

before(async () => {
  mkdirSync(join(root, '.tmp'), { recursive: true })
  workDir = mkdtempSync(join(root, '.tmp', 'consumer-'))
  const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', workDir], { cwd: root, env, maxBuffer: 16 * 1024 * 1024 })
  const [report] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string, files: Array<{ path: string }> }>
  assert.ok(report !== undefined)
  tarball = join(workDir, report.filename)
  packedFiles = report.files.map((file) => file.path)
}, { timeout: 240_000 })

after(() => { rmSync(workDir, { recursive: true, force: true }) })

/**
 * The compilers users check their apps with: TypeScript 5 (JavaScript) and TypeScript 7 (the
 * native port, its own `typescript` package, installed here under the alias `typescript-7`).
 */
const COMPILERS = [
  { name: 'TypeScript 5', tsc: join(root, 'node_modules/typescript/bin/tsc') },
  { name: 'TypeScript 7', tsc: join(root, 'node_modules/typescript-7/bin/tsc') }
] as const

/** A consumer project under the work directory with the tarball unpacked as node_modules/feast-authz. */
async function unpackInto (name: string, manifest: Record<string, unknown>): Promise<string> {
  const consumer = join(workDir, name)
  mkdirSync(join(consumer, 'node_modules'), { recursive: true })
  await run('tar', ['-xzf', tarball, '-C', join(consumer, 'node_modules')])
  await run('mv', [join(consumer, 'node_modules/package'), join(consumer, 'node_modules/feast-authz')])
  writeFileSync(join(consumer, 'package.json'), JSON.stringify(manifest))
  return consumer
}

/**
 * A consumer project whose `app.ts` is `source`, with a strict NodeNext tsconfig that checks it;
 * `compilerOptions` adds to or replaces the tsconfig's.
 */
async function typedConsumer (
  name: string,
  source: readonly string[],
  { skipLibCheck, compilerOptions }: { skipLibCheck: boolean, compilerOptions?: Record<string, unknown> }
): Promise<string> {
  const consumer = await unpackInto(name, { name: 'consumer', type: 'module', private: true })
  const strict = { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck, types: ['node'], typeRoots: [join(root, 'node_modules/@types')] }
  writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { ...strict, ...compilerOptions },
    files: ['app.ts']
  }))
  writeFileSync(join(consumer, 'app.ts'), source.join('\n'))
  return consumer
}

/** Type-checks `consumer` with `tsc` (failing on any error) and answers the files the compiler read. */
async function filesCheckedIn (consumer: string, tsc: string): Promise<string[]> {
  const { stdout } = await run(process.execPath, [tsc, '-p', consumer, '--listFiles'], { cwd: consumer, maxBuffer: 16 * 1024 * 1024 })
  return stdout.split('\n')
}

describe('the published package', () => {
  test('contains only the build, the bin, the README and the LICENSE', () => {
    const outside = packedFiles.filter((path) => !/^(dist\/|bin\/feast-authz\.js$|README\.md$|LICENSE$|package\.json$)/.test(path))
    assert.deepEqual(outside, [])
    for (const required of ['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'bin/feast-authz.js', 'README.md', 'LICENSE']) {
      assert.ok(packedFiles.includes(required), `${required} is missing from the tarball`)
    }
    assert.equal(packedFiles.some((path) => path.startsWith('dist/') && /\.test\./.test(path)), false)
  })

  test('ships no source maps, and no build file points at one', async () => {
    assert.deepEqual(packedFiles.filter((path) => path.endsWith('.map')), [])
    const { stdout } = await run('tar', ['-xzOf', tarball, '--wildcards', 'package/dist/*.js'], { maxBuffer: 64 * 1024 * 1024 })
    assert.doesNotMatch(stdout, /sourceMappingURL/)
  })

  test('passes publint with no warnings', { timeout: 60_000 }, async () => {
    const { stdout } = await run(process.execPath, [join(root, 'node_modules/publint/src/cli.js'), 'run', tarball, '--strict', '--level', 'warning'], { cwd: root, env })
    assert.doesNotMatch(stdout, /warning|error/i)
  })

  test('has types that resolve for ESM consumers (are-the-types-wrong, esm-only profile)', { timeout: 60_000 }, async () => {
    // attw exits non-zero on any problem the profile counts: ESM-only packages are not judged on CommonJS resolution.
    const { stdout } = await run(process.execPath, [join(root, 'node_modules/@arethetypeswrong/cli/dist/index.js'), tarball, '--profile', 'esm-only', '--format', 'table', '--no-color', '--no-emoji'], { cwd: root, env, maxBuffer: 16 * 1024 * 1024 })
    assert.match(stdout, /node16 \(from ESM\)/)
  })

  /** A separate ESM project that imports the package by name, with right and wrong usage. */
  async function typedApp (name: string): Promise<string> {
    // skipLibCheck as `tsc --init` sets it: @kubernetes/client-node's own declarations need @types/ws otherwise.
    return await typedConsumer(name, [
      "import Fastify from 'fastify'",
      "import feastAuthz, { loadAuthConfig, type Principal } from 'feast-authz'",
      'const app = Fastify()',
      "await app.register(feastAuthz, { config: { auth: { type: 'no_auth' } } })",
      "app.get('/me', async (request) => { const who: Principal | null = request.principal; return who })",
      "const { auth } = loadAuthConfig({ auth: { type: 'kubernetes' } })",
      "const kind: 'no_auth' | 'oidc' | 'kubernetes' = auth.type",
      'export { kind }',
      '// Wrong usage must not compile against the published declarations.',
      '// @ts-expect-error an unknown option',
      "await app.register(feastAuthz, { confg: './feature_store.yaml' })",
      '// @ts-expect-error principal is not a string',
      "app.get('/x', async (request) => { const name: string = request.principal; return name })"
    ], { skipLibCheck: true })
  }

  for (const [index, { name, tsc }] of COMPILERS.entries()) {
    test(`imports by name from a separate ESM project and type-checks there under ${name}, wrong usage refused`, { timeout: 120_000 }, async () => {
      const consumer = await typedApp(`app-${index}`)
      await run(process.execPath, [tsc, '-p', consumer], { cwd: consumer })
    })
  }

  test('runs in a separate ESM project that imports it by name', { timeout: 120_000 }, async () => {
    const consumer = await unpackInto('run-app', { name: 'consumer', type: 'module', private: true })
    writeFileSync(join(consumer, 'run.mjs'), [
      "import Fastify from 'fastify'",
      "import feastAuthz from 'feast-authz'",
      'const app = Fastify()',
      "await app.register(feastAuthz, { config: { auth: { type: 'no_auth' } } })",
      "app.get('/me', async (request) => request.principal)",
      "const response = await app.inject('/me')",
      'process.stdout.write(response.body)',
      'await app.close()'
    ].join('\n'))
    const { stdout } = await run(process.execPath, ['run.mjs'], { cwd: consumer })
    assert.equal(JSON.parse(stdout).username, 'anonymous')
  })

  /** A strict OIDC-only app, checked without skipLibCheck. */
  async function strictApp (name: string): Promise<string> {
    return await typedConsumer(name, [
      "import Fastify from 'fastify'",
      "import feastAuthz, { createAuthManager, type AuthzOptions } from 'feast-authz'",
      "import { createAuthFetch, loadClientAuthConfig } from 'feast-authz/client'",
      "const auth = { type: 'oidc', auth_discovery_url: 'https://idp.example.com/.well-known/openid-configuration', client_id: 'feast' }",
      'const options: AuthzOptions = { config: { project: \'p\', auth } }',
      'const app = Fastify()',
      'await app.register(feastAuthz, options)',
      "export const fetchWithToken = createAuthFetch(loadClientAuthConfig({ project: 'p', auth }))",
      'export { createAuthManager }'
    ], { skipLibCheck: false })
  }

  for (const [index, { name, tsc }] of COMPILERS.entries()) {
    test(`type-checks a strict OIDC-only app without skipLibCheck under ${name}: the declarations never reach @kubernetes/client-node`, { timeout: 120_000 }, async () => {
      const files = await filesCheckedIn(await strictApp(`strict-app-${index}`), tsc)
      assert.ok(files.some((file) => file.endsWith('node_modules/feast-authz/dist/index.d.ts')), 'the listing names the declarations it checked')
      assert.deepEqual(files.filter((file) => file.includes('@kubernetes/client-node')), [])
    })
  }

  test('require()s every entry point from CommonJS (require(esm), Node >= 20.19)', { timeout: 120_000 }, async () => {
    const consumer = await unpackInto('cjs-app', { name: 'cjs-consumer', type: 'commonjs', private: true })
    writeFileSync(join(consumer, 'run.cjs'), [
      "const express = require('feast-authz/express')",
      "const main = require('feast-authz')",
      "const client = require('feast-authz/client')",
      "const server = require('feast-authz/server')",
      "const subpaths = ['permissions', 'registry', 'operator', 'online'].map((name) => Object.keys(require('feast-authz/' + name)).length > 0)",
      'process.stdout.write(JSON.stringify([typeof express.feastAuthzExpress, typeof main.default, typeof main.loadAuthConfig, Object.keys(client).length > 0, Object.keys(server).length > 0, ...subpaths]))'
    ].join('\n'))
    const { stdout, stderr } = await run(process.execPath, ['run.cjs'], { cwd: consumer })
    assert.equal(stdout, '["function","function","function",true,true,true,true,true,true]', stderr)
  })

  test('its bin runs from the build (a published package has no sources)', { timeout: 120_000 }, async () => {
    const consumer = await unpackInto('bin-app', { name: 'bin-consumer', private: true })
    const { stdout } = await run(process.execPath, [join(consumer, 'node_modules/feast-authz/bin/feast-authz.js'), '--version'], { cwd: consumer })
    assert.match(stdout, /^\d+\.\d+\.\d+/)
  })
})

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
    const consumer = await unpackInto(name, { name: 'consumer', type: 'module', private: true })
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
        const consumer = await typedConsumer(`${entry.replace(/\W/g, '-')}-app-${index}`, source, { skipLibCheck: false })
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
      const consumer = await typedConsumer(`express-4-app-${index}`, expressApp.source, { skipLibCheck: false, compilerOptions: EXPRESS_4_TYPES })
      const files = await filesCheckedIn(consumer, tsc)
      assert.ok(files.some((file) => file.endsWith(expressApp.declarations)), 'the listing names the declarations it checked')
      assert.ok(files.some((file) => file.endsWith('node_modules/@types/express4/index.d.ts')), 'the listing names @types/express 4')
      assert.deepEqual(files.filter((file) => /\/@types\/express(-serve-static-core)?\/index\.d\.ts$/.test(file) && !file.includes('/@types/express4/')), [])
    })
  }
})
