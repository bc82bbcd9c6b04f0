/**
 * Spec 5.6.3 said at startup: which projects no permission protects, once per project, for the
 * Fastify plugin and the Express middleware, with permissions from a Feast registry (built with
 * the registry schema, replaced while the server runs), a list, or a source of unknown projects.
 */
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { feastAuthz, type FeastAuthzOptions } from '../../src/adapters/fastify.ts'
import { feastAuthzExpress } from '../../src/adapters/express.ts'
import { createPermissionGate } from '../../src/adapters/require-permission.ts'
import { NAMED_PROJECTS, REPORTED_UNKNOWN_PROJECTS } from '../../src/adapters/unprotected-projects.ts'
import { createPrincipal } from '../../src/base/principal.ts'
import { openFeastRegistry } from '../../src/registry/feast-registry.ts'
import { captureLogs, type LogLine } from '../helpers/logs.ts'
import { registryBytes, replaceFile, type RegistryContent } from '../helpers/registry-builder.ts'
import { AUDITORS, READERS, storeDir, TWO_PROJECTS, type StoreDir } from '../helpers/registry-wiring.ts'
import { stubManager } from '../helpers/stub-manager.ts'

const OIDC_AUTH = { type: 'oidc', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration', client_id: 'feast' }
const RITA = createPrincipal({ username: 'rita', roles: ['reader'], source: 'oidc' })
const MANAGER = stubManager({ rita: RITA })
const bearer = { authorization: 'Bearer rita' }

const cleanups: Array<() => Promise<void> | void> = []
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

function store (content: RegistryContent, auth: Record<string, unknown> = OIDC_AUTH): StoreDir {
  const made = storeDir(auth, content)
  cleanups.push(made.cleanup)
  return made
}

/** The "No permissions defined" warnings among `lines`. */
const unprotectedWarnings = (lines: readonly LogLine[]): LogLine[] => lines.filter((line) => line.level === 40 && line.msg.startsWith('No permissions defined'))

/**
 * A Fastify server (manager stubbed: the rule is about permissions, not tokens) with a route
 * needing DESCRIBE on feature view `v` in the project `?project=` names.
 */
async function fastifyServer (options: FeastAuthzOptions): Promise<{ app: FastifyInstance, lines: LogLine[] }> {
  const { logger, lines } = captureLogs()
  const app = Fastify()
  await app.register(feastAuthz, { manager: MANAGER, logger, ...options })
  app.get('/v', {
    preHandler: app.requirePermission({
      resources: { type: 'FeatureView', name: 'v' },
      actions: 'DESCRIBE',
      project: (request) => (request.query as { project?: string }).project
    })
  }, async () => ({ ok: true }))
  await app.ready()
  cleanups.push(async () => { await app.close() })
  return { app, lines }
}

describe('projects without permissions, said when the Fastify plugin registers', () => {
  test('a registry whose projects all lack permissions gets the spec\'s warning, naming them', async () => {
    const { config } = store({ projects: ['demo', 'other'] })
    const { lines } = await fastifyServer({ config })
    const warnings = unprotectedWarnings(lines)
    assert.equal(warnings.length, 1)
    assert.equal(warnings[0]?.msg, 'No permissions defined: every authenticated caller is granted full access. Define permissions to enforce fine-grained authorization.')
    assert.deepEqual(warnings[0]?.projects, ['demo', 'other'])
  })

  test('projects without permissions beside protected ones are named in one line, the server\'s own first', async () => {
    const { config } = store({ projects: ['other', 'third', 'demo'], permissions: { other: [AUDITORS] } })
    const { lines } = await fastifyServer({ config })
    const warnings = unprotectedWarnings(lines)
    assert.equal(warnings.length, 1)
    assert.deepEqual(warnings[0]?.projects, ['demo', 'third'])
    assert.equal(warnings[0]?.msg, 'No permissions defined in 2 of 3 projects: every authenticated caller has full access to project "demo" (the server\'s own) and ' +
      'project "third". Define permissions to enforce fine-grained authorization.')
  })

  test(`a line names at most ${NAMED_PROJECTS} projects and counts the others, which its \`projects\` field lists`, async () => {
    const open = Array.from({ length: NAMED_PROJECTS + 2 }, (_, i) => `p${i}`)
    const { config } = store({ projects: ['demo', ...open], permissions: { demo: [READERS] } })
    const { lines } = await fastifyServer({ config })
    const warnings = unprotectedWarnings(lines)
    assert.deepEqual(warnings.map((line) => line.projects), [open])
    assert.match(warnings[0]?.msg ?? '', /project "p9" and 2 more \(listed in `projects`\)\. Define permissions/)
    assert.doesNotMatch(warnings[0]?.msg ?? '', /"p10"/)
  })

  test('no warning when every project has permissions', async () => {
    const { config } = store(TWO_PROJECTS)
    const { lines } = await fastifyServer({ config })
    assert.deepEqual(unprotectedWarnings(lines), [])
  })

  test('requests to a project already named add no warning', async () => {
    const { config } = store({ projects: ['demo', 'other'], permissions: { demo: [READERS] } })
    const { app, lines } = await fastifyServer({ config })
    assert.equal((await app.inject({ url: '/v?project=other', headers: bearer })).statusCode, 200)
    assert.equal((await app.inject({ url: '/v?project=other', headers: bearer })).statusCode, 200)
    assert.deepEqual(unprotectedWarnings(lines).map((line) => line.projects), [['other']])
  })

  test('under no_auth nothing is said about permissions: the only warning is that every endpoint is open', async () => {
    const { config } = store({ projects: ['demo', 'other'] }, { type: 'no_auth' })
    const { logger, lines } = captureLogs()
    const app = Fastify()
    await app.register(feastAuthz, { config, logger })
    cleanups.push(async () => { await app.close() })
    assert.deepEqual(lines.filter((line) => line.level === 40).map((line) => line.msg), [
      'auth.type is no_auth: the server is UNAUTHENTICATED and every endpoint is open (development only)'
    ])
  })

  test('an empty list of permissions gets the spec\'s warning at registration, before any request', async () => {
    const { lines } = await fastifyServer({ config: { project: 'p', auth: OIDC_AUTH }, permissions: [] })
    assert.deepEqual(unprotectedWarnings(lines).map((line) => line.msg), [
      'No permissions defined: every authenticated caller is granted full access. Define permissions to enforce fine-grained authorization.'
    ])
  })

  test('a list holding permissions gets no warning', async () => {
    const { lines } = await fastifyServer({ config: { project: 'p', auth: OIDC_AUTH }, permissions: [READERS] })
    assert.deepEqual(unprotectedWarnings(lines), [])
  })
})

describe('projects that appear in the registry while the server runs', () => {
  test('a new project without permissions is named once, when it appears', async () => {
    const served = store(TWO_PROJECTS)
    const { app, lines } = await fastifyServer({ config: served.config })
    replaceFile(served.registry, registryBytes({ ...TWO_PROJECTS, projects: ['demo', 'other', 'fresh'], versionId: 'v2' }))
    assert.equal(await app.feastAuthz.registry?.refresh(), 'updated')
    replaceFile(served.registry, registryBytes({ ...TWO_PROJECTS, projects: ['demo', 'other', 'fresh'], versionId: 'v3' }))
    assert.equal(await app.feastAuthz.registry?.refresh(), 'updated')
    const warnings = unprotectedWarnings(lines)
    assert.equal(warnings.length, 1)
    assert.deepEqual(warnings[0]?.projects, ['fresh'])
    assert.equal(warnings[0]?.msg, 'No permissions defined in a project new in the registry: every authenticated caller has full access to project "fresh". ' +
      'Define permissions to enforce fine-grained authorization.')
  })

  test('a new project that comes with permissions is not named', async () => {
    const served = store(TWO_PROJECTS)
    const { app, lines } = await fastifyServer({ config: served.config })
    replaceFile(served.registry, registryBytes({ projects: ['demo', 'other', 'fresh'], permissions: { ...TWO_PROJECTS.permissions, fresh: [READERS] }, versionId: 'v2' }))
    assert.equal(await app.feastAuthz.registry?.refresh(), 'updated')
    assert.deepEqual(unprotectedWarnings(lines), [])
  })

  test('a server closed no longer hears about the registry it was given', async () => {
    const served = store(TWO_PROJECTS)
    const registry = openFeastRegistry({ path: served.registry, project: 'demo', pollIntervalMs: 0 })
    cleanups.push(() => { registry.close() })
    const { app, lines } = await fastifyServer({ config: served.config, permissions: registry })
    await app.close()
    replaceFile(served.registry, registryBytes({ ...TWO_PROJECTS, projects: ['demo', 'other', 'fresh'], versionId: 'v2' }))
    assert.equal(await registry.refresh(), 'updated')
    assert.deepEqual(unprotectedWarnings(lines), [])
  })
})

describe('projects without permissions, said when the Express middleware is created', () => {
  test('feastAuthzExpress() names the projects without permissions at once', async () => {
    const { config } = store({ projects: ['demo', 'other'], permissions: { other: [AUDITORS] } })
    const { logger, lines } = captureLogs()
    const authz = feastAuthzExpress({ config, manager: MANAGER, logger })
    cleanups.push(async () => { await authz.close() })
    assert.deepEqual(unprotectedWarnings(lines).map((line) => line.projects), [['demo']])
  })
})

describe('a permission source whose projects are unknown', () => {
  const check = (gate: ReturnType<typeof createPermissionGate>, project: string | undefined, log: ReturnType<typeof captureLogs>['logger']): boolean =>
    gate.check(RITA, [{ type: 'FeatureView', name: 'v' }], ['DESCRIBE'], { filter: false, project, log }).allowed

  test('says nothing at startup, then names each project at its first check without permissions, once', () => {
    const { logger, lines } = captureLogs()
    const gate = createPermissionGate({ authType: 'oidc', permissions: { permissionsFor: () => [] }, realm: 'feast', logger, project: 'home' })
    assert.deepEqual(unprotectedWarnings(lines), [])
    for (const project of [undefined, 'home', 'a', 'a']) assert.equal(check(gate, project, logger), true)
    assert.deepEqual(unprotectedWarnings(lines).map((line) => line.msg), [
      'No permissions defined: every authenticated caller has full access to project "home" (the server\'s own). Define permissions to enforce fine-grained authorization.',
      'No permissions defined: every authenticated caller has full access to project "a". Define permissions to enforce fine-grained authorization.'
    ])
  })

  test(`stops naming projects after ${REPORTED_UNKNOWN_PROJECTS}, and says so once`, () => {
    const { logger, lines } = captureLogs()
    const gate = createPermissionGate({ authType: 'oidc', permissions: { permissionsFor: () => [] }, realm: 'feast', logger })
    for (let i = 0; i < REPORTED_UNKNOWN_PROJECTS + 5; i++) check(gate, `p${i}`, logger)
    assert.equal(unprotectedWarnings(lines).length, REPORTED_UNKNOWN_PROJECTS)
    assert.deepEqual(lines.filter((line) => /further ones are not/.test(line.msg)).map((line) => line.reported), [REPORTED_UNKNOWN_PROJECTS])
  })
})
