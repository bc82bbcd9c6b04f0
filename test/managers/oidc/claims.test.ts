import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { principalFromClaims, USERNAME_CLAIMS } from '../../../src/managers/oidc/claims.ts'
import { AuthError } from '../../../src/base/errors.ts'

const CLIENT = 'feast-client'

const usernames: Array<[string, Record<string, unknown>, string]> = [
  ['preferred_username first', { preferred_username: 'p', upn: 'u', azp: 'a', appid: 'i', sub: 's' }, 'p'],
  ['upn when there is no preferred_username', { upn: 'u', azp: 'a', appid: 'i', sub: 's' }, 'u'],
  ['azp before appid and sub (app-only tokens)', { azp: 'a', appid: 'i', sub: 's' }, 'a'],
  ['appid before sub (Entra v1 app-only)', { appid: 'i', sub: 's' }, 'i'],
  ['sub last', { sub: 's' }, 's'],
  ['the next claim when one is null', { preferred_username: null, upn: 'u' }, 'u'],
  ['the next claim when one is a number', { preferred_username: 7, sub: 's' }, 's'],
  ['the next claim when one is an object or a list', { preferred_username: { v: 'x' }, upn: ['x'], sub: 's' }, 's'],
  ['the next claim when one is an empty string', { preferred_username: '', sub: 's' }, 's'],
  ['a username verbatim (case, spaces, unicode)', { preferred_username: 'Zoë Smith' }, 'Zoë Smith']
]

const roleCases: Array<[string, Record<string, unknown>, string | undefined, string[]]> = [
  ['client roles, then top-level roles', { resource_access: { [CLIENT]: { roles: ['a', 'b'] } }, roles: ['c'] }, CLIENT, ['a', 'b', 'c']],
  ['duplicates removed, first position kept', { resource_access: { [CLIENT]: { roles: ['b', 'a', 'b'] } }, roles: ['a', 'c', 'b'] }, CLIENT, ['b', 'a', 'c']],
  ['only top-level roles without a client_id', { resource_access: { [CLIENT]: { roles: ['a'] } }, roles: ['c'] }, undefined, ['c']],
  ['nothing from other clients', { resource_access: { other: { roles: ['a'] } } }, CLIENT, []],
  ['non-string entries dropped', { roles: ['a', 1, null, true, { n: 'x' }, ['y'], ''] }, CLIENT, ['a']],
  ['a string instead of a list ignored', { roles: 'admin', resource_access: { [CLIENT]: { roles: 'admin' } } }, CLIENT, []],
  ['resource_access of the wrong type ignored', { resource_access: ['x'], roles: ['c'] }, CLIENT, ['c']],
  ['a client entry of the wrong type ignored', { resource_access: { [CLIENT]: ['admin'] } }, CLIENT, []],
  ['realm_access, scope, scp and permissions not read', { realm_access: { roles: ['a'] }, scope: 'b', scp: ['c'], permissions: ['d'] }, CLIENT, []],
  ['case kept', { roles: ['Admin', 'admin', 'ADMIN'] }, CLIENT, ['Admin', 'admin', 'ADMIN']],
  ['client roles alone, in their order', { resource_access: { [CLIENT]: { roles: ['b', 'a'] } } }, CLIENT, ['b', 'a']],
  ['client roles alone, duplicates removed', { resource_access: { [CLIENT]: { roles: ['b', 'a', 'b'] } } }, CLIENT, ['b', 'a']],
  ['top-level roles alone, duplicates removed', { roles: ['a', 'a'] }, CLIENT, ['a']],
  ['an empty client list beside top-level roles', { resource_access: { [CLIENT]: { roles: [] } }, roles: ['c', 'd'] }, CLIENT, ['c', 'd']],
  ['a client list holding only non-strings beside top-level roles', { resource_access: { [CLIENT]: { roles: [1] } }, roles: ['c'] }, CLIENT, ['c']]
]

describe('principalFromClaims', () => {
  test('reads usernames from the claims Feast reads, in its order', () => {
    assert.deepEqual(USERNAME_CLAIMS, ['preferred_username', 'upn', 'azp', 'appid', 'sub'])
  })

  for (const [name, claims, expected] of usernames) {
    test(`username: ${name}`, () => {
      assert.equal(principalFromClaims(claims, CLIENT).username, expected)
    })
  }

  for (const [name, claims, clientId, expected] of roleCases) {
    test(`roles: ${name}`, () => {
      assert.deepEqual(principalFromClaims({ sub: 's', ...claims }, clientId).roles, expected)
    })
  }

  test('groups: read verbatim from the groups list, de-duplicated, non-strings dropped', () => {
    const principal = principalFromClaims({ sub: 's', groups: ['/team/a', 'b3a1c2d4-0000-1111-2222-333344445555', 5, '/team/a'] }, CLIENT)
    assert.deepEqual(principal.groups, ['/team/a', 'b3a1c2d4-0000-1111-2222-333344445555'])
  })

  test('groups: a groups claim that is not a list gives no groups', () => {
    assert.deepEqual(principalFromClaims({ sub: 's', groups: '/team/a' }, CLIENT).groups, [])
  })

  test('namespaces are never read from an OIDC token', () => {
    assert.deepEqual(principalFromClaims({ sub: 's', namespaces: ['feast'], namespace: 'feast' }, CLIENT).namespaces, [])
  })

  test('the principal is marked as coming from OIDC', () => {
    assert.equal(principalFromClaims({ sub: 's' }, CLIENT).source, 'oidc')
  })

  test('claims reached through the prototype chain are never read', () => {
    const payload = JSON.parse('{"__proto__": {"preferred_username": "admin", "roles": ["admin"]}, "sub": "user"}') as Record<string, unknown>
    const principal = principalFromClaims(payload, CLIENT)
    assert.equal(principal.username, 'user')
    assert.deepEqual(principal.roles, [])
  })

  test('a client_id naming an Object.prototype member finds no roles', () => {
    assert.deepEqual(principalFromClaims({ sub: 's', resource_access: {} }, 'constructor').roles, [])
  })

  test('no username claim is a 401 missing_username naming the claims expected', () => {
    assert.throws(() => principalFromClaims({ roles: ['admin'], preferred_username: null }, CLIENT), (error: unknown) => {
      assert.ok(error instanceof AuthError)
      assert.equal(error.code, 'missing_username')
      assert.equal(error.status, 401)
      assert.match(error.message, /preferred_username, upn, azp, appid, sub/)
      return true
    })
  })

  test('the principal and its lists are frozen', () => {
    const principal = principalFromClaims({ sub: 's', roles: ['a'] }, CLIENT)
    assert.ok(Object.isFrozen(principal))
    assert.ok(Object.isFrozen(principal.roles))
  })

  test('the lists are frozen however they were read: one claim, two merged, filtered or de-duplicated', () => {
    const payloads = [
      { sub: 's', roles: ['a'], groups: ['g'] },
      { sub: 's', resource_access: { [CLIENT]: { roles: ['a'] } }, roles: ['b'], groups: ['g', 'g'] },
      { sub: 's', roles: ['a', 7], groups: ['g', null] }
    ]
    for (const payload of payloads) {
      const principal = principalFromClaims(payload, CLIENT)
      assert.ok(Object.isFrozen(principal.roles) && Object.isFrozen(principal.groups), JSON.stringify(payload))
      assert.throws(() => { (principal.roles as string[]).push('admin') }, TypeError)
    }
  })
})
