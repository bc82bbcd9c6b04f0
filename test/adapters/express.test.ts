/**
 * The Express adapter on a real Express server with real tokens from an OpenID provider, on
 * Express 5 and Express 4 and on the floors of the peer range (5.1.0, 4.22.1) alike: authentication (401 with RFC 6750 challenges, 503 on an outage,
 * `req.principal`) and `requirePermission` (401 / 403 / continue).
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { feastAuthzExpress, type FeastAuthzExpress } from '../../src/adapters/express.ts'
import { permission, roleBasedPolicy } from '../../src/permissions/index.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { stubManager } from '../helpers/stub-manager.ts'
import { captureLogs } from '../helpers/logs.ts'
import { listenOnLoopback, rawRequest } from '../helpers/listen.ts'
import { assertInstalled, EXPRESS_FLOORS, EXPRESS_RELEASES } from '../helpers/express-majors.ts'

let provider: TestProvider
let readerToken: string
let writerToken: string

before(async () => {
  // The provider is started here, not by the OIDC-app fixture: an Express app, which the fixture (Fastify) does not build.
  provider = await startOidcProvider()
  const roles = (list: string[]) => ({ resource_access: { [provider.clientId]: { roles: list } } })
  readerToken = await provider.issue({ preferred_username: 'rita', ...roles(['reader']) })
  writerToken = await provider.issue({ preferred_username: 'walt', ...roles(['writer']) })
})

after(async () => { await provider.close() })

for (const release of EXPRESS_RELEASES) {
  const { express } = release
  let authz: FeastAuthzExpress
  let server: Server
  let baseUrl: string
  const logs = captureLogs()

  describe(`the Express adapter on ${release.name}`, () => {
    before(async () => {
      authz = feastAuthzExpress({
        config: { project: 'p', auth: { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId } },
        logger: logs.logger,
        permissions: [permission({ name: 'readers', types: ['FeatureView'], actions: ['DESCRIBE'], policy: roleBasedPolicy(['reader']) })]
      })
      const app = express()
      app.get('/health', (_req, res) => { res.json({ ok: true }) })
      app.get('/open-but-checked', authz.requirePermission({ resources: { type: 'FeatureView', name: 'x' }, actions: 'DESCRIBE' }), (_req, res) => { res.json({ ok: true }) })
      app.use(authz.authenticate)
      app.get('/whoami', (req, res) => { res.json({ username: req.principal?.username, roles: req.principal?.roles }) })
      app.get('/views/:name', authz.requirePermission({
        resources: (req) => ({ type: 'FeatureView', name: String(req.params.name) }),
        actions: 'DESCRIBE'
      }), (req, res) => { res.json({ name: req.params.name }) })
      ;({ server, url: baseUrl } = await listenOnLoopback(app))
    })

    after(async () => {
      await new Promise((resolve) => server.close(resolve))
      await authz.close()
    })

    const call = async (path: string, token?: string) => await fetch(`${baseUrl}${path}`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } })

    test(`runs on ${release.name}`, () => { assertInstalled(release) })

    describe('authenticate', () => {
      test('a valid token sets req.principal from its claims', async () => {
        const response = await call('/whoami', readerToken)
        assert.equal(response.status, 200)
        assert.deepEqual(await response.json(), { username: 'rita', roles: ['reader'] })
      })

      test('a request without a token gets 401 with a bare Bearer challenge', async () => {
        const response = await call('/whoami')
        assert.equal(response.status, 401)
        assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="feast"')
        assert.equal((await response.json() as { code: string }).code, 'missing_token')
      })

      test('a token with a bad signature gets 401 naming invalid_token in the challenge', async () => {
        const [header, payload] = readerToken.split('.')
        const response = await call('/whoami', `${header}.${payload}.${Buffer.from('forged').toString('base64url')}`)
        assert.equal(response.status, 401)
        assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer realm="feast", error="invalid_token", error_description="/)
      })

      test('two Authorization headers are refused as the Fastify plugin refuses them, even when the first holds a cached valid token', async () => {
        assert.equal((await call('/whoami', readerToken)).status, 200)
        const reply = await rawRequest(baseUrl, { path: '/whoami', headers: ['Authorization', `Bearer ${readerToken}`, 'Authorization', `Bearer ${writerToken}`] })
        assert.equal(reply.status, 401)
        assert.equal((JSON.parse(reply.body) as { code: string }).code, 'malformed_header')
      })

      test('routes mounted before authenticate stay public', async () => {
        assert.equal((await call('/health')).status, 200)
      })

      test('an unreachable identity provider is 503 with Retry-After, never 401', async () => {
        const outage = feastAuthzExpress({ config: { project: 'p', auth: { type: 'oidc', auth_discovery_url: 'http://127.0.0.1:9/x', client_id: 'c' } }, manager: stubManager({}), logger: logs.logger })
        const app = express()
        app.use(outage.authenticate)
        app.get('/x', (_req, res) => { res.json({ ok: true }) })
        const { server: local, url } = await listenOnLoopback(app)
        try {
          const response = await fetch(`${url}/x`, { headers: { authorization: 'Bearer outage' } })
          assert.equal(response.status, 503)
          assert.equal(response.headers.get('retry-after'), '5')
          assert.equal(response.headers.get('www-authenticate'), null)
        } finally {
          await new Promise((resolve) => local.close(resolve))
        }
      })
    })

    describe('requirePermission', () => {
      test('a granted principal reaches the handler', async () => {
        const response = await call('/views/driver_stats', readerToken)
        assert.equal(response.status, 200)
        assert.deepEqual(await response.json(), { name: 'driver_stats' })
      })

      test('a denied principal gets 403 with the short message and an insufficient_scope challenge, and the explanation is logged at info', async () => {
        const response = await call('/views/driver_stats', writerToken)
        assert.equal(response.status, 403)
        assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="feast", error="insufficient_scope"')
        assert.deepEqual(await response.json(), { statusCode: 403, code: 'permission_denied', error: 'Forbidden', message: 'Permission denied: [DESCRIBE] on FeatureView:driver_stats' })
        const line = logs.lines.find((entry) => entry.msg === 'permission denied' && entry.username === 'walt')
        assert.equal(line?.level, 30)
        assert.match(String(line?.explanation), /requires roles \[reader\]/)
      })

      test('HEAD, which Express answers with the GET route, is checked as the GET is', async () => {
        const headers = { authorization: `Bearer ${writerToken}` }
        assert.equal((await fetch(`${baseUrl}/views/driver_stats`, { method: 'HEAD', headers })).status, 403)
        assert.equal((await fetch(`${baseUrl}/views/driver_stats`, { method: 'HEAD', headers: { authorization: `Bearer ${readerToken}` } })).status, 200)
      })

      test('without authenticate having run, the check answers 401 with a Bearer challenge', async () => {
        const response = await call('/open-but-checked', readerToken)
        assert.equal(response.status, 401)
        assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="feast"')
      })
    })
  })
}

describe('the floors the suites run are the peer range\'s', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    peerDependencies: Record<string, string>
    devDependencies: Record<string, string>
  }

  test('the express peer range admits each major from its floor up, and nothing below', () => {
    const floors = EXPRESS_FLOORS.map(({ version }) => `^${String(version)}`).sort()
    assert.deepEqual(manifest.peerDependencies.express?.split('||').map((range) => range.trim()).sort(), floors)
  })

  test('each floor is a devDependency pinned to its exact version', () => {
    for (const { specifier, version } of EXPRESS_FLOORS) assert.equal(manifest.devDependencies[specifier], `npm:express@${String(version)}`)
  })
})

describe('middleware options are checked when the middleware is created', () => {
  test('a NaN maxTokenLength is refused with the option named, before anything is opened', () => {
    assert.throws(() => feastAuthzExpress({ config: { project: 'p', auth: { type: 'no_auth' } }, maxTokenLength: Number.NaN }), {
      name: 'OptionError',
      option: 'maxTokenLength',
      message: 'feast-authz: maxTokenLength must be an integer of at least 1, got NaN'
    })
  })

  test('healthRoute, the Fastify plugin\'s option, is refused with what to do instead, where a JavaScript caller got no route and no word', () => {
    assert.throws(() => feastAuthzExpress({ config: { project: 'p', auth: { type: 'no_auth' } }, healthRoute: '/ready' } as never), {
      name: 'OptionError',
      option: 'healthRoute',
      message: /^feast-authz: healthRoute must be absent: it is an option of the Fastify plugin; in Express, mount a route of your own .*authz\.health\(\)\.ready/
    })
  })

  test('a negative OIDC cache size is refused with its full path', () => {
    assert.throws(() => feastAuthzExpress({ config: { project: 'p', auth: { type: 'no_auth' } }, oidc: { verifiedTokenCacheSize: -1 } }), {
      name: 'OptionError',
      option: 'oidc.verifiedTokenCacheSize'
    })
  })
})

describe('the middleware\'s project', () => {
  test('authz.project is the project feature_store.yaml names', async () => {
    const authz = feastAuthzExpress({ config: { project: 'driver_ranking', auth: { type: 'no_auth' } } })
    try {
      assert.equal(authz.project, 'driver_ranking')
    } finally {
      await authz.close()
    }
  })

  test('a project name Feast refuses is a ConfigError naming the field', () => {
    assert.throws(() => feastAuthzExpress({ config: { project: '_hidden', auth: { type: 'no_auth' } } }), {
      name: 'ConfigError',
      field: 'project',
      message: 'project: expected a project name as Feast takes it (letters, digits, _ and -, not starting with _ or -), got "_hidden"'
    })
  })
})
