import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { isNamespaceName, isRbacName, isStoreName } from '../../src/operator/kube-names.ts'

describe('Kubernetes names of a store', () => {
  test('a namespace is a lower-case DNS label of at most 63 characters: no dot, no colon', () => {
    assert.deepEqual(['team-a', 'n'.repeat(63), 'n'.repeat(64), 'team.a', 'team:a', 'Team-a', '-team', '', 7].map(isNamespaceName), [true, true, false, false, false, false, false, false, false])
  })

  test('a store name is a lower-case DNS subdomain short enough for a label value: dots, but no colon and at most 63 characters', () => {
    assert.deepEqual(['prod', 'prod.eu', 's'.repeat(63), 's'.repeat(64), 'a:b', 'Prod', 'prod.', '', null].map(isStoreName), [true, true, true, false, false, false, false, false, false])
  })

  test('a Role\'s name is a path segment: upper case, colons and underscores, but not empty, . or .., and no / or %', () => {
    assert.deepEqual(['readers', 'Feast_Readers', 'a:b', '...', '', '.', '..', 'a/b', '50%', 7].map(isRbacName), [true, true, true, true, false, false, false, false, false, false])
  })
})
