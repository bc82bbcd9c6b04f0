/** What a policy grants (src/permissions/policy.ts), and what that costs for principals with long claim lists. */
import assert from 'node:assert/strict'
import { cpuUsage } from 'node:process'
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
  // check a request makes (a listing checks each view against each permission).
  test('checking a policy costs about the same for a principal with 3000 roles as for one with a single role', () => {
    const policy = roleBasedPolicy(many('wanted', 5))
    const cost = (roles: string[]): number => {
      const principal = createPrincipal({ username: 'u', roles, source: 'oidc' })
      policyGrants(policy, principal)
      const started = cpuUsage()
      for (let i = 0; i < 50_000; i++) policyGrants(policy, principal)
      const { user, system } = cpuUsage(started)
      return user + system
    }
    const one = cost(['r'])
    const thousands = cost(many('r', 3000))
    // Scanning 3000 roles for each of 5 wanted ones is hundreds of times the cost; a lookup is about one.
    assert.ok(thousands < Math.max(one, 5000) * 5, `3000 roles: ${thousands} µs, one role: ${one} µs`)
  })
})
