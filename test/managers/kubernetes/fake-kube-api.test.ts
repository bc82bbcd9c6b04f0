import assert from 'node:assert/strict'
import https from 'node:https'
import { after, afterEach, before, describe, test } from 'node:test'
import { request } from '../../helpers/fake-kube-request.ts'
import { eventually } from '../../helpers/eventually.ts'
import { API_SERVER_AUDIENCE, clusterRoleBinding, FakeInvalidError, feastRole, roleBinding, serviceAccountIdentity, serviceAccountJwt, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'

/** The first `count` lines of a watch stream, then the stream is closed. */
async function watchLines (api: FakeKubeApi, path: string, count: number, waitMs = 300): Promise<any[]> {
  return await new Promise((resolve, reject) => {
    const lines: any[] = []
    const req = https.get(`${api.url}${path}`, { ca: api.caPem, headers: { authorization: `Bearer ${api.serviceToken}` } }, (res) => {
      let buffer = ''
      const finish = (): void => { clearTimeout(timer); req.destroy(); resolve(lines) }
      const timer = setTimeout(finish, waitMs)
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        buffer += chunk
        let newline
        while ((newline = buffer.indexOf('\n')) >= 0) {
          lines.push(JSON.parse(buffer.slice(0, newline)))
          buffer = buffer.slice(newline + 1)
          if (lines.length >= count) finish()
        }
      })
      res.on('end', finish)
    })
    req.on('error', (error) => { if (lines.length < count) reject(error) })
  })
}

/** The text of a watch stream until its first newline, then the stream is closed. */
async function watchRawText (api: FakeKubeApi, path: string): Promise<string> {
  return await new Promise((resolve, reject) => {
    const req = https.get(`${api.url}${path}`, { ca: api.caPem, headers: { authorization: `Bearer ${api.serviceToken}` } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
        if (text.includes('\n')) { req.destroy(); resolve(text) }
      })
    })
    req.on('error', (error) => { reject(error) })
  })
}

const review = (token: string, audiences?: string[]): Record<string, unknown> => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(audiences === undefined ? {} : { audiences }) } })
const BINDINGS = '/apis/rbac.authorization.k8s.io/v1/namespaces/feast/rolebindings'
const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews'

