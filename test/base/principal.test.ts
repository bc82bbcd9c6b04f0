import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ANONYMOUS, createPrincipal, principalToJSON } from '../../src/base/principal.ts'

describe('createPrincipal', () => {
  test('keeps the first occurrence of each name, in order, in every list', () => {
    const principal = createPrincipal({ username: 'ana', roles: ['b', 'a', 'b'], groups: ['g', 'g'], namespaces: ['n', 'm', 'n'], source: 'kubernetes' })
    assert.deepEqual(principalToJSON(principal), { username: 'ana', roles: ['b', 'a'], groups: ['g'], namespaces: ['n', 'm'], source: 'kubernetes' })
  })

  test('copies the lists it is given: the caller\'s arrays stay its own, unfrozen', () => {
    const roles = ['reader']
    const principal = createPrincipal({ username: 'ana', roles, source: 'oidc' })
    assert.notEqual(principal.roles, roles)
    assert.equal(Object.isFrozen(roles), false)
    roles.push('admin')
    assert.deepEqual(principal.roles, ['reader'])
  })

  test('with ownsLists, freezes a list without duplicates as it is instead of copying it', () => {
    const roles = ['reader', 'writer']
    const principal = createPrincipal({ username: 'ana', roles, source: 'oidc' }, true)
    assert.equal(principal.roles, roles)
    assert.ok(Object.isFrozen(roles))
  })

  test('with ownsLists, still removes duplicates, into a list of its own', () => {
    const roles = ['reader', 'reader']
    const principal = createPrincipal({ username: 'ana', roles, source: 'oidc' }, true)
    assert.deepEqual(principal.roles, ['reader'])
    assert.ok(Object.isFrozen(principal.roles))
  })

  test('de-duplicates a long list (past the scan, through a set) in order', () => {
    const names = Array.from({ length: 40 }, (_, index) => `r${index % 20}`)
    for (const owns of [false, true]) {
      assert.deepEqual(createPrincipal({ username: 'ana', roles: names, source: 'oidc' }, owns).roles, names.slice(0, 20))
    }
  })

  test('gives the principal and every list frozen, empty lists included', () => {
    const principal = createPrincipal({ username: 'ana', source: 'oidc' })
    assert.ok(Object.isFrozen(principal))
    for (const list of [principal.roles, principal.groups, principal.namespaces]) {
      assert.deepEqual(list, [])
      assert.ok(Object.isFrozen(list))
    }
  })

  test('the anonymous principal is frozen and comes from no_auth', () => {
    assert.ok(Object.isFrozen(ANONYMOUS))
    assert.equal(ANONYMOUS.source, 'no_auth')
  })
})
