/**
 * TokenReview answers a correct API server never gives, from the fake API server's opt-in lies
 * (a broken server, a buggy proxy or aggregated API in the middle): each is refused, never an
 * allow and never a 500; an answer that cannot be used is a 503 (the token is not at fault), an
 * answer that says "not this token" a 401. Requests go through a real Fastify server.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, describe, test } from 'node:test'
import type { AuthManager } from '../../../src/managers/types.ts'
import { assertUnavailable, startApp, type TestApp, type TestResponse } from '../../helpers/authz-app.ts'
import { API_SERVER_AUDIENCE, feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeIdentity, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { KUBERNETES_CONFIG, managerFor } from '../../helpers/kubernetes.ts'
import { captureLogs, type CapturedLogs } from '../../helpers/logs.ts'
import { eventually } from '../../helpers/eventually.ts'

const REQUEST_TIMEOUT_MS = 1500
/** Slack for a loaded 2-core machine. */
const MARGIN_MS = 3000

type Answer = Record<string, any>
/** Tokens valid for the API server (the plain server asks for no audience) and for `feast`. */
const AUDIENCES = ['feast', API_SERVER_AUDIENCE]

function assertClusterUnavailable (response: TestResponse): void {
  assertUnavailable(response, 'cluster_unavailable')
  assert.equal(response.body.message, 'the Kubernetes API server gave no usable answer')
}

function assertRefused (response: TestResponse, code: string): void {
  assert.equal(response.status, 401, `expected 401, got ${response.status} ${JSON.stringify(response.body)}`)
  assert.equal(response.body.code, code)
}

