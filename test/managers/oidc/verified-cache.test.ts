import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { loadAuthConfig, type OidcServerConfig } from '../../../src/config/auth-config.ts'
import { silentLogger } from '../../../src/base/logging.ts'
import { AuthError } from '../../../src/base/errors.ts'
import { CLOCK_TOLERANCE_SECONDS, createOidcManager } from '../../../src/managers/oidc/oidc-manager.ts'
import { createVerifiedCache } from '../../../src/managers/oidc/verified-cache.ts'
import { createPrincipal } from '../../../src/base/principal.ts'
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'
import { mockDate } from '../../helpers/mock-clock.ts'

let provider: TestProvider
// The provider is started here, not by the OIDC-app fixture: shared with the manager-level tests; each server test wants a fresh cache.
before(async () => { provider = await startOidcProvider() })
after(async () => { await provider.close() })

function serverConfig (extra: Record<string, unknown> = {}): OidcServerConfig {
  return loadAuthConfig({ auth: { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId, ...extra } }).auth as OidcServerConfig
}

async function rejection (attempt: () => Promise<unknown>): Promise<AuthError> {
  try {
    await attempt()
  } catch (error) {
    assert.ok(error instanceof AuthError, String(error))
    return error
  }
  assert.fail('expected the token to be rejected')
}

describe('the verified-token cache of the OIDC manager', () => {
  test('from its second use on, a token resolves to the very same principal without fetching keys again', async () => {
    const manager = createOidcManager(serverConfig(), { logger: silentLogger })
    try {
      const token = await provider.issue({ preferred_username: 'alice', roles: ['reader'] })
      await manager.authenticate(token)
      const second = await manager.authenticate(token)
      const jwksFetches = provider.stats.jwks
      const third = await manager.authenticate(token)
      assert.equal(third, second)
      assert.deepEqual(third.roles, ['reader'])
      assert.equal(provider.stats.jwks, jwksFetches)
      assert.equal(manager.authenticateCached?.(token), second)
    } finally {
      await manager.close()
    }
  })

  test('a token used once is not stored: the adapters\' cache lookup does not even hash it', async () => {
    const manager = createOidcManager(serverConfig(), { logger: silentLogger })
    try {
      const token = await provider.issue({ preferred_username: 'olga' })
      assert.equal(manager.authenticateCached?.(token), undefined)
      const first = await manager.authenticate(token)
      assert.equal(first.username, 'olga')
      // Seen once: looked up now, but nothing was stored for it.
      assert.equal(manager.authenticateCached?.(token), undefined)
    } finally {
      await manager.close()
    }
  })

  test('a cached token stops being accepted once its key is gone from a refetched key set', async (t) => {
    const manager = createOidcManager(serverConfig({ jwks_cache_lifespan_seconds: 1 }), { logger: silentLogger, failureBackoffSeconds: 0.01 })
    try {
      const token = await provider.issue({ preferred_username: 'bob' })
      // The lifespan runs on a clock of the test's own: a slow machine cannot end it early.
      const clock = mockDate(t)
      await manager.authenticate(token)
      assert.equal((await manager.authenticate(token)).username, 'bob')
      assert.ok(manager.authenticateCached?.(token) !== undefined, 'cached after its second use')
      await provider.rotateKeys({ keepOld: false })
      // Within the lifespan the old key (and so the cached verdict) still counts, as spec 5.2.9 says.
      assert.equal((await manager.authenticate(token)).username, 'bob')
      clock.tick(1100)
      const error = await rejection(async () => await manager.authenticate(token))
      assert.equal(error.code, 'unknown_key')
    } finally {
      await manager.close()
    }
  })

  test('a cached token is refused as token_expired once its exp and the clock tolerance have passed (spec 5.2.2)', async (t) => {
    const manager = createOidcManager(serverConfig(), { logger: silentLogger })
    try {
      const clock = mockDate(t)
      const token = await provider.sign({ preferred_username: 'erin', exp: Math.floor(Date.now() / 1000) + 30 })
      await manager.authenticate(token)
      assert.equal((await manager.authenticate(token)).username, 'erin')
      assert.ok(manager.authenticateCached?.(token) !== undefined, 'cached after its second use')
      clock.tick((30 + CLOCK_TOLERANCE_SECONDS + 1) * 1000)
      assert.equal(manager.authenticateCached?.(token), undefined)
      const error = await rejection(async () => await manager.authenticate(token))
      assert.equal(error.code, 'token_expired')
    } finally {
      await manager.close()
    }
  })

  test('a token with a tampered signature is rejected even right after the genuine one was cached', async () => {
    const manager = createOidcManager(serverConfig(), { logger: silentLogger })
    try {
      const token = await provider.issue({ preferred_username: 'carol' })
      await manager.authenticate(token)
      await manager.authenticate(token)
      const [header, payload, signature] = token.split('.') as [string, string, string]
      const flipped = `${header}.${payload}.${signature.slice(0, 5)}${signature[5] === 'A' ? 'B' : 'A'}${signature.slice(6)}`
      const error = await rejection(async () => await manager.authenticate(flipped))
      assert.equal(error.code, 'invalid_signature')
    } finally {
      await manager.close()
    }
  })

  test('with the cache disabled every token is still verified', async () => {
    const manager = createOidcManager(serverConfig(), { logger: silentLogger, verifiedTokenCacheSize: 0 })
    try {
      const token = await provider.issue({ preferred_username: 'dave' })
      const first = await manager.authenticate(token)
      const second = await manager.authenticate(token)
      assert.notEqual(second, first)
      assert.equal(second.username, 'dave')
    } finally {
      await manager.close()
    }
  })
})

