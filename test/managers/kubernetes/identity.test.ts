import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AuthError } from '../../../src/base/errors.ts'
import { UnusableAnswer } from '../../../src/managers/kubernetes/api-request.ts'
import { namespacesOf, serviceAccountGroupConflict, serviceAccountOf } from '../../../src/managers/kubernetes/identity.ts'
import { identityFromReview, readTokenReview, type ReviewStatus } from '../../../src/managers/kubernetes/token-review.ts'
import { thrownBy } from '../../helpers/errors.ts'

const TOKEN = 'the-reviewed-token'

/** A TokenReview answer about {@link TOKEN} with this status (none when undefined). */
function review (status: Record<string, unknown> | undefined): Record<string, unknown> {
  return { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: TOKEN }, ...(status === undefined ? {} : { status }) }
}

/** The status of `answer` as read, for `audiences`. */
const statusOf = (answer: unknown, audiences?: readonly string[]): ReviewStatus => readTokenReview(answer, TOKEN, audiences)
const rejection = (fn: () => unknown): AuthError => thrownBy(fn, AuthError)
const unusable = (fn: () => unknown): UnusableAnswer => thrownBy(fn, UnusableAnswer)

describe('identity from a TokenReview', () => {
  test('a service account username gives its namespace, and namespace groups add theirs', () => {
    assert.deepEqual(namespacesOf('system:serviceaccount:apps:alice', ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:serviceaccounts:shared']), ['apps', 'shared'])
  })

  test('a human username gives no namespace and the bare system:serviceaccounts group is ignored', () => {
    assert.deepEqual(namespacesOf('alice@example.com', ['system:serviceaccounts', 'system:authenticated']), [])
  })

  test('a namespace group with an empty or colon-holding namespace gives no namespace', () => {
    assert.deepEqual(namespacesOf('alice@example.com', ['system:serviceaccounts:', 'system:serviceaccounts:a:b', 'system:serviceaccounts:ok']), ['ok'])
  })

  test('a username with too many parts is not taken for a service account', () => {
    assert.equal(serviceAccountOf('system:serviceaccount:apps:alice:extra'), undefined)
    assert.deepEqual(serviceAccountOf('system:serviceaccount:apps:alice'), { namespace: 'apps', name: 'alice' })
  })

  test('an authenticated review yields username, groups and namespaces', () => {
    const identity = identityFromReview(statusOf(review({ authenticated: true, user: { username: 'system:serviceaccount:apps:alice', groups: ['system:serviceaccounts:apps'] } })), undefined)
    assert.deepEqual(identity, { username: 'system:serviceaccount:apps:alice', groups: ['system:serviceaccounts:apps'], namespaces: ['apps'] })
  })

  test('a review that is not authenticated is a 401 even when it names a user', () => {
    const error = rejection(() => identityFromReview(statusOf(review({ authenticated: false, user: { username: 'system:serviceaccount:apps:alice' } })), undefined))
    assert.equal(error.code, 'token_review_rejected')
    assert.equal(error.status, 401)
  })

  test('a review without status is an unusable answer, not a verdict on the token', () => {
    assert.match(unusable(() => statusOf(review(undefined))).message, /status is missing, expected an object/)
  })

  test('a status without authenticated (Go omits a false) is a 401', () => {
    assert.equal(rejection(() => identityFromReview(statusOf(review({ user: {} })), undefined)).code, 'token_review_rejected')
  })

  test('with audiences configured, the review must confirm one of them', () => {
    const error = rejection(() => identityFromReview(statusOf(review({ authenticated: true, audiences: ['https://kubernetes.default.svc'], user: { username: 'u' } })), ['feast']))
    assert.equal(error.code, 'token_review_rejected')
    assert.match(error.message, /audience/)
  })

  test('with audiences configured, an empty status.audiences (the API server\'s own) is refused', () => {
    assert.equal(rejection(() => identityFromReview(statusOf(review({ authenticated: true, user: { username: 'u' } }), ['feast']), ['feast'])).code, 'token_review_rejected')
  })

  test('with audiences configured, a confirmed audience passes', () => {
    assert.equal(identityFromReview(statusOf(review({ authenticated: true, audiences: ['feast'], user: { username: 'u' } }), ['other', 'feast']), ['other', 'feast']).username, 'u')
  })

  test('an authenticated review without a username is a 401', () => {
    assert.equal(rejection(() => identityFromReview(statusOf(review({ authenticated: true, user: {} })), undefined)).code, 'missing_username')
  })

  test('an authenticated review of the anonymous user is a 401: the token identifies nobody', () => {
    for (const user of [{ username: 'system:anonymous', groups: ['system:unauthenticated'] }, { username: 'someone', groups: ['system:unauthenticated'] }, { username: 'system:anonymous' }]) {
      assert.equal(rejection(() => identityFromReview(statusOf(review({ authenticated: true, user })), undefined)).code, 'token_review_rejected', JSON.stringify(user))
    }
  })

  test('an unusable answer names the field and the type found, never a value', () => {
    const error = unusable(() => statusOf(review({ authenticated: true, user: { username: { token: TOKEN } } })))
    assert.equal(error.message, 'TokenReview status.user.username is an object, expected a string')
    assert.ok(!unusable(() => statusOf({ ...review({ authenticated: true }), kind: TOKEN })).message.includes(TOKEN))
  })

  test('a review whose spec.token is another token is unusable', () => {
    const answer = { ...review({ authenticated: true, user: { username: 'u' } }), spec: { token: 'another-token' } }
    assert.match(unusable(() => statusOf(answer)).message, /about another token/)
  })

  test('a review that sends no spec back is read: the echo is checked only when present', () => {
    const { spec: _spec, ...answer } = review({ authenticated: true, user: { username: 'u' } })
    assert.equal(identityFromReview(statusOf(answer), undefined).username, 'u')
  })
})

describe('the groups of a service account', () => {
  test('its own namespace\'s group and the bare system:serviceaccounts are consistent', () => {
    assert.equal(serviceAccountGroupConflict('system:serviceaccount:apps:alice', ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated']), undefined)
  })

  test('the group of another namespace is a conflict', () => {
    assert.match(serviceAccountGroupConflict('system:serviceaccount:apps:alice', ['system:serviceaccounts:ops']) ?? '', /another namespace/)
  })

  test('a user who is no service account may be in any group, as RBAC lets them', () => {
    assert.equal(serviceAccountGroupConflict('alice@example.com', ['system:serviceaccounts:ops']), undefined)
  })
})
