import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import Fastify from 'fastify'
import feastAuthz from '../../src/adapters/fastify.ts'
import { startApp } from '../helpers/authz-app.ts'
import { useOidcApp } from '../helpers/oidc-app.ts'

describe('the Fastify plugin with OIDC', () => {
  const app = useOidcApp({ provider: { alg: 'ES256' } })

  test('sets request.principal on an authenticated route', async () => {
    const token = await app.provider.issue({ preferred_username: 'alice', groups: ['eng'] })
    const response = await app.call('/whoami', `Bearer ${token}`)
    assert.equal(response.status, 200)
    assert.deepEqual(response.body.principal, { username: 'alice', roles: [], groups: ['eng'], namespaces: [], source: 'oidc' })
  })

  test('a route marked config.feastAuthz.public answers without a token, with request.principal null', async () => {
    const response = await app.call('/health')
    assert.equal(response.status, 200)
    assert.deepEqual(response.body, { ok: true, principal: null })
  })

  test('a public route ignores even a malformed Authorization header', async () => {
    const response = await app.call('/health', 'Bearer not a token')
    assert.equal(response.status, 200)
  })

  test('an anonymous request is rejected before its body is parsed', async () => {
    const response = await app.call('/echo', undefined, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' })
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'missing_token')
  })

  test('an authenticated request reaches the body parser and the handler', async () => {
    const token = await app.provider.issue({ preferred_username: 'alice' })
    const response = await app.call('/echo', `Bearer ${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' })
    assert.equal(response.status, 200)
    assert.deepEqual(response.body, { body: { a: 1 } })
  })

  test('a request to an unknown route without a token is a 401, not a 404 that reveals the route table', async () => {
    const response = await app.call('/no-such-route')
    assert.equal(response.status, 401)
  })

  test('the 401 body has statusCode, code, error and message', async () => {
    const response = await app.call('/whoami', 'Bearer abc')
    assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error', 'message', 'statusCode'])
    assert.equal(response.body.statusCode, 401)
    assert.equal(response.body.error, 'Unauthorized')
  })

  test('fastify.feastAuthz exposes the config in force and the health of the key set', async () => {
    assert.equal(app.app.feastAuthz.config.type, 'oidc')
    await app.call('/whoami', `Bearer ${await app.provider.issue({ preferred_username: 'alice' })}`)
    const health = app.app.feastAuthz.health()
    assert.equal(health.ready, true)
    assert.equal(health.detail.discovery, true)
  })
})

describe('tokens never reach the logs', () => {
  const app = useOidcApp({ provider: { alg: 'ES256' } })

  test('neither accepted, rejected nor unverifiable tokens appear in any log line, at debug level', async () => {
    const valid = await app.provider.issue({ preferred_username: 'alice' })
    const expired = await app.provider.sign({ preferred_username: 'alice', exp: Math.floor(Date.now() / 1000) - 3600 })
    const badSignature = `${valid.slice(0, valid.lastIndexOf('.'))}.${'A'.repeat(342)}`
    const unknownKid = await app.provider.sign({ preferred_username: 'alice' }, { kid: 'nope' })
    const tokens = [valid, expired, badSignature, unknownKid, 'opaque-token-value-1234567890']
    for (const token of tokens) await app.call('/whoami', `Bearer ${token}`)
    await app.call('/whoami', `Bearer ${valid} ${valid}`)
    app.provider.fault('jwks', 'status500')
    try {
      await app.provider.rotateKeys({ keepOld: true })
      const unverifiable = await app.provider.issue({ preferred_username: 'alice' })
      tokens.push(unverifiable)
      await new Promise((resolve) => setTimeout(resolve, 60))
      const response = await app.call('/whoami', `Bearer ${unverifiable}`)
      assert.equal(response.status, 503)
    } finally {
      app.provider.fault('jwks', null)
    }
    const logs = app.logs.raw.join('\n')
    assert.ok(logs.includes('authentication rejected'), 'rejections are logged (so the check below looks at real lines)')
    assert.ok(logs.includes('authentication could not be completed'))
    for (const token of tokens) {
      for (const part of token.split('.')) {
        if (part.length > 16) assert.ok(!logs.includes(part), `a token segment appears in the logs: ${part.slice(0, 12)}...`)
      }
    }
  })
})

describe('the Fastify plugin with no_auth', () => {
  test('leaves every route open with the anonymous principal and logs one startup warning', async () => {
    const app = await startApp({ auth: { type: 'no_auth' } })
    try {
      const response = await app.call('/whoami')
      assert.equal(response.status, 200)
      assert.deepEqual(response.body.principal, { username: 'anonymous', roles: [], groups: [], namespaces: [], source: 'no_auth' })
      assert.equal(app.logs.raw.filter((line) => line.includes('UNAUTHENTICATED')).length, 1)
    } finally {
      await app.close()
    }
  })

  test('a feature_store.yaml without an auth section means no_auth', async () => {
    const fastify = Fastify()
    try {
      await fastify.register(feastAuthz, { config: { project: 'p' } })
      fastify.get('/x', async (request) => ({ username: request.principal?.username }))
      const response = await fastify.inject({ url: '/x' })
      assert.equal(response.statusCode, 200)
      assert.deepEqual(response.json(), { username: 'anonymous' })
    } finally {
      await fastify.close()
    }
  })
})

describe('registering the plugin', () => {
  test('protects routes declared before the plugin was registered, and routes of child plugins', async () => {
    const fastify = Fastify()
    try {
      fastify.get('/before', async () => 'open')
      await fastify.register(feastAuthz, { config: { auth: { type: 'oidc', client_id: 'x', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration' } } })
      await fastify.register(async (child) => { child.get('/child', async () => 'open') })
      assert.equal((await fastify.inject({ url: '/before' })).statusCode, 401)
      assert.equal((await fastify.inject({ url: '/child' })).statusCode, 401)
    } finally {
      await fastify.close()
    }
  })

  test('fastify.feastAuthz.project is the project feature_store.yaml names', async () => {
    const fastify = Fastify()
    try {
      await fastify.register(feastAuthz, { config: { project: 'driver_ranking', auth: { type: 'no_auth' } } })
      assert.equal(fastify.feastAuthz.project, 'driver_ranking')
    } finally {
      await fastify.close()
    }
  })

  test('a project name Feast refuses fails registration naming the field', async () => {
    const fastify = Fastify()
    try {
      await assert.rejects(
        async () => { await fastify.register(feastAuthz, { config: { project: 'driver.ranking', auth: { type: 'no_auth' } } }) },
        { name: 'ConfigError', message: /^project: expected a project name as Feast takes it .*, got "driver\.ranking"$/ }
      )
    } finally {
      await fastify.close()
    }
  })

  test('an invalid auth section fails registration with a config error naming the field', async () => {
    const fastify = Fastify()
    try {
      await assert.rejects(
        async () => { await fastify.register(feastAuthz, { config: { auth: { type: 'oidc', client_id: 'x', auth_discovery_url: 'not a url' } } }) },
        /auth\.auth_discovery_url/
      )
    } finally {
      await fastify.close()
    }
  })

  test('the server starts even when the provider is unreachable at startup', async () => {
    const app = await startApp({ auth: { type: 'oidc', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration', client_id: 'x' } })
    try {
      assert.match(app.url, /^http:\/\/127\.0\.0\.1:\d+$/)
      assert.equal((await app.call('/health')).status, 200)
    } finally {
      await app.close()
    }
  })
})

describe('a failing logger', () => {
  test('cannot hang or decide a request: authentication still answers', async () => {
    const { default: Fastify } = await import('fastify')
    const { feastAuthz: plugin } = await import('../../src/adapters/fastify.ts')
    // Armed after startup: a logger failing at registration fails registration, which is fine.
    let armed = false
    const fail = (): void => { if (armed) throw new Error('log down') }
    const broken = { debug: fail, info: fail, warn: fail, error: fail }
    const app = Fastify()
    await app.register(plugin, { config: { auth: { type: 'oidc', client_id: 'feast', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration' } }, logger: broken })
    app.get('/x', async () => ({ ok: true }))
    await app.ready()
    armed = true
    try {
      const response = await app.inject({ url: '/x', headers: { authorization: 'Bearer not-a-jwt' } })
      assert.equal(response.statusCode, 401)
    } finally {
      await app.close()
    }
  })
})

describe('plugin options are checked at registration', () => {
  const config = { auth: { type: 'oidc', client_id: 'feast', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration' } }
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a zero maxTokenLength', { maxTokenLength: 0 }, /maxTokenLength must be an integer of at least 1, got 0/],
    ['a NaN cache size, which would never evict', { oidc: { verifiedTokenCacheSize: Number.NaN } }, /oidc\.verifiedTokenCacheSize must be an integer from 0 to 10000000, got NaN/],
    ['an infinite cache size', { oidc: { verifiedTokenCacheSize: Number.POSITIVE_INFINITY } }, /oidc\.verifiedTokenCacheSize must be/],
    ['a negative unknown-kid cooldown, which would lift the rate limit', { oidc: { unknownKidCooldownSeconds: -1 } }, /oidc\.unknownKidCooldownSeconds must be a number of seconds from 0 to 86400, got -1/],
    ['a permissions option of the wrong kind', { permissions: 42 }, /permissions must be a list of permissions/],
    ['a fractional maxTokenLength', { maxTokenLength: 8.5 }, /maxTokenLength must be an integer of at least 1, got 8\.5/],
    ['a realm that is not a string', { realm: 42 }, /realm must be a string, got 42/],
    ['a logger without the methods feast-authz calls', { logger: console.log }, /logger must be an object with the methods debug, info, warn, error, got a function/],
    ['a manager that is not one', { manager: {} }, /manager must be an object with the methods authenticate, warmUp, health, close, got a mapping/],
    ['a healthRoute that is not a path', { healthRoute: 'health' }, /healthRoute must be a path starting with \/, without : \* \? or # \(a path as written, not a route pattern or a query\), got "health"/],
    ['a healthRoute that is a route pattern, which would answer every other path', { healthRoute: '/:any' }, /healthRoute must be a path starting with \/, without : \* \? or # .*, got "\/:any"/],
    ['a misspelt option', { maxTokenLenght: 4096 }, /maxTokenLenght is not an option \(did you mean maxTokenLength\?\)/]
  ]
  for (const [label, options, message] of cases) {
    test(`${label} fails registration with a clear error`, async () => {
      const { default: Fastify } = await import('fastify')
      const { feastAuthz: plugin } = await import('../../src/adapters/fastify.ts')
      const app = Fastify()
      await assert.rejects(async () => { await app.register(plugin, { config, ...options } as never) }, message)
      await app.close().catch(() => {})
    })
  }
})
