import assert from 'node:assert/strict'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { describe, test } from 'node:test'
import { CHANNELS, tokenFingerprint, type AuthenticateEvent, type AuthorizeEvent, type JwksFetchEvent, type TokenReviewEvent } from '../../../src/base/observability/channels.ts'
import { permission, roleBasedPolicy } from '../../../src/permissions/index.ts'
import { oidcAuth, startApp, type TestApp } from '../../helpers/authz-app.ts'
import { serviceAccountIdentity, serviceAccountJwt, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { managerFor } from '../../helpers/kubernetes.ts'
import { useOidcApp } from '../../helpers/oidc-app.ts'

/** Collects what is published on one channel while `run` executes. */
async function collect<T> (name: string, run: () => Promise<void>): Promise<T[]> {
  const seen: T[] = []
  const listener = (message: unknown): void => { seen.push(message as T) }
  subscribe(name, listener)
  try {
    await run()
  } finally {
    unsubscribe(name, listener)
  }
  return seen
}

const permissions = [permission({ name: 'readers', types: ['FeatureView'], actions: ['DESCRIBE'], policy: roleBasedPolicy(['reader']) })]
// Route-config permissions apply to routes registered after the plugin, as startApp's are.
const app = useOidcApp({
  plugin: { permissions },
  fastify: {},
  routes: (fastify) => {
    fastify.get('/views/:name', {
      config: { feastAuthz: { permission: { resources: (request: { params: unknown }) => ({ type: 'FeatureView', name: (request.params as { name: string }).name }), actions: 'DESCRIBE' } } }
    }, async () => ({ ok: true }))
  }
})

describe('authentication events', () => {
  test('a success is published with the username, source, a fingerprint and the latency, never the token', async () => {
    const token = await app.provider.issue({ preferred_username: 'alice', roles: ['reader'] })
    const events = await collect<AuthenticateEvent>(CHANNELS.authenticate, async () => {
      assert.equal((await app.call('/whoami', `Bearer ${token}`)).status, 200)
    })
    assert.equal(events.length, 1)
    const [event] = events as [AuthenticateEvent]
    assert.equal(event.outcome, 'success')
    assert.equal(event.username, 'alice')
    assert.equal(event.source, 'oidc')
    assert.equal(event.fingerprint, tokenFingerprint(token))
    assert.ok(event.durationMs >= 0, 'a duration is measured')
    assert.equal(JSON.stringify(event).includes(token.split('.')[2]!), false)
  })

  test('a rejection is published with its stable code', async () => {
    const events = await collect<AuthenticateEvent>(CHANNELS.authenticate, async () => {
      assert.equal((await app.call('/whoami', 'Bearer not.a.jwt')).status, 401)
    })
    assert.deepEqual(events.map(({ outcome, code }) => ({ outcome, code })), [{ outcome: 'failure', code: 'malformed_token' }])
  })

  test('the log carries a structured event per outcome, success at debug and rejection at info, without the token', async () => {
    const token = await app.provider.issue({ preferred_username: 'logged' })
    const before = app.logs.raw.length
    await app.call('/whoami', `Bearer ${token}`)
    await app.call('/whoami', 'Bearer x.y.z')
    const lines = app.logs.raw.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.event === 'authentication')
    assert.deepEqual(lines.map((line) => [line.level, line.outcome]), [[20, 'success'], [30, 'failure']])
    assert.equal(lines[0]!.username, 'logged')
    assert.equal(lines[0]!.fingerprint, tokenFingerprint(token))
    assert.equal(app.logs.raw.slice(before).join('').includes(token.split('.')[1]!), false)
  })
})

describe('authorization events', () => {
  test('an allow names the permission that granted it', async () => {
    const token = await app.provider.issue({ preferred_username: 'reader', roles: ['reader'] })
    const events = await collect<AuthorizeEvent>(CHANNELS.authorize, async () => {
      assert.equal((await app.call('/views/driver_stats', `Bearer ${token}`)).status, 200)
    })
    assert.deepEqual(events.map(({ decision, username, resources, actions, permission }) => ({ decision, username, resources, actions, permission })), [
      { decision: 'allow', username: 'reader', resources: ['FeatureView:driver_stats'], actions: ['DESCRIBE'], permission: 'readers' }
    ])
  })

  test('a deny is published for a principal without the role', async () => {
    const token = await app.provider.issue({ preferred_username: 'nobody' })
    const events = await collect<AuthorizeEvent>(CHANNELS.authorize, async () => {
      assert.equal((await app.call('/views/driver_stats', `Bearer ${token}`)).status, 403)
    })
    assert.deepEqual(events.map(({ decision, username }) => ({ decision, username })), [{ decision: 'deny', username: 'nobody' }])
  })
})

