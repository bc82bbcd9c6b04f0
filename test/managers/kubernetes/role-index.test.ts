import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { RoleBindingObject, RoleObject } from '../../../src/managers/kubernetes/rbac-objects.ts'
import { createRoleIndex, slimBinding, slimRole, type RolePolicy } from '../../../src/managers/kubernetes/role-index.ts'
import { feastRole, roleBinding, rulelessRole, type RoleBindingJson, type RoleJson } from '../../helpers/fake-kube-api.ts'

const sa = (namespace: string, name: string): { username: string, groups: string[] } => ({ username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] })
const STRICT: RolePolicy = { allowRulelessRoles: false, clusterRoles: [] }

/** An index of `bindings` with every Role of `roles` present. */
function indexOf (bindings: RoleBindingJson[], roles: RoleJson[] = [], policy: RolePolicy = STRICT): ReturnType<typeof createRoleIndex> {
  const index = createRoleIndex(policy)
  for (const role of roles) index.putRole(role.metadata.name, slimRole(role as unknown as RoleObject))
  for (const binding of bindings) index.putBinding(binding.metadata.name, slimBinding(binding as unknown as RoleBindingObject, 'feast'))
  return index
}

describe('role index', () => {
  test('a service account of another namespace bound in the service namespace gets the marked Role', () => {
    const index = indexOf([roleBinding('feast', 'b', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }])], [feastRole('feast', 'reader')])
    assert.deepEqual(index.rolesFor(sa('apps', 'alice')), ['reader'])
    assert.deepEqual(index.rolesFor(sa('other', 'alice')), [])
  })

  test('a ServiceAccount subject without namespace means the binding\'s namespace', () => {
    const index = indexOf([roleBinding('feast', 'b', 'reader', [{ kind: 'ServiceAccount', name: 'local' }])], [feastRole('feast', 'reader')])
    assert.deepEqual(index.rolesFor(sa('feast', 'local')), ['reader'])
  })

  test('User subjects match the username and Group subjects any group', () => {
    const index = indexOf([
      roleBinding('feast', 'u', 'writer', [{ kind: 'User', name: 'alice@example.com' }]),
      roleBinding('feast', 'g', 'reader', [{ kind: 'Group', name: 'data-science' }])
    ], [feastRole('feast', 'reader'), feastRole('feast', 'writer')])
    assert.deepEqual(index.rolesFor({ username: 'alice@example.com', groups: ['data-science'] }), ['reader', 'writer'])
    assert.deepEqual(index.rolesFor({ username: 'bob', groups: ['data-science'] }), ['reader'])
  })

  test('a User subject named as a service account grants it, as Kubernetes RBAC matches a User by username', () => {
    const index = indexOf([roleBinding('feast', 'b', 'reader', [{ kind: 'User', name: 'system:serviceaccount:apps:alice' }])], [feastRole('feast', 'reader')])
    assert.deepEqual(index.rolesFor(sa('apps', 'alice')), ['reader'])
    assert.deepEqual(index.rolesFor(sa('other', 'alice')), [])
  })

  test('a Group subject named as a service account grants nothing: it is no group of the account', () => {
    const index = indexOf([roleBinding('feast', 'b', 'reader', [{ kind: 'Group', name: 'system:serviceaccount:apps:alice' }])], [feastRole('feast', 'reader')])
    assert.deepEqual(index.rolesFor(sa('apps', 'alice')), [])
  })

  test('a ServiceAccount subject of another namespace grants the account of that namespace only', () => {
    const index = indexOf([roleBinding('feast', 'b', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'elsewhere' }])], [feastRole('feast', 'reader')])
    assert.deepEqual(index.rolesFor(sa('apps', 'alice')), [])
    assert.deepEqual(index.rolesFor(sa('feast', 'alice')), [])
    assert.deepEqual(index.rolesFor(sa('elsewhere', 'alice')), ['reader'])
  })

  test('a subject\'s apiGroup, and a namespace on a User or Group, change nothing, as RBAC\'s authorizer ignores them', () => {
    const index = indexOf([roleBinding('feast', 'b', 'reader', [
      { kind: 'User', name: 'u', apiGroup: '' },
      { kind: 'Group', name: 'g', namespace: 'elsewhere' },
      { kind: 'ServiceAccount', name: 'alice', namespace: 'apps', apiGroup: 'rbac.authorization.k8s.io' }
    ])], [feastRole('feast', 'reader')])
    assert.deepEqual(index.rolesFor({ username: 'u', groups: [] }), ['reader'])
    assert.deepEqual(index.rolesFor({ username: 'v', groups: ['g'] }), ['reader'])
    assert.deepEqual(index.rolesFor(sa('apps', 'alice')), ['reader'])
  })

  test('a subject of another kind grants nothing', () => {
    const index = indexOf([roleBinding('feast', 'b', 'reader', [{ kind: 'Team' as 'User', name: 'u' }])], [feastRole('feast', 'reader')])
    assert.deepEqual(index.rolesFor({ username: 'u', groups: ['u'] }), [])
  })

  test('a binding of another namespace is not kept', () => {
    assert.equal(slimBinding(roleBinding('elsewhere', 'b', 'admin', [{ kind: 'User', name: 'x' }]) as unknown as RoleBindingObject, 'feast'), undefined)
  })

  test('a marker for another role name does not count', () => {
    const role = { metadata: { name: 'reader', namespace: 'feast' }, rules: feastRole('feast', 'writer').rules }
    assert.equal(slimRole(role as unknown as RoleObject).marked, false)
  })

  test('a rule-less Role grants only with allowRulelessRoles', () => {
    const bindings = [roleBinding('feast', 'b', 'legacy', [{ kind: 'User', name: 'u' }])]
    assert.deepEqual(indexOf(bindings, [rulelessRole('feast', 'legacy')]).rolesFor({ username: 'u', groups: [] }), [])
    assert.deepEqual(indexOf(bindings, [rulelessRole('feast', 'legacy')], { ...STRICT, allowRulelessRoles: true }).rolesFor({ username: 'u', groups: [] }), ['legacy'])
  })

  test('a ClusterRole binding grants only when the ClusterRole is allowlisted', () => {
    const bindings = [roleBinding('feast', 'b', 'feast-viewer', [{ kind: 'User', name: 'u' }], 'ClusterRole')]
    assert.deepEqual(indexOf(bindings).rolesFor({ username: 'u', groups: [] }), [])
    assert.deepEqual(indexOf(bindings, [], { ...STRICT, clusterRoles: ['feast-viewer'] }).rolesFor({ username: 'u', groups: [] }), ['feast-viewer'])
  })

  test('deleting a binding or its Role takes the role away, and the key changes each time', () => {
    const index = indexOf([roleBinding('feast', 'b', 'reader', [{ kind: 'User', name: 'u' }]), roleBinding('feast', 'c', 'reader', [{ kind: 'User', name: 'u' }])], [feastRole('feast', 'reader')])
    const first = index.key
    index.deleteBinding('b')
    assert.notEqual(index.key, first)
    assert.deepEqual(index.rolesFor({ username: 'u', groups: [] }), ['reader'], 'the other binding still grants')
    index.deleteRole('reader')
    assert.deepEqual(index.rolesFor({ username: 'u', groups: [] }), [])
  })

  test('replacing bindings keeps unchanged ones without work and drops the missing ones', () => {
    const index = indexOf([roleBinding('feast', 'b', 'reader', [{ kind: 'User', name: 'u' }])], [feastRole('feast', 'reader')])
    const work = index.work
    index.replaceBindings(new Map([['b', slimBinding(roleBinding('feast', 'b', 'reader', [{ kind: 'User', name: 'u' }]) as unknown as RoleBindingObject, 'feast')!]]))
    assert.equal(index.work, work)
    index.replaceBindings(new Map())
    assert.deepEqual(index.rolesFor({ username: 'u', groups: [] }), [])
  })
})
