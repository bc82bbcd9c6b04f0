import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { after, before, describe, test } from 'node:test'
import { parse } from 'yaml'
import { main } from '../../../src/cli/main.ts'
import { runInProcess } from '../../helpers/cli.ts'
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'
import { DOCS, markedBlocks, REPO, type MarkedBlock } from '../../helpers/markdown.ts'
import { EXPRESS_MAJORS, EXPRESS_RELEASES, installedVersion } from '../../helpers/express-majors.ts'

// The Fastify and Express programs of docs/getting-started.md, with and without CORS (the Express
// ones on Express 5 and on Express 4), run as written, with only what a reader would change: the package imports point at the sources, the
// files at a temporary copy of the page's feature_store.yaml (discovery URL pointed at a real
// provider) and permissions.yaml, and the port is a free one on 127.0.0.1. A reader, a caller
// without the role, an anonymous caller and a browser's preflight then get what the page says.

const blocks = markedBlocks(join(DOCS, 'getting-started.md'))
const block = (kind: MarkedBlock['kind'], name: string): MarkedBlock => {
  const found = blocks.find((candidate) => candidate.kind === kind && candidate.name === name)
  assert.ok(found !== undefined, `docs/getting-started.md has no <!-- ${kind}: ${name} -->`)
  return found
}

const IMPORTS: Record<string, string> = {
  'feast-authz': pathToFileURL(join(REPO, 'src/index.ts')).href,
  // The entry of the sources; an example giving no logger (the CORS one) logs into the helper's capture, not stdout.
  'feast-authz/express': import.meta.resolve('../../helpers/express-entry-for-examples.ts'),
  fastify: import.meta.resolve('fastify'),
  '@fastify/cors': import.meta.resolve('@fastify/cors'),
  express: import.meta.resolve('express'),
  cors: import.meta.resolve('cors'),
  pino: import.meta.resolve('pino')
}

type ProgramName = 'fastify' | 'express' | 'fastify-cors' | 'express-cors'

/** A program of the page as the test runs it: each Express one runs once on each Express major. */
interface Run {
  /** What the test calls it: the program's name, with the major for Express (`express@4`). */
  readonly id: string
  /** For test names: `Fastify`, `Express 5`, `Express 4`. */
  readonly name: string
  /** The page's `guide-example` block. */
  readonly program: ProgramName
  /** What `import ... from 'express'` imports, for an Express program. */
  readonly express?: string
}
const runsOf = (program: ProgramName): Run[] => program.startsWith('fastify')
  ? [{ id: program, name: 'Fastify', program }]
  : EXPRESS_MAJORS.map((major) => ({ id: `${program}@${major.major}`, name: major.name, program, express: major.specifier }))
const PLAIN_RUNS = [...runsOf('fastify'), ...runsOf('express')]
const CORS_RUNS = [...runsOf('fastify-cors'), ...runsOf('express-cors')]

// Every log line the programs write, captured instead of printed (see runExample); 3c's Express one logs into the helper's.
const exampleLogs: Record<string, string[]> = Object.fromEntries([...PLAIN_RUNS, ...CORS_RUNS].map((run) => [run.id, []]))
const LOG_STREAMS = '__feastAuthzGuideLogs'
;(globalThis as Record<string, unknown>)[LOG_STREAMS] = Object.fromEntries(
  Object.entries(exampleLogs).map(([name, lines]) => [name, { write: (line: string) => { lines.push(line) } }])
)

// The page's loggers, writing to a capture instead of stdout: the options are kept as written.
const FASTIFY_LOGGER = "Fastify({ logger: { level: 'info', ...feastAuthzLoggerOptions } })"
const fastifyLogger = (capture: string): { from: string, to: string } =>
  ({ from: FASTIFY_LOGGER, to: `Fastify({ logger: { level: 'info', ...feastAuthzLoggerOptions, stream: globalThis.${LOG_STREAMS}['${capture}'] } })` })
const LOGGERS: Partial<Record<ProgramName, (capture: string) => { from: string, to: string }>> = {
  fastify: fastifyLogger,
  'fastify-cors': fastifyLogger,
  express: (capture) => ({ from: "pino({ level: 'info', ...feastAuthzLoggerOptions })", to: `pino({ level: 'info', ...feastAuthzLoggerOptions }, globalThis.${LOG_STREAMS}['${capture}'])` })
}