describe('identity-source events', () => {
  test('a key-set fetch is published with its outcome and the number of keys', async () => {
    const token = await app.provider.issue({ preferred_username: 'alice' })
    let fresh: TestApp | undefined
    try {
      // Subscribed before the server starts: its warm-up fetch may finish before any request.
      const events = await collect<JwksFetchEvent>(CHANNELS.jwksFetch, async () => {
        fresh = await startApp({ auth: oidcAuth(app.provider) })
        assert.equal((await fresh.call('/whoami', `Bearer ${token}`)).status, 200)
      })
      assert.ok(events.length >= 1, 'at least one fetch was published')
      assert.equal(events[0]!.outcome, 'success')
      assert.equal(events[0]!.url, app.provider.jwksUri)
      assert.ok((events[0]!.keys ?? 0) >= 1, 'the keys are counted')
    } finally {
      await fresh?.close()
    }
  })

  test('a TokenReview is published with its outcome, and its cached repeats are not', async () => {
    const api: FakeKubeApi = await startFakeKubeApi({ namespace: 'feast' })
    try {
      const saToken = serviceAccountJwt('apps', 'alice')
      const unknownToken = serviceAccountJwt('apps', 'mallory')
      api.addToken(saToken, serviceAccountIdentity('apps', 'alice'))
      const manager = managerFor(api)
      try {
        const events = await collect<TokenReviewEvent>(CHANNELS.tokenReview, async () => {
          await manager.authenticate(saToken)
          await manager.authenticate(saToken)
          await Promise.resolve().then(() => manager.authenticate(unknownToken)).catch(() => {})
        })
        assert.deepEqual(events.map(({ outcome, username }) => ({ outcome, username })), [
          { outcome: 'authenticated', username: 'system:serviceaccount:apps:alice' },
          { outcome: 'rejected', username: undefined }
        ])
      } finally {
        await manager.close()
      }
    } finally {
      await api.close()
    }
  })
})

describe('the health route', () => {
  test('answers 503 before the keys are loaded and 200 once they are, without authentication', async () => {
    const health = await startApp({ auth: oidcAuth(app.provider), plugin: { healthRoute: '/ready' } })
    try {
      const token = await app.provider.issue({ preferred_username: 'alice' })
      await health.call('/whoami', `Bearer ${token}`)
      const ready = await health.call('/ready')
      assert.equal(ready.status, 200)
      assert.equal(ready.body.ready, true)
      assert.equal(ready.body.type, 'oidc')
      assert.deepEqual(ready.body, { ready: true, type: 'oidc' })
    } finally {
      await health.close()
    }
  })

  test('reports not ready while the provider is unreachable', async () => {
    const health = await startApp({ auth: { type: 'oidc', client_id: 'feast', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration' }, plugin: { healthRoute: '/ready' } })
    try {
      const response = await health.call('/ready')
      assert.equal(response.status, 503)
      assert.equal(response.body.ready, false)
    } finally {
      await health.close()
    }
  })
})

describe('log volume during an outage', () => {
  test('a provider outage writes a few error lines, not several per request', async () => {
    const down = await startApp({ auth: { type: 'oidc', client_id: 'feast', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration' } })
    try {
      const token = await app.provider.issue({ preferred_username: 'alice' })
      const before = down.logs.raw.length
      for (let i = 0; i < 20; i++) assert.equal((await down.call('/whoami', `Bearer ${token}`)).status, 503)
      const errors = down.logs.raw.slice(before).map((line) => JSON.parse(line) as { level: number }).filter((line) => line.level >= 50)
      assert.ok(errors.length >= 1, 'the outage is logged')
      assert.ok(errors.length <= 3, `${errors.length} error lines for 20 requests`)
    } finally {
      await down.close()
    }
  })
})