describe('the LRU behind it', () => {
  const entry = (name: string): Parameters<ReturnType<typeof createVerifiedCache>['set']>[1] =>
    ({ principal: createPrincipal({ username: name, source: 'oidc' }), expiresAt: Date.now() + 60_000, key: {} as never })

  test('holds no more than its bound, dropping the least recently used entry', () => {
    const cache = createVerifiedCache(2)
    cache.set('a', entry('a'))
    cache.set('b', entry('b'))
    cache.get('a')
    cache.set('c', entry('c'))
    assert.equal(cache.size(), 2)
    assert.equal(cache.get('b'), undefined)
    assert.equal(cache.get('a')?.principal.username, 'a')
    assert.equal(cache.get('c')?.principal.username, 'c')
  })

  test('a token counts as seen once marked, and the filter forgets after a window of distinct tokens', () => {
    const cache = createVerifiedCache(1024)
    assert.equal(cache.seen('token-a'), false)
    cache.mark('token-a')
    assert.equal(cache.seen('token-a'), true)
    // Far more distinct tokens than the window: the filter is cleared, token-a is new again.
    for (let i = 0; i < 3000; i++) cache.mark(`other-${i}`)
    assert.equal(cache.seen('token-a'), false)
  })

  test('with size 0 no token is ever seen, so nothing is hashed or stored', () => {
    const cache = createVerifiedCache(0)
    cache.mark('t')
    assert.equal(cache.seen('t'), false)
  })

  test('keys entries by a hash of the whole token, so tokens sharing a prefix never share an entry', () => {
    const cache = createVerifiedCache(10)
    const prefix = 'eyJhbGciOiJSUzI1NiJ9.'.repeat(20)
    assert.notEqual(cache.keyOf(`${prefix}a`), cache.keyOf(`${prefix}b`))
    assert.equal(cache.keyOf('same'), cache.keyOf('same'))
    assert.doesNotMatch(cache.keyOf(`${prefix}a`), /eyJ/)
  })
})

describe('the cache-hit shortcut of the adapters', () => {
  test('a cached token sent twice in two Authorization headers is still refused', async () => {
    const { startApp, oidcAuth } = await import('../../helpers/authz-app.ts')
    const { rawRequest } = await import('../../helpers/listen.ts')
    const app = await startApp({ auth: oidcAuth(provider) })
    try {
      const token = await provider.issue({ preferred_username: 'alice' })
      assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
      assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
      const { status } = await rawRequest(app.url, { path: '/whoami', headers: ['Authorization', `Bearer ${token}`, 'Authorization', `Bearer ${token}`] })
      assert.equal(status, 401)
    } finally {
      await app.close()
    }
  })

  test('a cached token with another scheme spelling or extra spaces gets the same principal', async () => {
    const { startApp, oidcAuth } = await import('../../helpers/authz-app.ts')
    const app = await startApp({ auth: oidcAuth(provider) })
    try {
      const token = await provider.issue({ preferred_username: 'bea' })
      for (const header of [`Bearer ${token}`, `bearer ${token}`, `BEARER   ${token}`]) {
        const response = await app.call('/whoami', header)
        assert.equal(response.status, 200, header.slice(0, 12))
        assert.equal((response.body.principal as { username: string }).username, 'bea')
      }
    } finally {
      await app.close()
    }
  })

  test('a cached token followed by junk is not served from the cache', async () => {
    const { startApp, oidcAuth } = await import('../../helpers/authz-app.ts')
    const app = await startApp({ auth: oidcAuth(provider) })
    try {
      const token = await provider.issue({ preferred_username: 'cy' })
      assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
      assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
      assert.equal((await app.call('/whoami', `Bearer ${token} extra`)).status, 401)
      assert.equal((await app.call('/whoami', `Bearer ${token}x`)).status, 401)
    } finally {
      await app.close()
    }
  })
})