interface Example { url: string, close: () => Promise<void> }

/** Writes the page's program with the reader's substitutions and imports it. */
async function runExample (run: Run, dir: string, listen: { from: RegExp, to: string }): Promise<Record<string, unknown>> {
  const name = run.program
  const imports = run.express === undefined ? IMPORTS : { ...IMPORTS, express: import.meta.resolve(run.express) }
  let source = block('guide-example', name).text
  source = source.replace(/from '([^']+)'/g, (whole, specifier: string) => {
    const target = imports[specifier]
    assert.ok(target !== undefined, `the ${name} example imports ${specifier}, which this test does not map`)
    return `from '${target}'`
  })
  for (const file of ['feature_store.yaml', 'permissions.yaml']) source = source.split(`'./${file}'`).join(`'${join(dir, file)}'`)
  const logger = LOGGERS[name]?.(run.id)
  if (logger !== undefined) {
    assert.ok(source.includes(logger.from), `the ${name} example no longer sets its logger up with ${logger.from}`)
    source = source.replace(logger.from, logger.to)
  }
  assert.match(source, listen.from, `the ${name} example no longer ends with the expected listen call`)
  source = source.replace(listen.from, listen.to)
  const path = join(dir, `${run.id.replace(/\W/g, '-')}-example.mts`)
  writeFileSync(path, source)
  return await import(pathToFileURL(path).href) as Record<string, unknown>
}

/** Runs a Fastify program of the page on a free port. */
async function startFastifyExample (run: Run, dir: string): Promise<Example> {
  const fastify = await runExample(run, dir, {
    from: /^await app\.listen\(\{ port: 8080 \}\)$/m,
    to: "export const url = await app.listen({ host: '127.0.0.1', port: 0 })\nexport { app }"
  })
  return { url: fastify.url as string, close: async () => { await (fastify.app as { close: () => Promise<void> }).close() } }
}

/** Runs an Express program of the page on a free port. */
async function startExpressExample (run: Run, dir: string): Promise<Example> {
  // The port only: what follows (3b's 'listening' handler) stays as written, and its log line is asserted below.
  const express = await runExample(run, dir, {
    from: /^app\.listen\(8080(?=[,)])/m,
    to: "export { authz }\nexport const server = app.listen(0, '127.0.0.1'"
  })
  const server = express.server as Server
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise<void>((resolve) => { server.close(() => { resolve() }) })
      await (express.authz as { close: () => Promise<void> }).close()
    }
  }
}

