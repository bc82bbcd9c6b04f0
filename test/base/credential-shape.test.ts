import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { mayBeCredential, pathForMessage, quotedUnlessCredential, unmatchedName } from '../../src/base/credential-shape.ts'

const JWT = 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImtleS0xIn0.eyJzdWIiOiJhbGljZSIsImF1ZCI6ImZlYXN0In0.c2lnbmF0dXJl'

describe('mayBeCredential', () => {
  for (const [kind, text] of [
    ['a JWT', JWT],
    ['a GitHub token', 'ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5'],
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['a Google access token', 'ya29.a0AfH6SMBx3k9Qz7Lw2Vn5Rt8Yp1Jc4Hd6Fg'],
    ['a 40-digit hex secret', '3f2a9c1b7e4d8f0a6b5c2e1d9f8a7b6c5d4e3f2a'],
    ['a token pasted after a directory', `/tmp/${JWT}`]
  ]) {
    test(`${kind} may be one`, () => { assert.equal(mayBeCredential(text as string), true) })
  }

  for (const [kind, text] of [
    ['a file name', 'feature_store.yaml'],
    ['a relative path', '../client/feature_store.yaml'],
    ['the service-account token path', '/var/run/secrets/kubernetes.io/serviceaccount/token'],
    ['a temporary directory of mkdtemp', '/tmp/feast-authz-demo-oHiOHh/feature_store.yaml'],
    ['an action name', 'READ_ONLINE'],
    ['Feast\'s enum spelling of an action', 'AuthzedAction.READ_ONLINE'],
    ['a resource', 'FeatureView:driver_hourly_stats_2024'],
    ['a long name without digits', 'featurestoreconfigurationforproduction']
  ]) {
    test(`${kind} is not one`, () => { assert.equal(mayBeCredential(text as string), false) })
  }
})

describe('pathForMessage and quotedUnlessCredential', () => {
  test('a path is shown as given', () => {
    assert.equal(pathForMessage('permissions.yml'), 'permissions.yml')
  })

  test('a path shaped like a token is told by its length only', () => {
    assert.equal(pathForMessage(JWT), `<a path of ${JWT.length} characters, not shown: it may be a token>`)
  })

  test('a name is quoted as describeValue quotes it', () => {
    assert.equal(quotedUnlessCredential('READ,DESCRIBE'), '"READ,DESCRIBE"')
  })

  test('a name shaped like a token is told by its length only', () => {
    assert.equal(quotedUnlessCredential(JWT), `a string of ${JWT.length} characters (not shown: it may be a token)`)
  })
})

describe('unmatchedName', () => {
  test('quotes a name and guesses the nearest known one', () => {
    assert.equal(unmatchedName('dmeo', ['demo', 'other']), '"dmeo" (did you mean demo?)')
  })

  test('quotes a name with nothing near it, guessing nothing', () => {
    assert.equal(unmatchedName('fraud', ['credit_scoring_aws']), '"fraud"')
  })

  test('neither shows nor guesses at a name shaped like a token', () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwYXQifQ.c2lnbmF0dXJlLW5vdC10by1lY2hv'
    assert.equal(unmatchedName(token, [token.slice(0, -1)]), `a string of ${token.length} characters (not shown: it may be a token)`)
  })
})
