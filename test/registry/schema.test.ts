import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeRegistry } from '../../src/registry/decode.ts'
import { encodeRegistry } from '../../src/registry/encode.ts'
import { describeMessage, messageDescriptor, type FieldDescriptor } from '../../src/registry/schema.ts'
import { expectError } from '../helpers/errors.ts'

const message = (no: number): FieldDescriptor => ({ no, type: 'RoleBasedPolicy' })

describe('the registry schema\'s oneof groups', () => {
  it('make each member of Policy\'s policy_type unset the three others', () => {
    const siblings = messageDescriptor('Policy').byNumber.get(4)?.oneofSiblings
    assert.deepEqual(siblings, ['role_based_policy', 'namespace_based_policy', 'combined_group_namespace_policy'])
  })

  it('leave a field outside any oneof unsetting nothing', () => {
    assert.equal(messageDescriptor('Policy').byNumber.get(1)?.oneofSiblings, undefined)
  })

  it('are refused when only some of their members are declared', () => {
    expectError(() => describeMessage('Policy', { a: message(3) }, { kind: { a: 3, b: 4 } }),
      { message: 'registry schema: Policy.kind: declare every member of the oneof or none (b not declared)' })
  })

  it('are refused when a member is declared at another number', () => {
    expectError(() => describeMessage('Policy', { a: message(3), b: message(5) }, { kind: { a: 3, b: 4 } }),
      { message: 'registry schema: Policy.kind: b is field 5, the oneof says 4' })
  })

  it('are refused when a member\'s number is declared under another name', () => {
    expectError(() => describeMessage('Policy', { roles: message(3) }, { kind: { a: 3 } }),
      { message: 'registry schema: Policy.kind: field 3 is declared as roles, the oneof calls it a' })
  })

  it('are refused when a member is declared repeated, which protobuf does not allow', () => {
    expectError(() => describeMessage('Policy', { a: message(3), b: { no: 4, type: 'string', label: 'repeated' } }, { kind: { a: 3, b: 4 } }),
      { message: 'registry schema: Policy.kind: b is a repeated field, which a oneof cannot hold' })
  })

  it('need no declared member: a group of fields the schema skips changes nothing', () => {
    assert.equal(describeMessage('DataSource', { name: { no: 20, type: 'string' } }, { options: { file_options: 11 } }).oneofs.size, 0)
  })
})

describe('encoding a registry with oneofs', () => {
  const registry = (policy: Record<string, unknown>): Record<string, unknown> => ({
    projects: [{ spec: { name: 'demo' } }],
    permissions: [{ spec: { name: 'p', project: 'demo', actions: [1], policy } }]
  })

  it('writes the one member a policy holds, which decodes back', () => {
    const decoded = decodeRegistry(encodeRegistry(registry({ group_based_policy: { groups: ['g'] } })))
    assert.deepEqual(decoded.permissions?.[0]?.spec?.policy, { group_based_policy: { groups: ['g'] } })
  })

  it('refuses a policy given two members, which no protobuf message can hold', () => {
    expectError(() => encodeRegistry(registry({ role_based_policy: { roles: ['r'] }, group_based_policy: { groups: ['g'] } })), {
      type: TypeError,
      message: 'not a valid feast.core.Registry: Registry.permissions[0].spec.policy: role_based_policy and group_based_policy are members of the oneof policy_type, which holds one'
    })
  })
})
