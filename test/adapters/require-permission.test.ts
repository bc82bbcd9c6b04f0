import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { feastAuthz } from '../../src/adapters/fastify.ts'
import { ROUTE_AUTHZ } from '../../src/adapters/fastify-permissions.ts'
import { createPermissionGate, EXPLAINED_HIDDEN, type PermissionGate } from '../../src/adapters/require-permission.ts'
import type { AuthLogger } from '../../src/base/logging.ts'
import { permission, roleBasedPolicy } from '../../src/permissions/index.ts'
import type { Permission, Resource } from '../../src/permissions/model.ts'
import { createPrincipal } from '../../src/base/principal.ts'
import { stubManager } from '../helpers/stub-manager.ts'
import { captureLogs } from '../helpers/logs.ts'

const OIDC_CONFIG = { project: 'p', auth: { type: 'oidc', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration', client_id: 'feast' } }
const principal = (username: string, roles: string[], source: 'oidc' | 'intra' = 'oidc') => createPrincipal({ username, roles, source })
const TOKENS = {
  reader: principal('rita', ['reader']),
  writer: principal('walt', ['writer']),
  viewer: principal('vic', ['viewer']),
  nobody: principal('nora', []),
  intra: principal('feature-server', [], 'intra')
}
const PERMISSIONS = [
  permission({ name: 'readers', types: ['FeatureView'], actions: ['DESCRIBE', 'READ_ONLINE'], policy: roleBasedPolicy(['reader']) }),
  permission({ name: 'writers', types: ['FeatureView'], actions: ['WRITE'], policy: roleBasedPolicy(['writer']) }),
  permission({ name: 'driver-viewers', types: ['Entity'], namePatterns: 'driver_.*', actions: ['DESCRIBE'], policy: roleBasedPolicy(['viewer']) })
]
const view = (name: string): Resource => ({ type: 'FeatureView', name })
const entity = (name: string): Resource => ({ type: 'Entity', name })
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

async function buildApp (
  options: { permissions?: typeof PERMISSIONS, noAuth?: boolean } = {}
): Promise<{ app: FastifyInstance, lines: Array<Record<string, unknown>> }> {
  const { logger, lines } = captureLogs()
  const app = Fastify({ loggerInstance: logger }) as unknown as FastifyInstance
  const auth = options.noAuth === true ? { config: { project: 'p', auth: { type: 'no_auth' } } } : { config: OIDC_CONFIG, manager: stubManager(TOKENS) }
  await app.register(feastAuthz, { ...auth, permissions: options.permissions ?? PERMISSIONS })
  return { app, lines }
}

describe('requirePermission as an explicit preHandler', () => {
  let app: FastifyInstance
  let lines: Array<Record<string, unknown>>
  before(async () => {
    ({ app, lines } = await buildApp())
    app.get('/stats', { preHandler: app.requirePermission({ resources: view('driver_stats'), actions: 'DESCRIBE' }) }, async (request) => ({ caller: request.principal?.username }))
    app.get('/views/:name', {
      preHandler: app.requirePermission({ resources: (request) => view((request.params as { name: string }).name), actions: ['READ_ONLINE'] })
    }, async () => ({ ok: true }))
    app.post('/write', { preHandler: app.requirePermission({ resources: [view('a'), view('b')], actions: 'WRITE' }) }, async () => ({ ok: true }))
    app.get('/public-but-checked', {
      config: { feastAuthz: { public: true } },
      preHandler: app.requirePermission({ resources: view('driver_stats'), actions: 'DESCRIBE' })
    }, async () => ({ ok: true }))
  })
  after(async () => { await app.close() })

  test('a principal whose role a matching permission grants reaches the handler', async () => {
    const response = await app.inject({ url: '/stats', headers: bearer('reader') })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { caller: 'rita' })
  })

  test('a denied principal gets 403 with a short message naming the actions and the resource only', async () => {
    const response = await app.inject({ url: '/stats', headers: bearer('writer') })
    assert.equal(response.statusCode, 403)
    assert.deepEqual(response.json(), { statusCode: 403, code: 'permission_denied', error: 'Forbidden', message: 'Permission denied: [DESCRIBE] on FeatureView:driver_stats' })
    assert.ok(!response.body.includes('reader'), 'the 403 body must not say which roles would have been needed')
  })

  test('the full explanation of a denial is logged at info, with the username', async () => {
    await app.inject({ url: '/stats', headers: bearer('nobody') })
    const line = lines.find((entry) => entry.msg === 'permission denied' && entry.username === 'nora')
    assert.ok(line !== undefined, 'expected a "permission denied" log line for nora')
    assert.equal(line.level, 30)
    assert.match(String(line.explanation), /Permission readers denied \[DESCRIBE\] on FeatureView:driver_stats: requires roles \[reader\]/)
  })

  test('resources computed from the route params are the ones checked', async () => {
    assert.equal((await app.inject({ url: '/views/anything', headers: bearer('reader') })).statusCode, 200)
    const denied = await app.inject({ url: '/views/anything', headers: bearer('writer') })
    assert.equal(denied.statusCode, 403)
    assert.match(denied.json().message, /FeatureView:anything/)
  })

  test('an action group is expanded and one permission must cover all of its actions on every resource', async () => {
    assert.equal((await app.inject({ method: 'POST', url: '/write', headers: bearer('writer') })).statusCode, 200)
    const denied = await app.inject({ method: 'POST', url: '/write', headers: bearer('reader') })
    assert.equal(denied.statusCode, 403)
    assert.equal(denied.json().message, 'Permission denied: [WRITE_ONLINE, WRITE_OFFLINE] on FeatureView:a')
  })

  test('without any token the authentication hook answers 401 before the permission check', async () => {
    const response = await app.inject({ url: '/stats' })
    assert.equal(response.statusCode, 401)
    assert.equal(response.headers['www-authenticate'], 'Bearer realm="feast"')
  })

  test('on a public route, where nobody authenticated, the check answers 401 with a Bearer challenge', async () => {
    const response = await app.inject({ url: '/public-but-checked', headers: bearer('reader') })
    assert.equal(response.statusCode, 401)
    assert.equal(response.headers['www-authenticate'], 'Bearer realm="feast"')
    assert.equal(response.json().code, 'missing_token')
  })

  test('the intra-server principal passes every check', async () => {
    assert.equal((await app.inject({ url: '/stats', headers: bearer('intra') })).statusCode, 200)
    assert.equal((await app.inject({ method: 'POST', url: '/write', headers: bearer('intra') })).statusCode, 200)
  })

  test('an unknown action fails when the preHandler is created, not at request time', () => {
    assert.throws(() => app.requirePermission({ resources: view('x'), actions: 'REED' as 'READ' }), { name: 'OptionError', message: /unknown action "REED"/ })
  })
})

describe('requirePermission from route config', () => {
  let app: FastifyInstance
  before(async () => {
    ({ app } = await buildApp())
    app.get('/stats', { config: { feastAuthz: { permission: { resources: view('driver_stats'), actions: 'DESCRIBE' } } } }, async () => ({ ok: true }))
    app.post('/views', {
      schema: { body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
      config: { feastAuthz: { permission: { resources: (request) => view((request.body as { name: string }).name), actions: 'WRITE_ONLINE' } } },
      // A route's own preHandler runs after the permission check.
      preHandler: async (request) => { request.log.info({ marker: true }, 'route preHandler ran') }
    }, async (request) => ({ wrote: (request.body as { name: string }).name }))
    app.get('/entities', {
      config: { feastAuthz: { permission: { resources: [entity('driver_a'), entity('rider_b'), entity('driver_c')], actions: 'DESCRIBE', filter: true } } }
    }, async (request) => ({ names: request.permittedResources?.map((resource) => resource.name) }))
    app.get('/views-filtered', {
      config: { feastAuthz: { permission: { resources: [view('a'), view('b')], actions: 'DESCRIBE', filter: true } } }
    }, async (request) => ({ names: request.permittedResources?.map((resource) => resource.name) }))
  })
  after(async () => { await app.close() })

  test('a route with config.feastAuthz.permission allows a granted principal', async () => {
    assert.equal((await app.inject({ url: '/stats', headers: bearer('reader') })).statusCode, 200)
  })

  test('a route with config.feastAuthz.permission answers 403 to a denied principal', async () => {
    const response = await app.inject({ url: '/stats', headers: bearer('writer') })
    assert.equal(response.statusCode, 403)
    assert.equal(response.json().code, 'permission_denied')
  })

  test('HEAD, which Fastify serves from the GET route, is checked as the GET is', async () => {
    assert.equal((await app.inject({ method: 'HEAD', url: '/stats', headers: bearer('writer') })).statusCode, 403)
    assert.equal((await app.inject({ method: 'HEAD', url: '/stats', headers: bearer('reader') })).statusCode, 200)
  })

  test('computed resources see the validated body', async () => {
    const allowed = await app.inject({ method: 'POST', url: '/views', headers: bearer('writer'), payload: { name: 'driver_stats' } })
    assert.equal(allowed.statusCode, 200)
    assert.deepEqual(allowed.json(), { wrote: 'driver_stats' })
    assert.equal((await app.inject({ method: 'POST', url: '/views', headers: bearer('reader'), payload: { name: 'driver_stats' } })).statusCode, 403)
  })

  test('an invalid body is refused by validation before the permission is computed', async () => {
    const response = await app.inject({ method: 'POST', url: '/views', headers: bearer('writer'), payload: { other: 1 } })
    assert.equal(response.statusCode, 400)
  })

  test('filter mode hands the handler only the resources a name-scoped permission allows', async () => {
    const response = await app.inject({ url: '/entities', headers: bearer('viewer') })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { names: ['driver_a', 'driver_c'] })
  })

  test('filter mode refuses the whole call when the denying permission is not scoped by name', async () => {
    const response = await app.inject({ url: '/views-filtered', headers: bearer('writer') })
    assert.equal(response.statusCode, 403)
    assert.equal(response.json().message, 'Permission denied: [DESCRIBE] on FeatureView:a')
  })

  test('a route config with an unknown action fails when the route is declared', async () => {
    const { app: fresh } = await buildApp()
    try {
      assert.throws(
        () => fresh.get('/bad', { config: { feastAuthz: { permission: { resources: view('x'), actions: 'REED' as 'READ' } } } }, async () => ({})),
        { name: 'OptionError', message: /unknown action "REED"/ }
      )
    } finally {
      await fresh.close()
    }
  })
})

describe('route configs that cannot mean what they say', () => {
  test('a misspelt permission fails when the route is declared, naming the key meant, where the route was left to every authenticated caller', async () => {
    const { app: fresh } = await buildApp()
    try {
      assert.throws(
        () => fresh.get('/bad', { config: { feastAuthz: { permision: { resources: view('x'), actions: 'READ' } } as never } }, async () => ({})),
        { name: 'OptionError', option: 'config.feastAuthz.permision', message: 'feast-authz: route GET /bad: config.feastAuthz.permision is not an option (did you mean config.feastAuthz.permission?)' }
      )
    } finally {
      await fresh.close()
    }
  })

  test('a public that is not a boolean fails when the route is declared', async () => {
    const { app: fresh } = await buildApp()
    try {
      assert.throws(
        () => fresh.get('/bad', { config: { feastAuthz: { public: 'yes' as never } } }, async () => ({})),
        { name: 'OptionError', option: 'config.feastAuthz.public', message: /^feast-authz: route GET \/bad: config\.feastAuthz\.public must be true or false, got "yes"$/ }
      )
    } finally {
      await fresh.close()
    }
  })
})

describe('route-config permissions and registration order', () => {
  test('a route declared before an un-awaited register is still checked', async () => {
    const app = Fastify() as unknown as FastifyInstance
    void app.register(feastAuthz, { config: OIDC_CONFIG, manager: stubManager(TOKENS), permissions: PERMISSIONS })
    app.get('/early', { config: { feastAuthz: { permission: { resources: view('driver_stats'), actions: 'DESCRIBE' } } } }, async () => ({ ok: true }))
    try {
      assert.equal((await app.inject({ url: '/early', headers: bearer('nobody') })).statusCode, 403)
      assert.equal((await app.inject({ url: '/early', headers: bearer('reader') })).statusCode, 200)
      assert.equal((await app.inject({ url: '/early' })).statusCode, 401)
    } finally {
      await app.close()
    }
  })

  for (const [left, clear] of [
    ['no copy', (slots: Record<symbol, unknown>) => { delete slots[ROUTE_AUTHZ] }],
    ['a null copy', (slots: Record<symbol, unknown>) => { slots[ROUTE_AUTHZ] = null }]
  ] as const) {
    test(`the permission preHandler reads the route config itself when onRequest left it ${left}`, async () => {
      const { app } = await buildApp()
      // A hook between the two clears what the plugin's onRequest kept for the preHandler.
      app.addHook('preParsing', async (request) => { clear(request as unknown as Record<symbol, unknown>) })
      app.get('/kept', { config: { feastAuthz: { permission: { resources: view('driver_stats'), actions: 'DESCRIBE' } } } }, async () => ({ ok: true }))
      try {
        assert.equal((await app.inject({ url: '/kept', headers: bearer('nobody') })).statusCode, 403)
        assert.equal((await app.inject({ url: '/kept', headers: bearer('reader') })).statusCode, 200)
      } finally {
        await app.close()
      }
    })
  }

  test('a route-config permission is checked once, not twice', async () => {
    const { app, lines } = await buildApp()
    app.get('/once', { config: { feastAuthz: { permission: { resources: view('x'), actions: 'DESCRIBE' } } } }, async () => ({ ok: true }))
    try {
      assert.equal((await app.inject({ url: '/once', headers: bearer('nobody') })).statusCode, 403)
      assert.equal(lines.filter((line) => line.msg === 'permission denied').length, 1)
    } finally {
      await app.close()
    }
  })

  test('an empty computed resource list is refused outside filter mode', async () => {
    const { app } = await buildApp()
    app.post('/batch', { preHandler: app.requirePermission({ resources: (request) => (request.body as { names: string[] }).names.map(view), actions: 'WRITE_ONLINE' }) }, async () => ({ ok: true }))
    try {
      const response = await app.inject({ method: 'POST', url: '/batch', headers: bearer('nobody'), payload: { names: [] } })
      assert.equal(response.statusCode, 403)
      assert.equal((await app.inject({ method: 'POST', url: '/batch', headers: bearer('writer'), payload: { names: ['a'] } })).statusCode, 200)
    } finally {
      await app.close()
    }
  })

  test('an empty list in filter mode is simply an empty result', async () => {
    const { app } = await buildApp()
    app.get('/none', { preHandler: app.requirePermission({ resources: () => [], actions: 'DESCRIBE', filter: true }) }, async (request) => ({ permitted: request.permittedResources }))
    try {
      const response = await app.inject({ url: '/none', headers: bearer('nobody') })
      assert.equal(response.statusCode, 200)
      assert.deepEqual(response.json(), { permitted: [] })
    } finally {
      await app.close()
    }
  })
})

describe('requirePermission where permissions do not apply', () => {
  test('under no_auth every check passes, even on a public route and with denying permissions', async () => {
    const { app } = await buildApp({ noAuth: true, permissions: [permission({ name: 'nobody', actions: ['DESCRIBE'], policy: roleBasedPolicy(['none']) })] })
    try {
      app.get('/stats', { preHandler: app.requirePermission({ resources: view('x'), actions: 'DESCRIBE' }) }, async () => ({ ok: true }))
      app.get('/public', { config: { feastAuthz: { public: true, permission: { resources: view('x'), actions: 'DESCRIBE' } } } }, async () => ({ ok: true }))
      assert.equal((await app.inject({ url: '/stats' })).statusCode, 200)
      assert.equal((await app.inject({ url: '/public' })).statusCode, 200)
    } finally {
      await app.close()
    }
  })

  test('with no permissions defined every authenticated caller is allowed and a warning is logged once', async () => {
    const { app, lines } = await buildApp({ permissions: [] })
    try {
      app.get('/stats', { preHandler: app.requirePermission({ resources: view('x'), actions: 'DELETE' }) }, async () => ({ ok: true }))
      assert.equal((await app.inject({ url: '/stats', headers: bearer('nobody') })).statusCode, 200)
      assert.equal((await app.inject({ url: '/stats', headers: bearer('reader') })).statusCode, 200)
      const warnings = lines.filter((entry) => entry.level === 40 && /No permissions defined/.test(String(entry.msg)))
      assert.equal(warnings.length, 1)
    } finally {
      await app.close()
    }
  })

  test('with no permissions defined an unauthenticated caller is still rejected', async () => {
    const { app } = await buildApp({ permissions: [] })
    try {
      app.get('/public', { config: { feastAuthz: { public: true, permission: { resources: view('x'), actions: 'DESCRIBE' } } } }, async () => ({ ok: true }))
      assert.equal((await app.inject({ url: '/public' })).statusCode, 401)
    } finally {
      await app.close()
    }
  })
})

describe('the permission gate shared by the adapters', () => {
  const scoped = permission({ name: 'scoped', types: ['FeatureView'], namePatterns: 'team_.*', actions: ['DESCRIBE'], policy: roleBasedPolicy(['team']) })
  const listing = [view('team_a'), view('other')]
  const gateWith = (permissions: Permission[]): PermissionGate =>
    createPermissionGate({ authType: 'oidc', permissions, realm: 'feast', logger: captureLogs().logger })

  test('with debug logging on, a filtered listing logs each hidden resource with its explanation', () => {
    const { logger, lines } = captureLogs()
    gateWith([scoped]).check(principal('tess', ['team']), listing, ['DESCRIBE'], { filter: true, project: undefined, log: logger })
    const line = lines.find((entry) => entry.msg === 'resources hidden by permissions')
    assert.equal(line?.hiddenCount, 1)
    assert.deepEqual(line?.hidden, ['No permission applies to [DESCRIBE] on FeatureView:other (not applicable: scoped [name_pattern did not match])'])
  })

  test(`with debug logging on, a listing that hides many resources explains the first ${EXPLAINED_HIDDEN} and counts the others`, () => {
    const { logger, lines } = captureLogs()
    const others = Array.from({ length: EXPLAINED_HIDDEN + 15 }, (_, i) => view(`other_${i}`))
    gateWith([scoped]).check(principal('tess', ['team']), [view('team_a'), ...others], ['DESCRIBE'], { filter: true, project: undefined, log: logger })
    const line = lines.find((entry) => entry.msg === 'resources hidden by permissions')
    assert.equal(line?.hiddenCount, EXPLAINED_HIDDEN + 15)
    assert.deepEqual(line?.hidden, [
      ...others.slice(0, EXPLAINED_HIDDEN).map(({ name }) => `No permission applies to [DESCRIBE] on FeatureView:${name} (not applicable: scoped [name_pattern did not match])`),
      'and 15 more'
    ])
  })

  test(`with debug logging on, a hidden resource past the first ${EXPLAINED_HIDDEN} costs no more than a kept one: neither is explained`, () => {
    // Counted in reads of each resource's name, not timed. Debug logging reads every name once
    // more for the authorization line; an explanation reads it again.
    const extraReadsAtDebug = (): number[] => {
      const names = ['team_a', ...Array.from({ length: EXPLAINED_HIDDEN + 15 }, (_, i) => `other_${i}`)]
      const readsAt = (level: 'info' | 'debug'): number[] => {
        const reads = names.map(() => 0)
        const listing = names.map((name, i): Resource => ({ type: 'FeatureView', get name () { reads[i] = (reads[i] ?? 0) + 1; return name } }))
        const { logger } = captureLogs()
        logger.level = level
        gateWith([scoped]).check(principal('tess', ['team']), listing, ['DESCRIBE'], { filter: true, project: undefined, log: logger })
        return reads
      }
      const quiet = readsAt('info')
      return readsAt('debug').map((reads, i) => reads - (quiet[i] ?? 0))
    }
    const [kept, ...hidden] = extraReadsAtDebug()
    assert.ok(hidden.slice(0, EXPLAINED_HIDDEN).every((extra) => extra > (kept ?? 0)), 'the explained resources were not read again: the count does not see explanations')
    assert.deepEqual(hidden.slice(EXPLAINED_HIDDEN), Array.from({ length: 15 }, () => kept))
  })

  test('with debug logging off, a filtered listing hands the logger nothing about the hidden resources', () => {
    const calls: unknown[][] = []
    const record = (...args: unknown[]): void => { calls.push(args) }
    const log = { debug: record, info: () => {}, warn: () => {}, error: () => {}, isLevelEnabled: (level: string) => level !== 'debug' && level !== 'trace' } as unknown as AuthLogger
    const outcome = gateWith([scoped]).check(principal('tess', ['team']), listing, ['DESCRIBE'], { filter: true, project: undefined, log })
    assert.deepEqual([outcome.allowed, calls], [true, []])
  })

  test('a spec with its resources at hand is decided at once, without a promise', () => {
    const gate = gateWith(PERMISSIONS)
    const log = captureLogs().logger
    const outcomes = [
      gate.evaluate(gate.compile({ resources: view('driver_stats'), actions: 'DESCRIBE' }), {}, TOKENS.reader, log),
      gate.evaluate(gate.compile({ resources: () => view('driver_stats'), actions: () => 'DESCRIBE' }), {}, TOKENS.reader, log),
      gate.evaluate(gate.compile({ resources: () => view('driver_stats'), actions: 'WRITE' }), {}, TOKENS.reader, log)
    ]
    assert.deepEqual(outcomes.map((outcome) => outcome instanceof Promise ? 'promise' : outcome.allowed), [true, true, false])
  })

  test('a spec whose resources callback returns a promise or another thenable is decided when it settles', async () => {
    const gate = gateWith(PERMISSIONS)
    const log = captureLogs().logger
    const thenable = { then: (resolve: (resources: Resource) => void) => { resolve(view('driver_stats')) } }
    const outcomes = [
      gate.evaluate(gate.compile({ resources: async () => view('driver_stats'), actions: 'DESCRIBE' }), {}, TOKENS.reader, log),
      gate.evaluate(gate.compile({ resources: () => thenable as unknown as Promise<Resource>, actions: 'WRITE' }), {}, TOKENS.reader, log)
    ]
    assert.deepEqual(outcomes.map((outcome) => outcome instanceof Promise), [true, true])
    assert.deepEqual((await Promise.all(outcomes)).map((outcome) => outcome.allowed), [true, false])
  })

  test('an error of a synchronous resources callback is thrown by the check itself, for the adapter to hand on', () => {
    const gate = gateWith(PERMISSIONS)
    const failure = new Error('no such view')
    const spec = gate.compile({ resources: () => { throw failure }, actions: 'DESCRIBE' })
    assert.throws(() => gate.evaluate(spec, {}, TOKENS.reader, captureLogs().logger), (error) => error === failure)
  })

  test('decide settles in the same turn when the spec resolves at once, and hands a thrown or rejected error to fail', async () => {
    const gate = gateWith(PERMISSIONS)
    const log = captureLogs().logger
    const failure = new Error('no such view')
    const seen: string[] = []
    const record = (label: string) => [(outcome: { allowed: boolean }) => { seen.push(`${label}: ${String(outcome.allowed)}`) }, (error: unknown) => { seen.push(`${label}: ${error === failure ? 'failed' : String(error)}`) }] as const
    gate.decide(gate.compile({ resources: view('driver_stats'), actions: 'DESCRIBE' }), {}, TOKENS.reader, log, ...record('at once'))
    gate.decide(gate.compile({ resources: () => { throw failure }, actions: 'DESCRIBE' }), {}, TOKENS.reader, log, ...record('thrown'))
    gate.decide(gate.compile({ resources: async () => { throw failure }, actions: 'DESCRIBE' }), {}, TOKENS.reader, log, ...record('rejected'))
    assert.deepEqual(seen, ['at once: true', 'thrown: failed'])
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(seen, ['at once: true', 'thrown: failed', 'rejected: failed'])
  })

  test('the actions and the project are read after the resources are found, whether at once or later', async () => {
    const gate = gateWith(PERMISSIONS)
    const log = captureLogs().logger
    const order: string[] = []
    const specWith = (found: (resource: Resource) => Resource | Promise<Resource>) => gate.compile({
      resources: () => { order.push('resources'); return found(view('driver_stats')) },
      actions: () => { order.push('actions'); return 'DESCRIBE' },
      project: () => { order.push('project'); return undefined }
    })
    gate.evaluate(specWith((resource) => resource), {}, TOKENS.reader, log)
    await gate.evaluate(specWith(async (resource) => { await new Promise((resolve) => setImmediate(resolve)); order.push('settled'); return resource }), {}, TOKENS.reader, log)
    assert.deepEqual(order, ['resources', 'actions', 'project', 'resources', 'settled', 'actions', 'project'])
  })

  test('a check names the first permission that grants, as the explanation would', () => {
    const first = permission({ name: 'first', types: ['FeatureView'], actions: ['DESCRIBE'], policy: roleBasedPolicy(['reader']) })
    const second = permission({ name: 'second', actions: ['DESCRIBE'], policy: roleBasedPolicy(['reader']) })
    const outcome = gateWith([scoped, first, second]).check(TOKENS.reader, [view('driver_stats')], ['DESCRIBE'], { filter: false, project: undefined, log: captureLogs().logger })
    assert.deepEqual(outcome, { allowed: true, resources: [view('driver_stats')], grantedBy: 'first' })
  })

  test('a check on several resources is refused with the decision of the first denied one', () => {
    const { logger, lines } = captureLogs()
    const outcome = gateWith([scoped]).check(principal('tess', ['team']), [view('team_a'), view('other'), view('zzz')], ['DESCRIBE'], { filter: false, project: undefined, log: logger })
    assert.equal(outcome.allowed ? undefined : outcome.rejection.body.message, 'Permission denied: [DESCRIBE] on FeatureView:other')
    assert.match(String(lines.find((entry) => entry.msg === 'permission denied')?.explanation), /^No permission applies to \[DESCRIBE\] on FeatureView:other/)
  })
})
