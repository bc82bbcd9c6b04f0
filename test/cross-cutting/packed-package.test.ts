/**
 * The package as users get it (test/helpers/packed-package.ts): what the tarball holds, what the
 * tools that judge packages say of it, and separate projects that import it, type-check against
 * it, require() it and run its bin. Express-only and Fastify-only apps: one-framework.test.ts.
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { COMPILERS, createConsumers, filesCheckedIn, npmEnv as env, packedPackage, root, run, type Consumers } from '../helpers/packed-package.ts'

let tarball: string
let packedFiles: readonly string[]
let consumers: Consumers

before(async () => {
  const packed = await packedPackage()
  ;({ tarball, files: packedFiles } = packed)
  consumers = createConsumers(packed)
}, { timeout: 240_000 })

after(() => { consumers?.remove() })

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
    return await consumers.typedConsumer(name, [
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
    const consumer = await consumers.unpackInto('run-app', { name: 'consumer', type: 'module', private: true })
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
    return await consumers.typedConsumer(name, [
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
    const consumer = await consumers.unpackInto('cjs-app', { name: 'cjs-consumer', type: 'commonjs', private: true })
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
    const consumer = await consumers.unpackInto('bin-app', { name: 'bin-consumer', private: true })
    const { stdout } = await run(process.execPath, [join(consumer, 'node_modules/feast-authz/bin/feast-authz.js'), '--version'], { cwd: consumer })
    assert.match(stdout, /^\d+\.\d+\.\d+/)
  })
})