describe('the programs of the getting-started page', () => {
  let provider: TestProvider
  let dir: string
  let readerToken: string
  let otherToken: string
  const examples = new Map<string, Example>()

  before(async () => {
    const token = JSON.parse(block('guide-token', 'getting-started').text) as Record<string, unknown>
    const { iss, aud, exp: _exp, iat: _iat, ...claims } = token
    // The provider is started here, not by the OIDC-app fixture: the getting-started programs run as written.
    provider = await startOidcProvider({ issuer: iss as string })
    readerToken = await provider.issue(claims, { audience: aud as string })
    otherToken = await provider.issue({ ...claims, preferred_username: 'bob', resource_access: { feast: { roles: ['auditor'] } } }, { audience: aud as string })

    dir = mkdtempSync(join(tmpdir(), 'feast-authz-getting-started-'))
    const config = block('guide-config', 'getting-started').text
    const documentedUrl = (parse(config) as { auth: { auth_discovery_url: string } }).auth.auth_discovery_url
    writeFileSync(join(dir, 'feature_store.yaml'), config.split(documentedUrl).join(provider.discoveryUrl))
    writeFileSync(join(dir, 'permissions.yaml'), block('guide-example', 'permissions').text)

    for (const run of [...PLAIN_RUNS, ...CORS_RUNS]) {
      examples.set(run.id, await (run.express === undefined ? startFastifyExample : startExpressExample)(run, dir))
    }
  })

  after(async () => {
    await Promise.all([...examples.values()].map(async (example) => { await example.close() }))
    await provider?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  const urlOf = (id: string): string => {
    const example = examples.get(id)
    assert.ok(example !== undefined, `the ${id} example did not start`)
    return example.url
  }

  type Answer = { status: number, body: Record<string, unknown>, challenge: string | null }
  const get = async (example: string, path: string, token?: string): Promise<Answer> => {
    const response = await fetch(`${urlOf(example)}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } })
    return { status: response.status, body: await response.json() as Record<string, unknown>, challenge: response.headers.get('www-authenticate') }
  }

  for (const { id: example, name, program } of PLAIN_RUNS) {
    if (program === 'express') {
      test(`${name}: the program says where it listens, as Fastify's logger does`, () => {
        const lines = exampleLogs[example] ?? []
        assert.ok(lines.some((line) => (JSON.parse(line) as { msg?: string }).msg === 'listening on http://localhost:8080'), lines.join(''))
      })
    }

    test(`${name}: the health route answers without a token`, async () => {
      const { status, body } = await get(example, '/health')
      assert.equal(status, 200)
      assert.deepEqual(body, { status: 'ok' })
    })

    test(`${name}: a feature route without a token is a 401 with a Bearer challenge`, async () => {
      const { status, body, challenge } = await get(example, '/features/driver_hourly_stats')
      assert.equal(status, 401)
      assert.equal(body.code, 'missing_token')
      assert.match(challenge ?? '', /^Bearer realm="feast"/)
    })

    test(`${name}: the page's reader token reads a feature view`, async () => {
      const { status, body } = await get(example, '/features/driver_hourly_stats', readerToken)
      assert.equal(status, 200, JSON.stringify(body))
      assert.deepEqual(body, { view: 'driver_hourly_stats', caller: 'alice' })
    })

    test(`${name}: a token sent in the query string is refused and never reaches the log, header or not`, async () => {
      const lines = exampleLogs[example] ?? []
      const before = lines.length
      assert.equal((await get(example, `/features/driver_hourly_stats?access_token=${readerToken}`)).status, 401)
      assert.equal((await get(example, `/features/driver_hourly_stats?project=demo&access_token=${readerToken}`, readerToken)).status, 200)
      const written = lines.slice(before).join('')
      assert.match(written, /access_token=\[redacted\]/)
      assert.match(written, /project=demo/)
      assert.ok(!written.includes(readerToken) && !written.includes(readerToken.split('.')[2] as string), written)
    })

    test(`${name}: a caller without the reader role is a 403`, async () => {
      const { status, body } = await get(example, '/features/driver_hourly_stats', otherToken)
      assert.equal(status, 403)
      assert.equal(body.code, 'permission_denied')
    })
  }

  // 3c: the origin its CORS examples allow, as written there.
  const pageOrigin = (example: string): string => {
    const program = example.replace(/@\d+$/, '')
    const origin = /origin: \['([^']+)'\]/.exec(block('guide-example', program).text)?.[1]
    assert.ok(origin !== undefined, `the ${program} example allows no origin`)
    return origin
  }

  for (const { id: example, name } of CORS_RUNS) {
    test(`${name} with CORS: a browser's preflight, without a token, is answered with 204 allowing the page's origin and the Authorization header`, async () => {
      const response = await fetch(`${urlOf(example)}/features/driver_hourly_stats`, {
        method: 'OPTIONS',
        headers: { origin: pageOrigin(example), 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' }
      })
      assert.equal(response.status, 204)
      assert.equal(response.headers.get('access-control-allow-origin'), pageOrigin(example))
      assert.match(response.headers.get('access-control-allow-headers') ?? '', /\bauthorization\b/i)
    })

    test(`${name} with CORS: a request without a token is a 401 the page may read, with its challenge exposed`, async () => {
      const response = await fetch(`${urlOf(example)}/features/driver_hourly_stats`, { headers: { origin: pageOrigin(example) } })
      assert.equal(response.status, 401)
      assert.equal(response.headers.get('access-control-allow-origin'), pageOrigin(example))
      assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer realm="feast"/)
      assert.match(response.headers.get('access-control-expose-headers') ?? '', /\bWWW-Authenticate\b/i)
    })

    test(`${name} with CORS: the page's reader token reads a feature view, the origin allowed`, async () => {
      const response = await fetch(`${urlOf(example)}/features/driver_hourly_stats`, { headers: { origin: pageOrigin(example), authorization: `Bearer ${readerToken}` } })
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('access-control-allow-origin'), pageOrigin(example))
      assert.deepEqual(await response.json(), { view: 'driver_hourly_stats', caller: 'alice' })
    })
  }
})

