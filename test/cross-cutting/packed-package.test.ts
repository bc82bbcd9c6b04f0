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
    const consumer = await unpackInto(name, { name: 'consumer', type: 'module', private: true })
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({
      // skipLibCheck as `tsc --init` sets it: @kubernetes/client-node's own declarations need @types/ws otherwise.
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [join(root, 'node_modules/@types')] },
      files: ['app.ts']
    }))
    writeFileSync(join(consumer, 'app.ts'), [
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
    ].join('\n'))
    return consumer
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
    const consumer = await unpackInto(name, { name: 'strict-consumer', type: 'module', private: true })
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'], typeRoots: [join(root, 'node_modules/@types')] },
      files: ['app.ts']
    }))
    writeFileSync(join(consumer, 'app.ts'), [
      "import Fastify from 'fastify'",
      "import feastAuthz, { createAuthManager, type AuthzOptions } from 'feast-authz'",
      "import { createAuthFetch, loadClientAuthConfig } from 'feast-authz/client'",
      "const auth = { type: 'oidc', auth_discovery_url: 'https://idp.example.com/.well-known/openid-configuration', client_id: 'feast' }",
      'const options: AuthzOptions = { config: { project: \'p\', auth } }',
      'const app = Fastify()',
      'await app.register(feastAuthz, options)',
      "export const fetchWithToken = createAuthFetch(loadClientAuthConfig({ project: 'p', auth }))",
      'export { createAuthManager }'
    ].join('\n'))
    return consumer
  }

  for (const [index, { name, tsc }] of COMPILERS.entries()) {
    test(`type-checks a strict OIDC-only app without skipLibCheck under ${name}: the declarations never reach @kubernetes/client-node`, { timeout: 120_000 }, async () => {
      const consumer = await strictApp(`strict-app-${index}`)
      const { stdout } = await run(process.execPath, [tsc, '-p', consumer, '--listFiles'], { cwd: consumer, maxBuffer: 16 * 1024 * 1024 })
      const files = stdout.split('\n')
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
      "const subpaths = ['permissions', 'registry', 'operator'].map((name) => Object.keys(require('feast-authz/' + name)).length > 0)",
      'process.stdout.write(JSON.stringify([typeof express.feastAuthzExpress, typeof main.default, typeof main.loadAuthConfig, Object.keys(client).length > 0, Object.keys(server).length > 0, ...subpaths]))'
    ].join('\n'))
    const { stdout, stderr } = await run(process.execPath, ['run.cjs'], { cwd: consumer })
    assert.equal(stdout, '["function","function","function",true,true,true,true,true]', stderr)
  })

  test('its bin runs from the build (a published package has no sources)', { timeout: 120_000 }, async () => {
    const consumer = await unpackInto('bin-app', { name: 'bin-consumer', private: true })
    const { stdout } = await run(process.execPath, [join(consumer, 'node_modules/feast-authz/bin/feast-authz.js'), '--version'], { cwd: consumer })
    assert.match(stdout, /^\d+\.\d+\.\d+/)
  })
})
