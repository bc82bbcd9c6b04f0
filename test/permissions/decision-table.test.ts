import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { decide, filterAllowed, type Resource } from '../../src/permissions/index.ts'
import { DECISION_CASES, FILTER_CASES } from '../helpers/permission-cases.ts'

describe('decide: the decision table', () => {
  test('every case has a unique name', () => {
    const names = DECISION_CASES.map((c) => `${c.group}: ${c.name}`)
    assert.equal(new Set(names).size, names.length)
  })

  for (const c of DECISION_CASES) {
    test(`${c.group}: ${c.name}`, () => {
      const decision = decide(c.permissions, c.principal, c.resource, c.actions)
      assert.equal(decision.allowed, c.allowed)
      assert.equal(decision.noPermissionsDefined, c.noPermissionsDefined ?? false)
      assert.equal(decision.explanation.length, c.permissions.length)
      for (const [name, parts] of Object.entries(c.unmatched ?? {})) {
        const verdict = decision.explanation.find((v) => v.permission === name)
        assert.ok(verdict !== undefined, `no verdict for permission ${name}`)
        assert.deepEqual(verdict.unmatched, parts)
        assert.equal(verdict.applied, parts.length === 0)
      }
    })
  }
})

describe('filterAllowed: the filter table', () => {
  test('every case has a unique name', () => {
    const names = FILTER_CASES.map((c) => c.name)
    assert.equal(new Set(names).size, names.length)
  })

  for (const c of FILTER_CASES) {
    test(`${c.group}: ${c.name}`, () => {
      const result = filterAllowed(c.permissions, c.principal, c.resources, c.actions)
      if ('refused' in c.expected) {
        assert.equal(result.refused?.resource.name, c.expected.refused)
        assert.equal(result.refused.decision.allowed, false)
        assert.deepEqual(result.allowed, [])
      } else {
        assert.equal(result.refused, undefined, `refused on ${result.refused?.resource.name ?? ''}`)
        assert.deepEqual(result.allowed.map((r) => r.name), c.expected.allowed)
      }
    })
  }

  for (const c of FILTER_CASES) {
    test(`${c.group}: ${c.name}: every denied resource carries the decision decide gives it`, () => {
      const result = filterAllowed(c.permissions, c.principal, c.resources, c.actions)
      const denied = [...result.dropped, ...(result.refused === undefined ? [] : [result.refused])]
      for (const { resource, decision } of denied) {
        assert.deepEqual(decision, decide(c.permissions, c.principal, resource, c.actions))
      }
      if (result.refused === undefined) {
        assert.deepEqual([...result.allowed, ...result.dropped.map(({ resource }) => resource)].sort(byName), [...c.resources].sort(byName))
      }
    })
  }
})

const byName = (a: Resource, b: Resource): number => `${a.type}:${a.name}`.localeCompare(`${b.type}:${b.name}`)