describe('installing, as the getting-started page says', () => {
  test('the page installs the tarball npm pack writes for this version, not a registry package', () => {
    const { name, version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { name: string, version: string }
    const page = readFileSync(join(DOCS, 'getting-started.md'), 'utf8')
    const installs = [...page.matchAll(/^npm install (.*)$/gm)].map((match) => match[1] as string)
    assert.ok(installs.length > 0, 'the page has no npm install line')
    for (const install of installs) {
      assert.doesNotMatch(install, /(^|\s)feast-authz(\s|$)/, `feast-authz is not on the npm registry: ${install}`)
      assert.match(install, new RegExp(`/${name}-${version.replace(/\./g, '\\.')}\\.tgz\\b`), install)
    }
  })

  test('the Express app installs no Fastify, and its program imports nothing of the package but feast-authz/express', () => {
    const page = readFileSync(join(DOCS, 'getting-started.md'), 'utf8')
    const express = page.slice(page.indexOf('## 3b. In an Express app'))
    const install = /^npm install (.*)$/m.exec(express)?.[1]
    assert.ok(install !== undefined, 'section 3b has no npm install line')
    const packages = install.replace(/#.*/, '').trim().split(/\s+/)
    assert.ok(packages.includes('express'), install)
    assert.ok(!packages.includes('fastify'), install)
    // The root entry is the Fastify plugin: its declarations name Fastify's types.
    const imported = [...block('guide-example', 'express').text.matchAll(/from '([^']+)'/g)].map((match) => match[1])
    assert.deepEqual(imported.filter((specifier) => specifier?.startsWith('feast-authz')), ['feast-authz/express'])
  })
})

describe('the Express releases the getting-started page names', () => {
  test('section 3b names the exact version of every Express the tests run: both floors and the newest of each major', () => {
    const page = readFileSync(join(DOCS, 'getting-started.md'), 'utf8')
    const start = page.indexOf('## 3b. In an Express app')
    const intro = page.slice(start, page.indexOf('```sh', start))
    for (const release of EXPRESS_RELEASES) {
      const version = installedVersion(release)
      assert.match(intro, new RegExp(`(^|\\s)${version.replace(/\./g, '\\.')}\\b`), `section 3b does not name ${release.name} (${version})`)
    }
  })
})

describe('trying the page with the provider of `npm start`, as its section 4 says', () => {
  test('the auth section the page describes accepts the demo\'s reader token with audience and issuer checked', async (t) => {
    const page = readFileSync(join(DOCS, 'getting-started.md'), 'utf8')
    const advice = page.slice(page.indexOf('No provider at hand yet?'))
    const value = (field: string): string => {
      const found = new RegExp(`\`${field}: ([\\w-]+)\``).exec(advice)?.[1]
      assert.ok(found !== undefined, `the advice for npm start's provider names no ${field}`)
      return found
    }
    // The provider npm start runs (demo/start.ts), with a user holding the reader role as the demo's does.
    const provider = await startOidcProvider()
    t.after(async () => { await provider.close() })
    provider.addUser('reader', 'reader-password', { preferred_username: 'reader', resource_access: { [provider.clientId]: { roles: ['reader'] } } })
    const token = await provider.issueForUser('reader')
    const dir = mkdtempSync(join(tmpdir(), 'feast-authz-getting-started-demo-'))
    t.after(() => { rmSync(dir, { recursive: true, force: true }) })
    const config = join(dir, 'feature_store.yaml')
    // The issuer as the page says to write it: the discovery URL without its well-known path.
    const issuer = provider.discoveryUrl.replace(/\/\.well-known\/openid-configuration$/, '')
    writeFileSync(config, `project: credit_scoring\nauth:\n  type: oidc\n  client_id: ${value('client_id')}\n  auth_discovery_url: ${provider.discoveryUrl}\n  audience: ${value('audience')}\n  issuer: ${issuer}\n`)
    const { code, stdout, stderr } = await runInProcess(main, ['inspect', '--config', config, '--token', token])
    assert.equal(code, 0, stderr)
    assert.deepEqual((JSON.parse(stdout) as { roles: string[] }).roles, ['reader'])
  })
})