describe('TokenReview answers a correct API server never gives', () => {
  let api: FakeKubeApi
  let manager: AuthManager
  let audienceManager: AuthManager
  let app: TestApp
  let audienceApp: TestApp
  let logs: CapturedLogs
  const sent: string[] = []
  let tokens = 0
  /** A token the service has never seen (so it needs a review), registered for `identity`. */
  const freshToken = (identity: FakeIdentity = serviceAccountIdentity('apps', 'alice', AUDIENCES)): string => {
    const token = jwsToken(`review-${++tokens}`)
    api.addToken(token, identity)
    sent.push(token)
    return token
  }
  const whoami = async (token: string, server: TestApp = app): Promise<TestResponse> => await server.call('/whoami', `Bearer ${token}`)
  const lie = (rewrite: (answer: Answer) => unknown): void => { api.setFault('tokenreviews', { rewrite }) }

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.putRole(feastRole('feast', 'reader'))
    api.putRole(feastRole('feast', 'admin'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    api.putRoleBinding(roleBinding('feast', 'ops-admin', 'admin', [{ kind: 'Group', name: 'system:serviceaccounts:ops' }]))
    api.putRoleBinding(roleBinding('feast', 'anonymous-reader', 'reader', [{ kind: 'Group', name: 'system:unauthenticated' }]))
    logs = captureLogs()
    const tuning = { requestTimeoutMs: REQUEST_TIMEOUT_MS, failureCacheMs: 0 }
    manager = managerFor(api, { logger: logs.logger, tuning })
    audienceManager = managerFor(api, { logger: logs.logger, tuning, config: { ...KUBERNETES_CONFIG, audiences: ['feast'] } })
    app = await startApp({ auth: { type: 'kubernetes' }, plugin: { manager } })
    audienceApp = await startApp({ auth: { type: 'kubernetes' }, plugin: { manager: audienceManager } })
    await eventually(() => manager.health().ready && audienceManager.health().ready, 'the informers to sync')
    assert.equal((await whoami(freshToken())).status, 200, 'a correct answer is accepted')
  })
  afterEach(() => { api.setFault('tokenreviews', undefined) })
  after(async () => {
    await app?.close()
    await audienceApp?.close()
    await api?.close()
  })

  describe('who the review names', () => {
    test('authenticated with no user at all is a 401 missing_username', async () => {
      lie((answer) => ({ ...answer, status: { authenticated: true } }))
      assertRefused(await whoami(freshToken()), 'missing_username')
    })

    test('authenticated with a user without username is a 401 missing_username', async () => {
      lie((answer) => ({ ...answer, status: { ...answer.status, user: { groups: ['system:authenticated'] } } }))
      assertRefused(await whoami(freshToken()), 'missing_username')
    })

    test('an empty username is a 401 missing_username', async () => {
      lie((answer) => ({ ...answer, status: { ...answer.status, user: { ...answer.status.user, username: '' } } }))
      assertRefused(await whoami(freshToken()), 'missing_username')
    })

    test('a username that is a number is a 503, not a 500', async () => {
      lie((answer) => ({ ...answer, status: { ...answer.status, user: { ...answer.status.user, username: 42 } } }))
      assertClusterUnavailable(await whoami(freshToken()))
    })

    test('a username that is a list is a 503', async () => {
      lie((answer) => ({ ...answer, status: { ...answer.status, user: { ...answer.status.user, username: ['system:serviceaccount:apps:alice'] } } }))
      assertClusterUnavailable(await whoami(freshToken()))
    })

    test('groups given as one string are a 503, never read letter by letter', async () => {
      lie((answer) => ({ ...answer, status: { ...answer.status, user: { ...answer.status.user, groups: 'system:serviceaccounts:ops' } } }))
      assertClusterUnavailable(await whoami(freshToken()))
    })

    test('a service account whose groups name another service-account namespace is a 503, never that namespace\'s roles', async () => {
      // kube-apiserver gives a service account exactly the groups of its own namespace (serviceaccount.MakeGroupNames).
      lie((answer) => ({ ...answer, status: { ...answer.status, user: { ...answer.status.user, groups: ['system:serviceaccounts', 'system:serviceaccounts:ops', 'system:authenticated'] } } }))
      assertClusterUnavailable(await whoami(freshToken()))
    })

    test('the anonymous user is a 401, never the roles bound to system:unauthenticated', async () => {
      lie((answer) => ({ ...answer, status: { ...answer.status, user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } } }))
      assertRefused(await whoami(freshToken()), 'token_review_rejected')
    })

    test('a username with extra colons is no service account: no namespace, no service-account binding', async () => {
      const response = await whoami(freshToken({ username: 'system:serviceaccount:apps:alice:extra', groups: ['system:authenticated'], audiences: AUDIENCES }))
      assert.equal(response.status, 200)
      assert.deepEqual((response.body.principal as { namespaces: string[] }).namespaces, [])
      assert.deepEqual((response.body.principal as { roles: string[] }).roles, [])
    })

    test('a service-account username with an empty namespace gives no namespace and not the bindings of the service namespace', async () => {
      const response = await whoami(freshToken({ username: 'system:serviceaccount::alice', groups: ['system:authenticated'], audiences: AUDIENCES }))
      assert.equal(response.status, 200)
      assert.deepEqual((response.body.principal as { namespaces: string[] }).namespaces, [])
      assert.deepEqual((response.body.principal as { roles: string[] }).roles, [])
    })
  })

  describe('the verdict', () => {
    test('authenticated as the string "true" is a 503', async () => {
      lie((answer) => ({ ...answer, status: { ...answer.status, authenticated: 'true' } }))
      assertClusterUnavailable(await whoami(freshToken()))
    })

    test('authenticated together with an error is a 503: a real server sets an error only when no authenticator said yes', async () => {
      lie((answer) => ({ ...answer, status: { ...answer.status, error: 'token has been invalidated' } }))
      assertClusterUnavailable(await whoami(freshToken()))
    })

    test('a 2xx whose body is a Status is a 503, not a 401', async () => {
      lie(() => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }))
      assertClusterUnavailable(await whoami(freshToken()))
    })

    test('a 2xx with no status at all is a 503', async () => {
      lie(({ status: _status, ...answer }) => answer)
      assertClusterUnavailable(await whoami(freshToken()))
    })

    test('a review of another token (a mixed-up answer) is a 503, never that token\'s identity', async () => {
      const other = freshToken(serviceAccountIdentity('ops', 'root', AUDIENCES))
      lie((answer) => ({ ...answer, spec: { ...answer.spec, token: other }, status: { ...answer.status, user: { username: 'system:serviceaccount:ops:root', groups: ['system:serviceaccounts', 'system:serviceaccounts:ops'] } } }))
      assertClusterUnavailable(await whoami(freshToken()))
    })

    test('a rejection whose reason quotes the token, or another, is logged without them', async () => {
      const token = freshToken()
      const credential = jwsToken('a credential the server was handed')
      sent.push(credential)
      lie((answer) => ({ ...answer, status: { user: {}, error: `invalid bearer token ${token} (caller ${credential})` } }))
      assertRefused(await whoami(token), 'token_review_rejected')
      const reason = logs.lines.find((line) => line.msg === 'TokenReview did not authenticate the token' && typeof line.reason === 'string' && line.reason.startsWith('invalid bearer token'))
      assert.equal(reason?.reason, 'invalid bearer token [the token] (caller [a JWT])')
    })

    test('invalid JSON is a 503', async () => {
      lie(() => '{"kind":"TokenReview","status":{"authenticated":tru')
      assertClusterUnavailable(await whoami(freshToken()))
    })
  })

  describe('audiences', () => {
    test('status.audiences without the audience asked for is a 401, whatever else the review says', async () => {
      lie((answer) => ({ ...answer, status: { ...answer.status, audiences: ['https://kubernetes.default.svc'] } }))
      assertRefused(await whoami(freshToken(), audienceApp), 'token_review_rejected')
    })

    test('status.audiences naming one not asked for is a 503: a real server answers only from the intersection', async () => {
      lie((answer) => ({ ...answer, status: { ...answer.status, audiences: ['feast', 'https://kubernetes.default.svc'] } }))
      assertClusterUnavailable(await whoami(freshToken(), audienceApp))
    })

    test('status.audiences as a string is a 503, never read letter by letter', async () => {
      lie((answer) => ({ ...answer, status: { ...answer.status, audiences: 'feast' } }))
      assertClusterUnavailable(await whoami(freshToken(), audienceApp))
    })
  })

  describe('size and time', () => {
    test('10,000 groups and a large extra are read: big, but a review', async () => {
      const groups = Array.from({ length: 10_000 }, (_, i) => `team-${i}`)
      lie((answer) => ({ ...answer, status: { ...answer.status, user: { ...answer.status.user, groups: [...answer.status.user.groups, ...groups], extra: { note: ['x'.repeat(100_000)] } } } }))
      const response = await whoami(freshToken())
      assert.equal(response.status, 200)
      assert.equal((response.body.principal as { groups: string[] }).groups.length, 10_003)
    })

    test('an answer of 256 MiB is cut off early: 503, and the client stops reading', async () => {
      api.resetCalls()
      api.setFault('tokenreviews', { padding: 256 * 1024 * 1024 })
      assertClusterUnavailable(await whoami(freshToken()))
      assert.ok(api.calls.paddingBytesSent < 32 * 1024 * 1024, `the client read ${api.calls.paddingBytesSent} bytes of padding`)
    })

    test('a body that drips for ever is a 503 within the request timeout', async () => {
      api.setFault('tokenreviews', { dripMs: 20 })
      const started = Date.now()
      const response = await whoami(freshToken())
      assert.equal(response.status, 503)
      assert.ok(Date.now() - started < REQUEST_TIMEOUT_MS + MARGIN_MS, `the request took ${Date.now() - started} ms`)
    })
  })

  test('a redirect is not followed: 503, and the token goes nowhere else', async () => {
    const elsewhere = await startFakeKubeApi({ namespace: 'feast' })
    try {
      api.setFault('tokenreviews', { redirect: `${elsewhere.url}/apis/authentication.k8s.io/v1/tokenreviews` })
      const response = await whoami(freshToken())
      assert.equal(response.status, 503)
      assert.equal(response.body.code, 'cluster_unavailable')
      assert.equal(elsewhere.calls.tokenReviews + elsewhere.calls.unauthorized, 0, 'the redirect target received the review (and the service\'s credential)')
    } finally {
      await elsewhere.close()
    }
  })

  test('no token sent in these tests appears in any log line', () => {
    const written = [...logs.raw, ...app.logs.raw, ...audienceApp.logs.raw].join('\n')
    for (const token of sent) assert.ok(!written.includes(token), 'a token was logged')
  })
})
