/**
 * The Express example of docs/reference-server.md ("The same checks in Express") runs as written
 * (imports pointed at the sources, files at the scenario's store, a free port), on Express 5 and on
 * Express 4, and holds every get-online-features case the Fastify reference server holds
 * (test/server/feast-checks.test.ts).
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { after, before, describe, mock, test } from 'node:test'
import { DOCS, markedBlocks, REPO } from '../../helpers/markdown.ts'
import { defineReadChecks, issueTokens, postAs, writeStore, type StoreFiles, type User } from '../../helpers/feast-checks.ts'
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'
import { exampleLogs } from '../../helpers/express-entry-for-examples.ts'
import { EXPRESS_MAJORS, type ExpressRelease } from '../../helpers/express-majors.ts'

let provider: TestProvider
let store: StoreFiles
let tokens: Record<User, string>

/** The example's server and adapter, and the lines it printed while starting. */
interface RunningExample { server: Server, authz: { close: () => Promise<void> }, printed: string[] }

before(async () => {
  // The provider is started here, not by the OIDC-app fixture: the documented Express example runs as written.
  provider = await startOidcProvider()
  tokens = await issueTokens(provider)
  store = writeStore(provider)
})

after(async () => {
  await provider?.close()
  store?.cleanup()
})

/** Writes the example with `express` mapped to `major`'s package, imports it, and answers what it exports. */
async function startExample (major: ExpressRelease): Promise<RunningExample> {
  const imports: Record<string, string> = {
    express: import.meta.resolve(major.specifier),
    // The entry of the sources, whose default logger (the example gives none) writes into exampleLogs, not stdout.
    'feast-authz/express': import.meta.resolve('../../helpers/express-entry-for-examples.ts'),
    'feast-authz/online': pathToFileURL(join(REPO, 'src/server/online.ts')).href
  }
  const block = markedBlocks(join(DOCS, 'reference-server.md')).find((candidate) => candidate.kind === 'guide-example' && candidate.name === 'express-online-read')
  assert.ok(block !== undefined, 'docs/reference-server.md has no <!-- guide-example: express-online-read -->')
  let source = block.text.replace(/from '([^']+)'/g, (_whole, specifier: string) => {
    const target = imports[specifier]
    assert.ok(target !== undefined, `the example imports ${specifier}, which this test does not map`)
    return `from '${target}'`
  })
  for (const [file, path] of [['feature_store.yaml', store.config], ['permissions.yaml', store.permissions], ['registry.yaml', store.registry]]) {
    source = source.split(`'./${file}'`).join(`'${path}'`)
  }
  // The port only: what follows (the 'listening' handler) stays as written, and what it prints is kept.
  const listen = /^app\.listen\(6566(?=[,)])/m
  assert.match(source, listen, 'the example no longer listens with app.listen(6566…)')
  source = source.replace(listen, "export { authz }\nexport const server = app.listen(0, '127.0.0.1'")
  const path = join(store.dir, `express-example-${major.specifier}.mts`)
  writeFileSync(path, source)
  const printed = mock.method(console, 'log', () => {})
  try {
    const example = await import(pathToFileURL(path).href) as { server: Server, authz: { close: () => Promise<void> } }
    if (!example.server.listening) await new Promise((resolve) => example.server.once('listening', resolve))
    // The 'listening' handler runs after the server's own: one more turn lets it print.
    await new Promise((resolve) => setImmediate(resolve))
    return { ...example, printed: printed.mock.calls.map((call) => call.arguments.join(' ')) }
  } finally {
    printed.mock.restore()
  }
}

for (const major of EXPRESS_MAJORS) {
  describe(`the Express example on ${major.name}: POST /get-online-features checks what Feast checks, in Feast's order`, () => {
    let example: RunningExample | undefined
    let base: string

    before(async () => {
      example = await startExample(major)
      base = `http://127.0.0.1:${(example.server.address() as AddressInfo).port}`
    })

    after(async () => {
      if (example !== undefined) {
        const { server } = example
        await new Promise<void>((resolve) => { server.close(() => { resolve() }) })
        await example.authz.close()
      }
    })

    for (const [name, check] of Object.entries(defineReadChecks(() => ({ base, tokens })))) test(name, check)

    test('says where it listens once the port is open', () => {
      assert.deepEqual(example?.printed, ['feature server listening on http://localhost:6566'])
    })

    test('without a token: 401 before the body is read', async () => {
      const response = await fetch(`${base}/get-online-features`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' })
      assert.equal(response.status, 401)
      assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer /)
    })

    test('logs each refusal with the permission that decided it, where an operator reads it', async () => {
      const reply = await postAs(base, tokens.nobody, '/get-online-features', { features: ['credit_history:credit_card_due'], entities: { dob_ssn: ['19530219_5179'] } })
      assert.equal(reply.status, 403, reply.text)
      const denial = exampleLogs.lines.findLast((line) => line.event === 'authorization' && line.username === 'nobody')
      assert.ok(denial !== undefined, exampleLogs.raw.join('\n'))
      assert.equal(denial.decision, 'deny')
      assert.match(String(denial.explanation), /Permission reader denied \[READ_ONLINE\] on FeatureView:credit_history/)
    })
  })
}
