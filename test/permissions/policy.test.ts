/** What a policy grants (src/permissions/policy.ts), and what that costs for principals with long claim lists. */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { combinedGroupNamespacePolicy, policyGrants, roleBasedPolicy } from '../../src/permissions/index.ts'
import { createPrincipal } from '../../src/base/principal.ts'

const many = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`)

describe('principals holding thousands of roles or groups', () => {
  test('a role at the end of a principal\'s 3000 roles is found, and one it does not hold is not', () => {
    const principal = createPrincipal({ username: 'u', roles: [...many('r', 2999), 'reader'], source: 'oidc' })
    assert.equal(policyGrants(roleBasedPolicy(['writer', 'reader']), principal), true)
    assert.equal(policyGrants(roleBasedPolicy(['writer']), principal), false)
  })

  test('a long list that is not frozen is read as it is now, not as it was when first checked', () => {
    const groups = many('g', 100)
    const subject = { roles: [], groups, namespaces: [] }
    const policy = combinedGroupNamespacePolicy(['late'], ['ns'])
    assert.equal(policyGrants(policy, subject), false)
    groups.push('late')
    assert.equal(policyGrants(policy, subject), true)
  })

  // A token's claims are the caller's: thousands of roles must not multiply the cost of every
  // check a request makes (a listing checks each view against each permission). Counted in reads
  // of the list's elements, not timed.
  test('a principal\'s 3000 roles are read once, to index them, and not again by later checks', () => {
    const principal = createPrincipal({ username: 'u', roles: many('r', 3000), source: 'oidc' })
    const roles = countingReads(principal.roles)
    const subject = { ...principal, roles: roles.list }
    const policy = roleBasedPolicy(many('wanted', 5))
    assert.equal(policyGrants(policy, subject), false)
    const indexing = roles.reads()
    assert.ok(indexing <= 3000, `the first check read ${indexing} roles`)
    for (let i = 0; i < 100; i++) assert.equal(policyGrants(policy, subject), false)
    assert.equal(roles.reads(), indexing, 'later checks read the roles again')
  })
})

/** A view of a (frozen) list that counts reads of its elements. */
function countingReads (list: readonly string[]): { readonly list: readonly string[], reads: () => number } {
  let reads = 0
  const counted = new Proxy(list, {
    get (target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++
      return Reflect.get(target, key, receiver) as unknown
    }
  })
  return { list: counted, reads: () => reads }
}