describe('the fake Kubernetes API server is as strict as a real one', () => {
  let api: FakeKubeApi
  before(async () => { api = await startFakeKubeApi({ namespace: 'feast' }) })
  after(async () => { await api?.close() })

  describe('callers are authenticated and authorized', () => {
    test('a request without credentials is system:anonymous: 403 on resources and discovery, /version is public', async () => {
      const list = await request(api, BINDINGS, undefined, { authorization: null })
      assert.equal(list.status, 403)
      assert.equal(list.body.reason, 'Forbidden')
      assert.match(list.body.message, /User "system:anonymous" cannot list resource "rolebindings" in API group "rbac\.authorization\.k8s\.io" in the namespace "feast"/)
      assert.deepEqual(list.body.details, { group: 'rbac.authorization.k8s.io', kind: 'rolebindings' })
      assert.equal((await request(api, '/apis', undefined, { authorization: null })).status, 403)
      assert.equal((await request(api, '/version', undefined, { authorization: null })).status, 200)
      assert.equal((await request(api, BINDINGS, undefined, { authorization: 'Basic dXNlcjpwYXNz' })).status, 403, 'another scheme is no credential at all')
    })

    test('a bearer token no authenticator knows is a 401 Unauthorized Status', async () => {
      const { status, body } = await request(api, BINDINGS, undefined, { authorization: 'Bearer nobody-knows-this' })
      assert.equal(status, 401)
      assert.deepEqual(body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 })
    })

    test('an application\'s own token authenticates as its identity, which holds no permission', async () => {
      const token = serviceAccountJwt('apps', 'caller')
      api.addToken(token, serviceAccountIdentity('apps', 'caller'))
      const { status, body } = await request(api, '/apis/authentication.k8s.io/v1/tokenreviews', review(token), { authorization: `Bearer ${token}` })
      assert.equal(status, 403)
      assert.match(body.message, /^tokenreviews\.authentication\.k8s\.io is forbidden: User "system:serviceaccount:apps:caller" cannot create resource "tokenreviews" in API group "authentication\.k8s\.io" at the cluster scope$/)
      assert.equal((await request(api, '/apis', undefined, { authorization: `Bearer ${token}` })).status, 200, 'discovery is open to every authenticated user')
    })

    test('the service account reads RoleBindings only in its own namespace', async () => {
      assert.equal((await request(api, BINDINGS)).status, 200)
      const other = await request(api, '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings')
      assert.equal(other.status, 403)
      assert.match(other.body.message, new RegExp(`User "${api.serviceAccountUsername}" cannot list resource "rolebindings" .* in the namespace "kube-system"`))
      assert.equal((await request(api, '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings', undefined, { authorization: `Bearer ${api.adminToken}` })).status, 200, 'a cluster admin may')
    })

    test('a revoked permission is a 403 naming the verb; granting it back restores it', async () => {
      api.revoke('watch', 'rolebindings')
      try {
        const refused = await request(api, `${BINDINGS}?watch=1`)
        assert.equal(refused.status, 403)
        assert.match(refused.body.message, /cannot watch resource "rolebindings"/)
        assert.equal((await request(api, BINDINGS)).status, 200, 'list is another permission')
      } finally {
        api.grant('watch', 'rolebindings', 'feast')
      }
      assert.equal((await request(api, `${BINDINGS}?watch=1&timeoutSeconds=1`)).status, 200)
    })

    test('an injected 403 on a watch says "watch", not "list"', async () => {
      api.setFault('rolebindings', { status: 403 })
      try {
        const { status, body } = await request(api, `${BINDINGS}?watch=true`)
        assert.equal(status, 403)
        assert.match(body.message, /cannot watch resource "rolebindings"/)
      } finally {
        api.setFault('rolebindings', undefined)
      }
    })
  })

  describe('TokenReview', () => {
    test('a service-account token past its exp is not authenticated', async () => {
      const token = serviceAccountJwt('apps', 'late', { exp: Math.floor(Date.now() / 1000) - 10 })
      api.addToken(token, serviceAccountIdentity('apps', 'late'))
      const { body } = await request(api, '/apis/authentication.k8s.io/v1/tokenreviews', review(token))
      assert.equal(body.status.authenticated, undefined)
      assert.match(body.status.error, /expired/)
    })

    test('a token before its nbf is not authenticated', async () => {
      const token = serviceAccountJwt('apps', 'early', { nbf: Math.floor(Date.now() / 1000) + 600 })
      api.addToken(token, serviceAccountIdentity('apps', 'early'))
      const { body } = await request(api, '/apis/authentication.k8s.io/v1/tokenreviews', review(token))
      assert.equal(body.status.authenticated, undefined)
    })

    test('a token bound to one audience is refused for another and confirmed for its own', async () => {
      const token = serviceAccountJwt('apps', 'bound', { aud: ['feast-a'] })
      api.addToken(token, serviceAccountIdentity('apps', 'bound'))
      const other = await request(api, '/apis/authentication.k8s.io/v1/tokenreviews', review(token, ['feast-b']))
      assert.equal(other.body.status.authenticated, undefined)
      assert.match(other.body.status.error, /audiences/)
      const implicit = await request(api, '/apis/authentication.k8s.io/v1/tokenreviews', review(token))
      assert.equal(implicit.body.status.authenticated, undefined, 'no audience in the review means the API server\'s own')
      const own = await request(api, '/apis/authentication.k8s.io/v1/tokenreviews', review(token, ['feast-b', 'feast-a']))
      assert.deepEqual(own.body.status.audiences, ['feast-a'])
    })

    test('a service-account review reports the pod and credential id in status.user.extra', async () => {
      const token = serviceAccountJwt('apps', 'podded')
      const identity = serviceAccountIdentity('apps', 'podded')
      api.addToken(token, identity)
      const { status, body } = await request(api, '/apis/authentication.k8s.io/v1/tokenreviews', review(token))
      assert.equal(status, 201)
      assert.equal(body.status.authenticated, true)
      assert.deepEqual(body.status.audiences, [API_SERVER_AUDIENCE])
      assert.deepEqual(body.status.user.extra['authentication.kubernetes.io/pod-name'], [identity.pod!.name])
      assert.match(body.status.user.extra['authentication.kubernetes.io/credential-id'][0], /^JTI=/)
    })

    test('a review without a token, or with an empty one, is a 400 BadRequest', async () => {
      for (const body of [{ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {} }, review('')]) {
        const { status, body: answer } = await request(api, TOKEN_REVIEWS, body)
        assert.equal(status, 400)
        assert.equal(answer.reason, 'BadRequest')
        assert.equal(answer.message, 'token is required for TokenReview in authentication')
      }
    })

    test('a body without apiVersion and kind is taken as a v1 TokenReview, as the decoder defaults them', async () => {
      api.addToken('defaulted-token', { username: 'dee' })
      const { status, body } = await request(api, TOKEN_REVIEWS, { spec: { token: 'defaulted-token' } })
      assert.equal(status, 201)
      assert.equal(body.status.authenticated, true)
    })

    test('another kind, another version or a mistyped field is a 400 BadRequest', async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ apiVersion: 'authentication.k8s.io/v1', kind: 'SubjectAccessReview', spec: { token: 't' } }, /no kind "SubjectAccessReview" is registered/],
        [{ apiVersion: 'authentication.k8s.io/v1beta1', kind: 'TokenReview', spec: { token: 't' } }, /the API version in the data \(authentication\.k8s\.io\/v1beta1\) does not match the expected API version \(authentication\.k8s\.io\/v1\)/],
        [{ apiVersion: 'v1', kind: 'TokenReview', spec: { token: 't' } }, /no kind "TokenReview" is registered for version "v1"/],
        [{ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 42 } }, /cannot unmarshal number into Go struct field TokenReviewSpec\.spec\.token of type string/],
        [{ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 't', audiences: 'feast' } }, /spec\.audiences of type \[\]string/],
        [[1, 2], /the object provided is unrecognized \(must be of type TokenReview\)/]
      ]
      for (const [body, message] of cases) {
        const answer = await request(api, TOKEN_REVIEWS, body)
        assert.equal(answer.status, 400, JSON.stringify(body))
        assert.match(answer.body.message, message)
      }
      const notJson = await request(api, TOKEN_REVIEWS, undefined, { raw: 'token=abc' })
      assert.equal(notJson.status, 400)
      assert.match(notJson.body.message, /json parse error/)
    })

    test('a body that is not JSON by its Content-Type is a 415', async () => {
      const { status, body } = await request(api, TOKEN_REVIEWS, review('x'), { contentType: 'text/plain' })
      assert.equal(status, 415)
      assert.equal(body.reason, 'UnsupportedMediaType')
    })

    test('the token is read as a bearer header reads it: what follows a space is ignored, a leading space leaves no token', async () => {
      api.addToken('space-token', { username: 'spacey' })
      const suffixed = await request(api, TOKEN_REVIEWS, review('space-token trailing-junk'))
      assert.equal(suffixed.body.status.authenticated, true, 'a real server authenticates the part before the space')
      assert.equal(suffixed.body.spec.token, 'space-token trailing-junk')
      const leading = await request(api, TOKEN_REVIEWS, review(' space-token'))
      assert.equal(leading.status, 201)
      assert.deepEqual(leading.body.status, { user: {} })
    })

    test('a review is a create: GET on tokenreviews is a list the service account may not do', async () => {
      const { status, body } = await request(api, TOKEN_REVIEWS)
      assert.equal(status, 403)
      assert.match(body.message, /cannot list resource "tokenreviews"/)
      assert.equal((await request(api, TOKEN_REVIEWS, undefined, { authorization: `Bearer ${api.adminToken}` })).status, 405)
    })

    test('an audience-unaware authenticator answering other audiences makes the review a 500', async () => {
      api.addToken('webhook-token', { username: 'jane', webhookAudiences: ['somewhere-else'] })
      const { status, body } = await request(api, '/apis/authentication.k8s.io/v1/tokenreviews', review('webhook-token', ['feast']))
      assert.equal(status, 500)
      assert.match(body.message, /error validating audiences/)
    })
  })

  describe('watch', () => {
    test('a watch from resourceVersion 0 starts with synthetic ADDED events of the current state, without history and without a bookmark', async () => {
      api.putRoleBinding(roleBinding('feast', 'w-gone', 'reader', [{ kind: 'User', name: 'x' }]))
      api.deleteRoleBinding('feast', 'w-gone')
      api.putRoleBinding(roleBinding('feast', 'w-kept', 'reader', [{ kind: 'User', name: 'x' }]))
      const lines = await watchLines(api, `${BINDINGS}?watch=true&allowWatchBookmarks=true&resourceVersion=0`, 50)
      assert.ok(lines.length > 0)
      assert.ok(lines.every((line) => line.type === 'ADDED'), `only ADDED events: ${lines.map((line) => line.type).join(',')}`)
      assert.ok(lines.some((line) => line.object.metadata.name === 'w-kept'))
      assert.ok(!lines.some((line) => line.object.metadata.name === 'w-gone'))
    })

    test('a watch from a version newer than the current one is no error: it waits and sends only what comes after that version', async () => {
      const current = Number((await request(api, BINDINGS)).body.metadata.resourceVersion)
      const pending = watchLines(api, `${BINDINGS}?watch=true&resourceVersion=${current + 1}`, 1, 1500)
      await new Promise((resolve) => setTimeout(resolve, 200))
      api.putRoleBinding(roleBinding('feast', 'w-skipped', 'reader', [{ kind: 'User', name: 'x' }])) // current + 1: not after it
      api.putRoleBinding(roleBinding('feast', 'w-future', 'reader', [{ kind: 'User', name: 'x' }]))
      const lines = await pending
      assert.deepEqual(lines.map((line) => `${line.type as string} ${line.object.metadata.name as string}`), ['ADDED w-future'])
    })

    test('a compacted version gives one ERROR event with a 410 Expired Status, then the stream ends', async () => {
      const list = await request(api, BINDINGS)
      api.compact()
      const lines = await watchLines(api, `${BINDINGS}?watch=true&resourceVersion=${list.body.metadata.resourceVersion as string}`, 2)
      assert.equal(lines.length, 1)
      assert.equal(lines[0].type, 'ERROR')
      assert.equal(lines[0].object.code, 410)
      assert.equal(lines[0].object.reason, 'Expired')
      assert.match(lines[0].object.message, /^too old resource version: \d+ \(\d+\)$/)
    })

    test('a resourceVersion that is not a number is a 422 Invalid on the resource', async () => {
      const { status, body } = await request(api, `${BINDINGS}?watch=true&resourceVersion=latest`)
      assert.equal(status, 422)
      assert.match(body.message, /^rolebindings\.rbac\.authorization\.k8s\.io "" is invalid: resourceVersion: Invalid value: "latest": strconv\.ParseUint/)
    })

    test('resourceVersionMatch, and sendInitialEvents (the WatchList gate is off in 1.33), are refused on a watch: 422', async () => {
      for (const query of ['resourceVersion=0&resourceVersionMatch=NotOlderThan', 'sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true']) {
        const { status, body } = await request(api, `${BINDINGS}?watch=true&${query}`)
        assert.equal(status, 422, query)
        assert.equal(body.details.kind, 'ListOptions')
      }
      const { body } = await request(api, `${BINDINGS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`)
      assert.match(body.message, /sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled/)
    })

    test('a labelSelector watch sees an object relabelled into it as ADDED and out of it as DELETED with its previous state', async () => {
      const labelled = (team: string): ReturnType<typeof roleBinding> => ({ ...roleBinding('feast', 'relabelled', 'reader', [{ kind: 'User', name: 'x' }]), metadata: { name: 'relabelled', namespace: 'feast', labels: { team } } })
      const from = api.putRoleBinding(labelled('blue')).metadata.resourceVersion!
      const pending = watchLines(api, `${BINDINGS}?watch=true&labelSelector=team%3Dred&resourceVersion=${from}`, 2, 1500)
      await new Promise((resolve) => setTimeout(resolve, 100))
      api.putRoleBinding(labelled('red'))
      api.putRoleBinding(labelled('green'))
      const lines = await pending
      assert.deepEqual(lines.map((line) => `${line.type as string} ${line.object.metadata.labels.team as string}`), ['ADDED red', 'DELETED red'])
      assert.ok(Number(lines[1].object.metadata.resourceVersion) > Number(lines[0].object.metadata.resourceVersion), 'the DELETED event at the version of the change')
    })

    test('a watch of one object by its path sees only that object', async () => {
      const from = api.putRoleBinding(roleBinding('feast', 'watched-one', 'reader', [{ kind: 'User', name: 'x' }])).metadata.resourceVersion!
      const pending = watchLines(api, `${BINDINGS}/watched-one?watch=true&resourceVersion=${from}`, 1, 1500)
      await new Promise((resolve) => setTimeout(resolve, 100))
      api.putRoleBinding(roleBinding('feast', 'watched-other', 'reader', [{ kind: 'User', name: 'x' }]))
      api.deleteRoleBinding('feast', 'watched-one')
      assert.deepEqual((await pending).map((line) => `${line.type as string} ${line.object.metadata.name as string}`), ['DELETED watched-one'])
    })

    test('watch=True is a watch too: any value but 0 and false is true', async () => {
      const lines = await watchLines(api, `${BINDINGS}?watch=True&timeoutSeconds=1`, 1, 1500)
      assert.ok(lines.every((line) => line.type === 'ADDED'), 'a stream of events, not a list')
      assert.ok(lines.length > 0)
    })

    test('a watch without timeoutSeconds is still closed by the server, after 1 to 2 times its minimum request timeout', async () => {
      const short = await startFakeKubeApi({ namespace: 'feast', minRequestTimeoutSeconds: 1 })
      try {
        const startedAt = Date.now()
        const { status } = await request(short, `${BINDINGS}?watch=true`)
        const elapsed = Date.now() - startedAt
        assert.equal(status, 200)
        assert.ok(elapsed >= 950 && elapsed < 2500, `closed after ${elapsed} ms`)
      } finally {
        await short.close()
      }
    })

    test('with bookmarks, one comes 2 s before the server times the watch out, newer than every event before it', async () => {
      const startedAt = Date.now()
      const lines = await watchLines(api, `${BINDINGS}?watch=true&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=0`, 1000, 4000)
      const bookmarks = lines.filter((line) => line.type === 'BOOKMARK')
      assert.equal(bookmarks.length, 1)
      assert.ok(Date.now() - startedAt >= 2900, 'the stream ended at the timeout')
      const versions = lines.map((line) => Number(line.object.metadata.resourceVersion))
      assert.ok(versions.at(-1)! > Math.max(...versions.slice(0, -1)), 'the bookmark is the newest version')
      assert.equal(bookmarks[0].object.kind, 'RoleBinding')
      assert.deepEqual(bookmarks[0].object.roleRef, { apiGroup: '', kind: '', name: '' }, 'an empty object of the kind')
    })

    test('an injected 429 is API Priority and Fairness\'s: plain text with Retry-After, not a Status', async () => {
      api.setFault('rolebindings', { status: 429 })
      try {
        const { status, headers, body } = await request(api, BINDINGS)
        assert.equal(status, 429)
        assert.equal(headers['retry-after'], '1')
        assert.match(String(headers['content-type']), /^text\/plain/)
        assert.equal(body, 'Too many requests, please try again later.\n')
      } finally {
        api.setFault('rolebindings', undefined)
      }
    })

    test('injected 500, 503 and 504 carry the reason the API server gives each code', async () => {
      for (const [code, reason] of [[500, 'InternalError'], [503, 'ServiceUnavailable'], [504, 'Timeout']] as const) {
        api.setFault('rolebindings', { status: code })
        try {
          const { status, body } = await request(api, BINDINGS)
          assert.equal(status, code)
          assert.equal(body.reason, reason)
          assert.equal(body.code, code)
        } finally {
          api.setFault('rolebindings', undefined)
        }
      }
    })
  })

  describe('objects', () => {
    test('roleRef cannot change in place: 422 Invalid', () => {
      api.putRoleBinding(roleBinding('feast', 'fixed', 'reader', [{ kind: 'User', name: 'x' }]))
      assert.throws(() => api.putRoleBinding(roleBinding('feast', 'fixed', 'writer', [{ kind: 'User', name: 'x' }])), (error: unknown) =>
        error instanceof FakeInvalidError && error.code === 422 &&
        error.message === 'RoleBinding.rbac.authorization.k8s.io "fixed" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"writer"}: cannot change roleRef')
    })

    test('an empty apiGroup of roleRef and of a User or Group subject is defaulted, as rbac/v1 does; a wrong one is refused', () => {
      const stored = api.putRoleBinding({ metadata: { name: 'defaulted-group', namespace: 'feast' }, roleRef: { apiGroup: '', kind: 'Role', name: 'r' }, subjects: [{ kind: 'Group', name: 'g' }, { kind: 'ServiceAccount', name: 'sa' }] })
      assert.equal(stored.roleRef.apiGroup, 'rbac.authorization.k8s.io')
      assert.equal(stored.subjects![0]!.apiGroup, 'rbac.authorization.k8s.io')
      assert.equal(stored.subjects![1]!.apiGroup, undefined)
      assert.throws(() => api.putRoleBinding({ metadata: { name: 'wrong-group', namespace: 'feast' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'Group', name: 'g', apiGroup: 'example.com' }] }),
        /subjects\[0\]\.apiGroup: Unsupported value: "example\.com": supported values: "rbac\.authorization\.k8s\.io"/)
      assert.throws(() => api.putRoleBinding({ metadata: { name: 'sa-group', namespace: 'feast' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'sa', apiGroup: 'rbac.authorization.k8s.io' }] }),
        /subjects\[0\]\.apiGroup: Unsupported value/)
    })

    test('RBAC names are path segments, as the real validation has it: capitals and colons are fine, a slash is not', () => {
      api.putRole(feastRole('feast', 'Feast:Reader'))
      api.putRoleBinding(roleBinding('feast', 'system:Feast-Readers', 'Feast:Reader', [{ kind: 'User', name: 'Jane Doe' }]))
      assert.throws(() => api.putRole(feastRole('feast', 'a/b')), /metadata\.name: Invalid value: "a\/b": may not contain '\/'/)
      assert.throws(() => api.putRoleBinding(roleBinding('feast', 'sa-bad', 'r', [{ kind: 'ServiceAccount', name: 'Not_A_Name' }])), /subjects\[0\]\.name: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain/)
      assert.throws(() => api.putRoleBinding({ metadata: { name: 'kindless', namespace: 'feast' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'Robot' as 'User', name: 'r2' }] }),
        /subjects\[0\]\.kind: Unsupported value: "Robot"/)
    })

    test('a ClusterRoleBinding\'s name is a path segment too: colons and any length are fine; ".", ".." and a name holding "%" are not', () => {
      const review = (name: string): ReturnType<typeof clusterRoleBinding> => clusterRoleBinding(name, 'feast-authz-token-review', [{ kind: 'ServiceAccount', name: 'feast-prod', namespace: 'team-a' }])
      assert.equal(api.putClusterRoleBinding(review(`feast-authz:${'n'.repeat(63)}:${'s'.repeat(63)}:oidc-token-review`)).metadata.name.length, 157)
      for (const [name, message] of [['.', "may not be '.'"], ['..', "may not be '..'"], ['a%2Fb', "may not contain '%'"]]) {
        assert.throws(() => api.putClusterRoleBinding(review(name!)), (error: unknown) => error instanceof FakeInvalidError && error.message.includes(`metadata.name: Invalid value: "${name!}": ${message!}`))
      }
    })

    test('labels are validated as on every object: a value longer than 63 characters or a key that is not a qualified name is 422 Invalid', () => {
      const labelled = (labels: Record<string, string>): ReturnType<typeof feastRole> => ({ ...feastRole('feast', 'labelled'), metadata: { name: 'labelled', namespace: 'feast', labels } })
      api.putRole(labelled({ 'feast.dev/name': 'x'.repeat(63), empty: '' }))
      assert.throws(() => api.putRole(labelled({ 'feast.dev/name': 'x'.repeat(64) })),
        /Role\.rbac\.authorization\.k8s\.io "labelled" is invalid: metadata\.labels: Invalid value: "x{64}": must be no more than 63 characters$/)
      assert.throws(() => api.putRole(labelled({ 'feast.dev/name': 'a b' })), /metadata\.labels: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters/)
      assert.throws(() => api.putRole(labelled({ 'Feast.dev/name': 'x' })), /metadata\.labels: Invalid value: "Feast\.dev\/name": prefix part a lowercase RFC 1123 subdomain/)
      assert.throws(() => api.putRole(labelled({ [`feast.dev/${'n'.repeat(64)}`]: 'x' })), /metadata\.labels: Invalid value: "feast\.dev\/n{64}": name part must be no more than 63 characters/)
    })

    const LABEL_RULE = 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character ' +
      '(e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')'

    test('putRole refuses a namespace that is not a DNS label (capitals, an underscore, a leading dash) with the API server\'s 422, and creates no namespace', async () => {
      const refused = ['Feast', 'feast_dev', '-feast']
      for (const namespace of refused) {
        assert.throws(() => api.putRole(feastRole(namespace, 'reader')), (error: unknown) =>
          error instanceof FakeInvalidError && error.code === 422 &&
          error.message === `Role.rbac.authorization.k8s.io "reader" is invalid: metadata.namespace: Invalid value: ${JSON.stringify(namespace)}: ${LABEL_RULE}`)
      }
      const listed = await request(api, '/api/v1/namespaces', undefined, { authorization: `Bearer ${api.adminToken}` })
      const names: string[] = listed.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)
      assert.ok(names.includes('feast'), 'the list holds the namespaces there are')
      assert.deepEqual(refused.filter((namespace) => names.includes(namespace)), [])
    })

    test('putRoleBinding refuses a namespace longer than 63 characters, as the API server does; 63 are fine', () => {
      api.putRoleBinding(roleBinding('n'.repeat(63), 'long-ns', 'reader', [{ kind: 'User', name: 'x' }]))
      assert.throws(() => api.putRoleBinding(roleBinding('n'.repeat(64), 'long-ns', 'reader', [{ kind: 'User', name: 'x' }])),
        /RoleBinding\.rbac\.authorization\.k8s\.io "long-ns" is invalid: metadata\.namespace: Invalid value: "n{64}": must be no more than 63 characters$/)
    })

    test('putRoleBinding refuses a namespace with dots, which is a DNS subdomain but not a label', () => {
      assert.throws(() => api.putRoleBinding(roleBinding('feast.dev', 'dotted', 'reader', [{ kind: 'User', name: 'x' }])),
        /RoleBinding\.rbac\.authorization\.k8s\.io "dotted" is invalid: metadata\.namespace: Invalid value: "feast\.dev": must not contain dots$/)
    })

    test('putRole and putRoleBinding refuse an object without a namespace: Required, as for any namespaced object', () => {
      assert.throws(() => api.putRole(feastRole('', 'nowhere')),
        /Role\.rbac\.authorization\.k8s\.io "nowhere" is invalid: metadata\.namespace: Required value$/)
      assert.throws(() => api.putRoleBinding(roleBinding('', 'nowhere', 'reader', [{ kind: 'User', name: 'x' }])),
        /RoleBinding\.rbac\.authorization\.k8s\.io "nowhere" is invalid: metadata\.namespace: Required value$/)
    })

    test('a Role rule needs verbs, apiGroups and resources, and a namespaced one no nonResourceURLs', () => {
      assert.throws(() => api.putRole({ metadata: { name: 'no-groups', namespace: 'feast' }, rules: [{ resources: ['configmaps'], verbs: ['get'] }] }),
        /Role\.rbac\.authorization\.k8s\.io "no-groups" is invalid: rules\[0\]\.apiGroups: Required value: resource rules must supply at least one api group$/)
      assert.throws(() => api.putRole({ metadata: { name: 'no-verbs', namespace: 'feast' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: [] }] }), /rules\[0\]\.verbs: Required value/)
      assert.throws(() => api.putRole({ metadata: { name: 'urls', namespace: 'feast' }, rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] }), /namespaced rules cannot apply to non-resource URLs/)
    })

    test('over HTTP, only a cluster admin may write: the service account gets 403', async () => {
      const { status, body } = await request(api, BINDINGS, roleBinding('feast', 'by-service', 'reader', [{ kind: 'User', name: 'x' }]))
      assert.equal(status, 403)
      assert.match(body.message, /cannot create resource "rolebindings"/)
    })

    test('POST creates (201, ADDED), a second POST is 409 AlreadyExists, and nothing is created in a namespace that does not exist', async () => {
      const admin = { authorization: `Bearer ${api.adminToken}` }
      const from = (await request(api, BINDINGS)).body.metadata.resourceVersion as string
      const pending = watchLines(api, `${BINDINGS}?watch=true&resourceVersion=${from}`, 1, 1000)
      const created = await request(api, BINDINGS, roleBinding('feast', 'posted', 'reader', [{ kind: 'Group', name: 'eng' }]), admin)
      assert.equal(created.status, 201)
      assert.equal(created.body.kind, 'RoleBinding')
      assert.equal(created.body.subjects[0].apiGroup, 'rbac.authorization.k8s.io')
      assert.deepEqual((await pending).map((line) => `${line.type as string} ${line.object.metadata.name as string}`), ['ADDED posted'])
      const again = await request(api, BINDINGS, roleBinding('feast', 'posted', 'reader', [{ kind: 'Group', name: 'eng' }]), admin)
      assert.equal(again.status, 409)
      assert.equal(again.body.reason, 'AlreadyExists')
      const elsewhere = await request(api, '/apis/rbac.authorization.k8s.io/v1/namespaces/nowhere/rolebindings', roleBinding('nowhere', 'x', 'reader', [{ kind: 'User', name: 'x' }]), admin)
      assert.equal(elsewhere.status, 404)
      assert.equal(elsewhere.body.message, 'namespaces "nowhere" not found')
      const mismatch = await request(api, BINDINGS, roleBinding('other', 'x', 'reader', [{ kind: 'User', name: 'x' }]), admin)
      assert.equal(mismatch.status, 400)
      assert.equal(mismatch.body.message, 'the namespace of the provided object does not match the namespace sent on the request')
      const invalid = await request(api, BINDINGS, { metadata: { name: 'bad' }, roleRef: { kind: 'Pod', name: 'r' } }, admin)
      assert.equal(invalid.status, 422)
      assert.deepEqual(invalid.body.details.causes, [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: "Pod": supported values: "Role", "ClusterRole"', field: 'roleRef.kind' }])
    })

    test('an unknown field is dropped with a warning, and refused under fieldValidation=Strict', async () => {
      const admin = { authorization: `Bearer ${api.adminToken}` }
      const body = { ...roleBinding('feast', 'with-spec', 'reader', [{ kind: 'User', name: 'x' }]), spec: { role: 'reader' } }
      const strict = await request(api, `${BINDINGS}?fieldValidation=Strict`, body, admin)
      assert.equal(strict.status, 400)
      assert.match(strict.body.message, /strict decoding error: unknown field "spec"/)
      const lenient = await request(api, BINDINGS, body, admin)
      assert.equal(lenient.status, 201)
      assert.equal(lenient.body.spec, undefined)
      assert.match(String(lenient.headers.warning), /unknown field/)
    })

    test('PUT replaces: a stale resourceVersion is 409 Conflict, a new roleRef 422, an unchanged object keeps its version', async () => {
      const admin = { authorization: `Bearer ${api.adminToken}` }
      const stored = api.putRoleBinding(roleBinding('feast', 'replaced', 'reader', [{ kind: 'User', name: 'x' }]))
      const path = `${BINDINGS}/replaced`
      const stale = await request(api, path, { ...roleBinding('feast', 'replaced', 'reader', [{ kind: 'User', name: 'y' }]), metadata: { name: 'replaced', namespace: 'feast', resourceVersion: '1' } }, { ...admin, method: 'PUT' })
      assert.equal(stale.status, 409)
      assert.equal(stale.body.reason, 'Conflict')
      const moved = await request(api, path, roleBinding('feast', 'replaced', 'writer', [{ kind: 'User', name: 'x' }]), { ...admin, method: 'PUT' })
      assert.equal(moved.status, 422)
      assert.match(moved.body.message, /roleRef: Invalid value: rbac\.RoleRef\{.*Name:"writer"\}: cannot change roleRef/)
      const same = await request(api, path, { ...roleBinding('feast', 'replaced', 'reader', [{ kind: 'User', name: 'x' }]), metadata: stored.metadata }, { ...admin, method: 'PUT' })
      assert.equal(same.status, 200)
      assert.equal(same.body.metadata.resourceVersion, stored.metadata.resourceVersion)
      const renamed = await request(api, path, roleBinding('feast', 'other-name', 'reader', [{ kind: 'User', name: 'x' }]), { ...admin, method: 'PUT' })
      assert.equal(renamed.status, 400)
    })

    test('PATCH merges (merge, strategic, JSON patch); server-side apply is not emulated (415)', async () => {
      const admin = { authorization: `Bearer ${api.adminToken}` }
      api.putRoleBinding(roleBinding('feast', 'patched', 'reader', [{ kind: 'User', name: 'x' }]))
      const path = `${BINDINGS}/patched`
      const merged = await request(api, path, { subjects: [{ kind: 'User', name: 'y' }] }, { ...admin, method: 'PATCH', contentType: 'application/merge-patch+json' })
      assert.equal(merged.status, 200)
      assert.deepEqual(merged.body.subjects, [{ kind: 'User', name: 'y', apiGroup: 'rbac.authorization.k8s.io' }])
      const labelled = await request(api, path, { metadata: { labels: { team: 'a' } } }, { ...admin, method: 'PATCH', contentType: 'application/strategic-merge-patch+json' })
      assert.equal(labelled.body.metadata.labels.team, 'a')
      const added = await request(api, path, [{ op: 'add', path: '/subjects/-', value: { kind: 'Group', name: 'g' } }], { ...admin, method: 'PATCH', contentType: 'application/json-patch+json' })
      assert.equal(added.body.subjects.length, 2)
      const failed = await request(api, path, [{ op: 'test', path: '/roleRef/name', value: 'writer' }], { ...admin, method: 'PATCH', contentType: 'application/json-patch+json' })
      assert.equal(failed.status, 422)
      const moved = await request(api, path, { roleRef: { name: 'writer' } }, { ...admin, method: 'PATCH', contentType: 'application/merge-patch+json' })
      assert.equal(moved.status, 422)
      assert.equal((await request(api, path, {}, { ...admin, method: 'PATCH', contentType: 'application/apply-patch+yaml' })).status, 415)
    })

    test('DELETE answers a Success Status, and watchers get DELETED carrying the last state at a newer version', async () => {
      const admin = { authorization: `Bearer ${api.adminToken}` }
      const stored = api.putRoleBinding(roleBinding('feast', 'deleted', 'reader', [{ kind: 'User', name: 'last' }]))
      const pending = watchLines(api, `${BINDINGS}?watch=true&resourceVersion=${stored.metadata.resourceVersion!}`, 1, 1000)
      const deleted = await request(api, `${BINDINGS}/deleted`, undefined, { ...admin, method: 'DELETE' })
      assert.equal(deleted.status, 200)
      assert.deepEqual(deleted.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'deleted', group: 'rbac.authorization.k8s.io', kind: 'rolebindings', uid: stored.metadata.uid } })
      const [event] = await pending
      assert.equal(event.type, 'DELETED')
      assert.deepEqual(event.object.subjects, stored.subjects)
      assert.ok(Number(event.object.metadata.resourceVersion) > Number(stored.metadata.resourceVersion))
      assert.equal((await request(api, `${BINDINGS}/deleted`, undefined, { ...admin, method: 'DELETE' })).status, 404)
    })

    test('namespaces: a new cluster\'s and the service\'s exist, kubectl may read them as an admin, the service account may not', async () => {
      const admin = { authorization: `Bearer ${api.adminToken}` }
      assert.equal((await request(api, '/api/v1/namespaces/feast', undefined, admin)).body.status.phase, 'Active')
      assert.equal((await request(api, '/api/v1/namespaces/nowhere', undefined, admin)).status, 404)
      const refused = await request(api, '/api/v1/namespaces/feast')
      assert.equal(refused.status, 403)
      assert.match(refused.body.message, /^namespaces "feast" is forbidden: User ".*" cannot get resource "namespaces" in API group "" at the cluster scope$/)
    })

    test('writing an unchanged object writes nothing: same resourceVersion, no watch event', async () => {
      const first = api.putRoleBinding(roleBinding('feast', 'unchanged', 'reader', [{ kind: 'User', name: 'x' }]))
      const pending = watchLines(api, `${BINDINGS}?watch=true&resourceVersion=${first.metadata.resourceVersion!}`, 1, 500)
      const again = api.putRoleBinding(roleBinding('feast', 'unchanged', 'reader', [{ kind: 'User', name: 'x' }]))
      assert.equal(again.metadata.resourceVersion, first.metadata.resourceVersion)
      assert.deepEqual(await pending, [])
    })

    test('stored objects are realistically sized: UUID uid, labels, annotations, managedFields', async () => {
      const stored = api.putRoleBinding(roleBinding('feast', 'sized', 'reader', [{ kind: 'User', name: 'x' }]))
      assert.match(stored.metadata.uid!, /^[0-9a-f]{8}-[0-9a-f]{4}-/)
      assert.ok(stored.metadata.managedFields!.length > 0)
      const { body } = await request(api, `${BINDINGS}/sized`)
      assert.equal(body.kind, 'RoleBinding')
      assert.ok(JSON.stringify(body).length > 600, 'as large as a real kubectl-applied binding')
    })

    test('lists page with limit and continue over one snapshot', async () => {
      for (let i = 0; i < 5; i++) api.putRoleBinding(roleBinding('feast', `page-${i}`, 'reader', [{ kind: 'User', name: 'x' }]))
      const first = await request(api, `${BINDINGS}?limit=2`)
      assert.equal(first.body.items.length, 2)
      assert.ok(first.body.metadata.continue)
      api.putRoleBinding(roleBinding('feast', 'page-late', 'reader', [{ kind: 'User', name: 'x' }]))
      const names: string[] = first.body.items.map((item: any) => item.metadata.name)
      let token: string | undefined = first.body.metadata.continue
      while (token !== undefined) {
        const page = await request(api, `${BINDINGS}?limit=2&continue=${token}`)
        assert.equal(page.body.metadata.resourceVersion, first.body.metadata.resourceVersion)
        names.push(...page.body.items.map((item: any) => item.metadata.name))
        token = page.body.metadata.continue
      }
      assert.ok(!names.includes('page-late'), 'a later object is not in the snapshot')
      assert.equal(new Set(names).size, names.length)
    })

    test('a continue token from before a compaction is a 410 Expired carrying a token that continues at the latest version', async () => {
      const first = await request(api, `${BINDINGS}?limit=1`)
      api.compact()
      api.putRoleBinding(roleBinding('feast', 'zz-after-compaction', 'reader', [{ kind: 'User', name: 'x' }]))
      const next = await request(api, `${BINDINGS}?limit=1&continue=${first.body.metadata.continue as string}`)
      assert.equal(next.status, 410)
      assert.equal(next.body.reason, 'Expired')
      assert.match(next.body.message, /^The provided continue parameter is too old to display a consistent list result\. .*inconsistent list/)
      const inconsistent: string = next.body.metadata.continue
      assert.ok(inconsistent, 'a continue token in the Status metadata')
      const names: string[] = []
      let token: string | undefined = inconsistent
      while (token !== undefined) {
        const page = await request(api, `${BINDINGS}?limit=100&continue=${token}`)
        assert.equal(page.status, 200)
        names.push(...page.body.items.map((item: any) => item.metadata.name))
        token = page.body.metadata.continue
      }
      assert.ok(names.includes('zz-after-compaction'), 'the rest of the list is read at the latest version')
      assert.ok(!names.includes(first.body.items[0].metadata.name), 'from where the first page ended')
    })

    test('continue tokens are validated: garbage is a 400, and so is a resourceVersion next to one', async () => {
      const garbage = await request(api, `${BINDINGS}?limit=1&continue=not-a-token`)
      assert.equal(garbage.status, 400)
      assert.match(garbage.body.message, /^invalid continue token: continue key is not valid/)
      const forged = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 5, start: '../../secrets/x' })).toString('base64url')
      assert.equal((await request(api, `${BINDINGS}?limit=1&continue=${forged}`)).status, 400, 'a key that climbs out of the collection')
      const first = await request(api, `${BINDINGS}?limit=1`)
      const both = await request(api, `${BINDINGS}?limit=1&resourceVersion=${first.body.metadata.resourceVersion as string}&continue=${first.body.metadata.continue as string}`)
      assert.equal(both.status, 400)
      assert.equal(both.body.message, 'specifying resource version is not allowed when using continue')
    })

    test('items come in key (byte) order, as etcd returns them', async () => {
      for (const name of ['order.b', 'order-b', 'order0', 'orderB']) api.putRoleBinding(roleBinding('feast', name, 'reader', [{ kind: 'User', name: 'x' }]))
      const { body } = await request(api, BINDINGS)
      const names: string[] = body.items.map((item: any) => item.metadata.name).filter((name: string) => name.startsWith('order'))
      assert.deepEqual(names, ['order-b', 'order.b', 'order0', 'orderB'])
    })

    test('resourceVersionMatch and sendInitialEvents are validated as ListOptions: 422 Invalid', async () => {
      const cases: Array<[string, RegExp]> = [
        ['resourceVersionMatch=NotOlderThan', /resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided/],
        ['resourceVersion=0&resourceVersionMatch=Exact', /resourceVersionMatch "exact" is forbidden for resourceVersion "0"/],
        ['resourceVersion=1&resourceVersionMatch=Newest', /resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""/],
        ['sendInitialEvents=true', /sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list/]
      ]
      for (const [query, message] of cases) {
        const { status, body } = await request(api, `${BINDINGS}?${query}`)
        assert.equal(status, 422, query)
        assert.equal(body.reason, 'Invalid')
        assert.equal(body.details.kind, 'ListOptions')
        assert.match(body.message, /^ListOptions\.meta\.k8s\.io "" is invalid: /)
        assert.match(body.message, message)
      }
    })

    test('selectors filter lists (no remainingItemCount under one); a field other than name or namespace, or a bad label selector, is a 400', async () => {
      for (const [name, team] of [['sel-a', 'red'], ['sel-b', 'red'], ['sel-c', 'blue']] as const) {
        api.putRoleBinding({ ...roleBinding('feast', name, 'reader', [{ kind: 'User', name: 'x' }]), metadata: { name, namespace: 'feast', labels: { tier: team } } })
      }
      const red = await request(api, `${BINDINGS}?labelSelector=tier%3Dred&limit=1`)
      assert.deepEqual(red.body.items.map((item: any) => item.metadata.name), ['sel-a'])
      assert.ok(red.body.metadata.continue)
      assert.equal(red.body.metadata.remainingItemCount, undefined)
      const notRed = await request(api, `${BINDINGS}?labelSelector=${encodeURIComponent('tier in (blue,green),tier!=red')}`)
      assert.deepEqual(notRed.body.items.map((item: any) => item.metadata.name), ['sel-c'])
      const byName = await request(api, `${BINDINGS}?fieldSelector=metadata.name%3Dsel-b`)
      assert.deepEqual(byName.body.items.map((item: any) => item.metadata.name), ['sel-b'])
      const unknown = await request(api, `${BINDINGS}?fieldSelector=roleRef.name%3Dreader`)
      assert.equal(unknown.status, 400)
      assert.equal(unknown.body.message, '"roleRef.name" is not a known field selector: only "metadata.name", "metadata.namespace"')
      assert.equal((await request(api, `${BINDINGS}?labelSelector=${encodeURIComponent('tier in red')}`)).status, 400)
    })

    test('resourceVersion and limit must be numbers: 400', async () => {
      assert.match((await request(api, `${BINDINGS}?resourceVersion=abc`)).body.message, /^invalid resource version: /)
      assert.equal((await request(api, `${BINDINGS}?limit=ten`)).status, 400)
    })

    test('resourceVersionMatch=Exact lists the state at that version; compacted is a 410, future a 504', async () => {
      api.putRoleBinding(roleBinding('feast', 'exact-then-deleted', 'reader', [{ kind: 'User', name: 'x' }]))
      const before = (await request(api, BINDINGS)).body.metadata.resourceVersion as string
      api.deleteRoleBinding('feast', 'exact-then-deleted')
      const exact = await request(api, `${BINDINGS}?resourceVersion=${before}&resourceVersionMatch=Exact`)
      assert.equal(exact.body.metadata.resourceVersion, before)
      assert.ok(exact.body.items.some((item: any) => item.metadata.name === 'exact-then-deleted'), 'the state at that version')
      const now = await request(api, `${BINDINGS}?resourceVersion=${before}&resourceVersionMatch=NotOlderThan`)
      assert.ok(!now.body.items.some((item: any) => item.metadata.name === 'exact-then-deleted'), 'NotOlderThan may be newer')
      const legacy = await request(api, `${BINDINGS}?resourceVersion=${before}&limit=500`)
      assert.ok(legacy.body.items.some((item: any) => item.metadata.name === 'exact-then-deleted'), 'a version with a limit and no match is exact (the legacy case)')
      api.compact()
      const compacted = await request(api, `${BINDINGS}?resourceVersion=${before}&resourceVersionMatch=Exact`)
      assert.equal(compacted.status, 410)
      assert.equal(compacted.body.message, 'The resourceVersion for the provided list is too old.')
      assert.equal((await request(api, `${BINDINGS}?resourceVersion=999999999&resourceVersionMatch=Exact`)).status, 504)
    })

    test('a list no older than a future version waits for it (up to 3 s), then is a 504 Too large resource version', async () => {
      const current = Number((await request(api, BINDINGS)).body.metadata.resourceVersion)
      setTimeout(() => { api.putRoleBinding(roleBinding('feast', 'awaited', 'reader', [{ kind: 'User', name: 'x' }])) }, 200)
      const reached = await request(api, `${BINDINGS}?resourceVersion=${current + 1}`)
      assert.equal(reached.status, 200)
      assert.ok(reached.body.items.some((item: any) => item.metadata.name === 'awaited'))
      const startedAt = Date.now()
      const { status, body } = await request(api, `${BINDINGS}?resourceVersion=${current + 1000}`)
      assert.equal(status, 504)
      assert.ok(Date.now() - startedAt >= 2900, 'after the watch cache\'s 3 s wait')
      assert.match(body.message, /^Too large resource version: /)
      assert.deepEqual(body.details.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }])
    })
  })

  describe('lies a test asks for (opt-in, per test)', () => {
    afterEach(() => {
      api.setFault('tokenreviews', undefined)
      api.setFault('rolebindings', undefined)
    })
    const RAW_TOKEN = 'lie-token'
    before(() => { api.addToken(RAW_TOKEN, serviceAccountIdentity('apps', 'lie')) })

    test('rewrite replaces a successful answer, and leaves a refusal as the server gave it', async () => {
      api.setFault('tokenreviews', { rewrite: (answer) => ({ ...answer, status: { authenticated: 'yes' } }) })
      const rewritten = await request(api, TOKEN_REVIEWS, review(RAW_TOKEN))
      assert.equal(rewritten.status, 201)
      assert.deepEqual(rewritten.body.status, { authenticated: 'yes' })
      assert.equal(rewritten.body.spec.token, RAW_TOKEN, 'the rest of the real answer')
      assert.equal((await request(api, TOKEN_REVIEWS, review(''))).status, 400, 'a refusal is not rewritten')
    })

    test('padding makes the answer many megabytes of valid JSON', async () => {
      api.setFault('rolebindings', { padding: 3 * 1024 * 1024 })
      const { status, body } = await request(api, BINDINGS)
      assert.equal(status, 200)
      assert.equal(body.padding.length, 3 * 1024 * 1024)
      assert.equal(body.kind, 'RoleBindingList')
    })

    test('dripMs sends the answer a byte at a time and then never ends it', async () => {
      api.setFault('tokenreviews', { dripMs: 1 })
      const received = await new Promise<string>((resolve, reject) => {
        const req = https.request(`${api.url}${TOKEN_REVIEWS}`, { method: 'POST', ca: api.caPem, headers: { authorization: `Bearer ${api.serviceToken}`, 'content-type': 'application/json' } }, (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => { text += chunk })
          res.on('end', () => { reject(new Error('the answer ended')) })
          setTimeout(() => { req.destroy(); resolve(text) }, 1500)
        })
        req.on('error', () => {})
        req.end(JSON.stringify(review(RAW_TOKEN)))
      })
      assert.ok(received.startsWith('{"kind":"TokenReview"'), received.slice(0, 40))
    })

    test('redirect answers 307 to the URL given', async () => {
      api.setFault('tokenreviews', { redirect: 'https://elsewhere.example/tokenreviews' })
      const { status, headers } = await request(api, TOKEN_REVIEWS, review(RAW_TOKEN))
      assert.equal(status, 307)
      assert.equal(headers.location, 'https://elsewhere.example/tokenreviews')
    })

    test('endlessContinue serves the first page for ever, with the same token or a new one each time', async () => {
      api.putRoleBinding(roleBinding('feast', 'endless-a', 'reader', [{ kind: 'User', name: 'a' }]))
      api.setFault('rolebindings', { endlessContinue: 'same' })
      const first = await request(api, `${BINDINGS}?limit=1`)
      const again = await request(api, `${BINDINGS}?limit=1&continue=${first.body.metadata.continue as string}`)
      assert.deepEqual(again.body.items.map((item: any) => item.metadata.name), first.body.items.map((item: any) => item.metadata.name))
      assert.equal(again.body.metadata.continue, first.body.metadata.continue)
      api.setFault('rolebindings', { endlessContinue: 'new' })
      const fresh = await request(api, `${BINDINGS}?limit=1&continue=${first.body.metadata.continue as string}`)
      const fresher = await request(api, `${BINDINGS}?limit=1&continue=${fresh.body.metadata.continue as string}`)
      assert.notEqual(fresher.body.metadata.continue, fresh.body.metadata.continue)
    })

    test('injectWatch writes raw text into the open watches of one kind only', async () => {
      const lines = watchRawText(api, `${BINDINGS}?watch=true&resourceVersion=${(await request(api, BINDINGS)).body.metadata.resourceVersion as string}`)
      await eventually(() => api.openWatches('rolebindings') === 1, 'the watch to open')
      assert.equal(api.injectWatch('roles', 'not for bindings\n'), 0)
      assert.equal(api.injectWatch('rolebindings', 'not json\n'), 1)
      assert.equal(await lines, 'not json\n')
    })

    test('floodWatch writes a line without end until the client hangs up', async () => {
      const rv = (await request(api, BINDINGS)).body.metadata.resourceVersion as string
      const req = https.get(`${api.url}${BINDINGS}?watch=true&resourceVersion=${rv}`, { ca: api.caPem, headers: { authorization: `Bearer ${api.serviceToken}` } }, (res) => {
        let size = 0
        res.on('data', (chunk: Buffer) => { size += chunk.length; if (size > 2 * 1024 * 1024) req.destroy() })
      })
      req.on('error', () => {})
      await eventually(() => api.openWatches('rolebindings') === 1, 'the watch to open')
      const written = await api.floodWatch('rolebindings', 64 * 1024 * 1024)
      assert.ok(written >= 2 * 1024 * 1024 && written < 64 * 1024 * 1024, `${written} bytes written`)
    })
  })
})
