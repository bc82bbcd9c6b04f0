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

// The Fastify and Express programs of docs/getting-started.md run as written, with only what a
// reader would change: the package imports point at the sources, the files at a temporary copy
// of the page's feature_store.yaml (discovery URL pointed at a real provider) and permissions.yaml,
// and the port is a free one on 127.0.0.1. A reader, a caller without the role and an anonymous
// caller then get what the page says.

const blocks = markedBlocks(join(DOCS, 'getting-started.md'))
const block = (kind: MarkedBlock['kind'], name: string): MarkedBlock => {
  const found = blocks.find((candidate) => candidate.kind === kind && candidate.name === name)
  assert.ok(found !== undefined, `docs/getting-started.md has no <!-- ${kind}: ${name} -->`)
  return found
}

const IMPORTS: Record<string, string> = {
  'feast-authz': pathToFileURL(join(REPO, 'src/index.ts')).href,
  'feast-authz/express': pathToFileURL(join(REPO, 'src/adapters/express.ts')).href,
  fastify: import.meta.resolve('fastify'),
  express: import.meta.resolve('express'),
  pino: import.meta.resolve('pino')
}

// Every log line the two programs write, captured instead of printed (see runExample).
const exampleLogs: Record<'fastify' | 'express', string[]> = { fastify: [], express: [] }
const LOG_STREAMS = '__feastAuthzGuideLogs'
;(globalThis as Record<string, unknown>)[LOG_STREAMS] = Object.fromEntries(
  Object.entries(exampleLogs).map(([name, lines]) => [name, { write: (line: string) => { lines.push(line) } }])
)

interface Example { url: string, close: () => Promise<void> }

/** Writes the page's program with the reader's substitutions and imports it. */
async function runExample (name: 'fastify' | 'express', dir: string, listen: { from: RegExp, to: string }): Promise<Record<string, unknown>> {
  let source = block('guide-example', name).text
  source = source.replace(/from '([^']+)'/g, (whole, specifier: string) => {
    const target = IMPORTS[specifier]
    assert.ok(target !== undefined, `the ${name} example imports ${specifier}, which this test does not map`)
    return `from '${target}'`
  })
  for (const file of ['feature_store.yaml', 'permissions.yaml']) source = source.split(`'./${file}'`).join(`'${join(dir, file)}'`)
  // The page's logger, writing to a capture instead of stdout: the options are kept as written.
  const streams = `globalThis.${LOG_STREAMS}.${name}`
  const logger = name === 'fastify'
    ? { from: "Fastify({ logger: { level: 'info', ...feastAuthzLoggerOptions } })", to: `Fastify({ logger: { level: 'info', ...feastAuthzLoggerOptions, stream: ${streams} } })` }
    : { from: "pino({ level: 'info', ...feastAuthzLoggerOptions })", to: `pino({ level: 'info', ...feastAuthzLoggerOptions }, ${streams})` }
  assert.ok(source.includes(logger.from), `the ${name} example no longer sets its logger up with ${logger.from}`)
  source = source.replace(logger.from, logger.to)
  assert.match(source, listen.from, `the ${name} example no longer ends with the expected listen call`)
  source = source.replace(listen.from, listen.to)
  const path = join(dir, `${name}-example.mts`)
  writeFileSync(path, source)
  return await import(pathToFileURL(path).href) as Record<string, unknown>
}

describe('the programs of the getting-started page', () => {
  let provider: TestProvider
  let dir: string
  let readerToken: string
  let otherToken: string
  const examples: Example[] = []

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

    const fastify = await runExample('fastify', dir, {
      from: /^await app\.listen\(\{ port: 8080 \}\)$/m,
      to: "export const url = await app.listen({ host: '127.0.0.1', port: 0 })\nexport { app }"
    })
    examples.push({ url: fastify.url as string, close: async () => { await (fastify.app as { close: () => Promise<void> }).close() } })

    // The port only: the callback stays as written, and its log line is asserted below.
    const express = await runExample('express', dir, {
      from: /^app\.listen\(8080, /m,
      to: "export { authz }\nexport const server = app.listen(0, '127.0.0.1', "
    })
    const server = express.server as Server
    if (!server.listening) await new Promise((resolve) => server.once('listening', resolve))
    examples.push({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: async () => {
        await new Promise<void>((resolve) => { server.close(() => { resolve() }) })
        await (express.authz as { close: () => Promise<void> }).close()
      }
    })
  })

  after(async () => {
    await Promise.all(examples.map(async (example) => { await example.close() }))
    await provider?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  const get = async (example: number, path: string, token?: string): Promise<{ status: number, body: Record<string, unknown>, challenge: string | null }> => {
    const response = await fetch(`${(examples[example] as Example).url}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } })
    return { status: response.status, body: await response.json() as Record<string, unknown>, challenge: response.headers.get('www-authenticate') }
  }

  test('Express: the program says where it listens, as Fastify\'s logger does', () => {
    assert.ok(exampleLogs.express.some((line) => (JSON.parse(line) as { msg?: string }).msg === 'listening on http://localhost:8080'), exampleLogs.express.join(''))
  })

  for (const [index, name] of ['Fastify', 'Express'].entries()) {
    test(`${name}: the health route answers without a token`, async () => {
      const { status, body } = await get(index, '/health')
      assert.equal(status, 200)
      assert.deepEqual(body, { status: 'ok' })
    })

    test(`${name}: a feature route without a token is a 401 with a Bearer challenge`, async () => {
      const { status, body, challenge } = await get(index, '/features/driver_hourly_stats')
      assert.equal(status, 401)
      assert.equal(body.code, 'missing_token')
      assert.match(challenge ?? '', /^Bearer realm="feast"/)
    })

    test(`${name}: the page's reader token reads a feature view`, async () => {
      const { status, body } = await get(index, '/features/driver_hourly_stats', readerToken)
      assert.equal(status, 200, JSON.stringify(body))
      assert.deepEqual(body, { view: 'driver_hourly_stats', caller: 'alice' })
    })

    test(`${name}: a token sent in the query string is refused and never reaches the log, header or not`, async () => {
      const lines = exampleLogs[index === 0 ? 'fastify' : 'express']
      const before = lines.length
      assert.equal((await get(index, `/features/driver_hourly_stats?access_token=${readerToken}`)).status, 401)
      assert.equal((await get(index, `/features/driver_hourly_stats?project=demo&access_token=${readerToken}`, readerToken)).status, 200)
      const written = lines.slice(before).join('')
      assert.match(written, /access_token=\[redacted\]/)
      assert.match(written, /project=demo/)
      assert.ok(!written.includes(readerToken) && !written.includes(readerToken.split('.')[2] as string), written)
    })

    test(`${name}: a caller without the reader role is a 403`, async () => {
      const { status, body } = await get(index, '/features/driver_hourly_stats', otherToken)
      assert.equal(status, 403)
      assert.equal(body.code, 'permission_denied')
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
    const express = page.slice(page.indexOf('## 3b. In an Express 5 app'))
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
