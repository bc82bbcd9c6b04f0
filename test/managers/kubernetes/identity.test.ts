import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { V1TokenReview } from '@kubernetes/client-node'
import { AuthError } from '../../../src/base/errors.ts'
import { namespacesOf, serviceAccountOf } from '../../../src/managers/kubernetes/identity.ts'
import { identityFromReview } from '../../../src/managers/kubernetes/token-review.ts'
import { thrownBy } from '../../helpers/errors.ts'

function review (status: V1TokenReview['status']): V1TokenReview {
  return { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {}, ...(status === undefined ? {} : { status }) }
}

const rejection = (fn: () => unknown): AuthError => thrownBy(fn, AuthError)

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
    const identity = identityFromReview(review({ authenticated: true, user: { username: 'system:serviceaccount:apps:alice', groups: ['system:serviceaccounts:apps'] } }), undefined)
    assert.deepEqual(identity, { username: 'system:serviceaccount:apps:alice', groups: ['system:serviceaccounts:apps'], namespaces: ['apps'] })
  })

  test('a review that is not authenticated is a 401 even when it names a user', () => {
    const error = rejection(() => identityFromReview(review({ authenticated: false, user: { username: 'system:serviceaccount:apps:alice' } }), undefined))
    assert.equal(error.code, 'token_review_rejected')
    assert.equal(error.status, 401)
  })

  test('a review without status is a 401', () => {
    assert.equal(rejection(() => identityFromReview(review(undefined), undefined)).code, 'token_review_rejected')
  })

  test('with audiences configured, the review must confirm one of them', () => {
    const error = rejection(() => identityFromReview(review({ authenticated: true, audiences: ['https://kubernetes.default.svc'], user: { username: 'u' } }), ['feast']))
    assert.equal(error.code, 'token_review_rejected')
    assert.match(error.message, /audience/)
  })

  test('with audiences configured, an empty status.audiences (the API server\'s own) is refused', () => {
    assert.equal(rejection(() => identityFromReview(review({ authenticated: true, user: { username: 'u' } }), ['feast'])).code, 'token_review_rejected')
  })

  test('with audiences configured, a confirmed audience passes', () => {
    assert.equal(identityFromReview(review({ authenticated: true, audiences: ['feast'], user: { username: 'u' } }), ['other', 'feast']).username, 'u')
  })

  test('an authenticated review without a username is a 401', () => {
    assert.equal(rejection(() => identityFromReview(review({ authenticated: true, user: {} }), undefined)).code, 'missing_username')
  })
})
