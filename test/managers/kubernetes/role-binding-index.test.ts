import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { V1RoleBinding } from '@kubernetes/client-node'
import { buildRoleIndex } from '../../../src/managers/kubernetes/role-binding-index.ts'
import { roleBinding, type RoleBindingJson } from '../../helpers/fake-kube-api.ts'

const bindings = (...list: RoleBindingJson[]): V1RoleBinding[] => list as unknown as V1RoleBinding[]
const sa = (namespace: string, name: string): { username: string, groups: string[] } => ({ username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] })

describe('RoleBinding index', () => {
  test('a service account of another namespace bound in the service namespace gets the Role', () => {
    const index = buildRoleIndex(bindings(roleBinding('feast', 'b', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }])), 'feast')
    assert.deepEqual(index.rolesFor(sa('apps', 'alice')), ['reader'])
  })

  test('a service account with the same name in another namespace does not', () => {
    const index = buildRoleIndex(bindings(roleBinding('feast', 'b', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }])), 'feast')
    assert.deepEqual(index.rolesFor(sa('other', 'alice')), [])
  })

  test('a ServiceAccount subject without namespace means the binding\'s namespace', () => {
    const index = buildRoleIndex(bindings(roleBinding('feast', 'b', 'reader', [{ kind: 'ServiceAccount', name: 'local' }])), 'feast')
    assert.deepEqual(index.rolesFor(sa('feast', 'local')), ['reader'])
  })

  test('User subjects match the username and Group subjects any group', () => {
    const index = buildRoleIndex(bindings(
      roleBinding('feast', 'u', 'writer', [{ kind: 'User', name: 'alice@example.com' }]),
      roleBinding('feast', 'g', 'reader', [{ kind: 'Group', name: 'data-science' }])
    ), 'feast')
    assert.deepEqual(index.rolesFor({ username: 'alice@example.com', groups: ['data-science'] }), ['reader', 'writer'])
    assert.deepEqual(index.rolesFor({ username: 'bob', groups: ['data-science'] }), ['reader'])
  })

  test('a binding of another namespace does not count', () => {
    const index = buildRoleIndex(bindings(roleBinding('elsewhere', 'b', 'admin', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }])), 'feast')
    assert.deepEqual(index.rolesFor(sa('apps', 'alice')), [])
  })

  test('a binding to a ClusterRole gives no Feast role', () => {
    const index = buildRoleIndex(bindings(roleBinding('feast', 'b', 'view', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }], 'ClusterRole')), 'feast')
    assert.deepEqual(index.rolesFor(sa('apps', 'alice')), [])
    assert.equal(index.size, 0)
  })
})
