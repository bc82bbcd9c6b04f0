import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { Evaluation } from '../../src/permissions/evaluate.ts'
import {
  allowAll, decide, filterAllowed, permission, roleBasedPolicy,
  type Action, type Decision, type Permission, type Resource, type ResourceType
} from '../../src/permissions/index.ts'
import { user } from '../helpers/permission-cases.ts'

// Small pools, so that random lists often apply, overlap and share types.
const TYPES: readonly ResourceType[] = ['FeatureView', 'BatchFeatureView', 'OnDemandFeatureView', 'Entity']
const ROLES = ['r1', 'r2'] as const
const REQUESTED: readonly Action[] = ['DESCRIBE', 'UPDATE', 'READ_ONLINE']

const permissionArb = fc.record({
  types: fc.subarray([...TYPES]),
  namePatterns: fc.subarray(['a.*', '.*b', 'ab', 'x|a.', 'b']),
  requiredTags: fc.subarray(['k', 'j']).map((keys) => Object.fromEntries(keys.map((key) => [key, '1']))),
  actions: fc.subarray([...REQUESTED], { minLength: 1 }),
  policy: fc.oneof(fc.constant(allowAll), fc.subarray([...ROLES]).map((roles) => roleBasedPolicy(roles)))
})
const permissionsArb = fc.array(permissionArb, { maxLength: 8 }).map((inputs) => Object.freeze(inputs.map((input, i) => permission({ name: `p${i}`, ...input }))))
const resourceArb: fc.Arbitrary<Resource> = fc.record({
  type: fc.constantFrom(...TYPES),
  name: fc.constantFrom('a', 'ab', 'b', 'xb', 'abc'),
  tags: fc.subarray(['k', 'j']).map((keys) => Object.fromEntries(keys.map((key) => [key, '1'])))
})
const principalArb = fc.subarray([...ROLES]).map((roles) => user('u', roles))
const actionsArb = fc.subarray([...REQUESTED], { minLength: 1 })
const someArb = permissionsArb.filter((list) => list.length > 0)

const grantingIndex = (decision: Decision): number => decision.explanation.findIndex((verdict) => verdict.applied && verdict.policyGranted)

/** Feast's filter rule, read off a denial's explanation (every part of every permission judged). */
function hiddenByExplanation (permissions: readonly Permission[], decision: Decision): boolean {
  const last = decision.explanation.findLastIndex((verdict) => verdict.applied)
  if (last >= 0) return permissions[last]!.namePatterns.length > 0
  return decision.explanation.some((verdict, i) => !verdict.unmatched.includes('type') && permissions[i]!.namePatterns.length > 0)
}

describe('the evaluation agrees with the explanation, for arbitrary permissions and resources', () => {
  test('decide allows exactly when its explanation shows an applicable permission that grants', () => {
    fc.assert(fc.property(permissionsArb, principalArb, resourceArb, actionsArb, (permissions, principal, resource, actions) => {
      const decision = decide(permissions, principal, resource, actions)
      assert.equal(decision.allowed, permissions.length === 0 || grantingIndex(decision) >= 0)
    }), { numRuns: 500 })
  })

  test('the granting permission is the first one the explanation shows applying and granting', () => {
    fc.assert(fc.property(someArb, principalArb, resourceArb, actionsArb, (permissions, principal, resource, actions) => {
      const granting = new Evaluation(permissions, principal, actions).granting(resource)
      assert.equal(granting, grantingIndex(decide(permissions, principal, resource, actions)))
    }), { numRuns: 500 })
  })

  test('filterAllowed keeps, hides and refuses as the filter rule read off each explanation says', () => {
    fc.assert(fc.property(someArb, principalArb, fc.array(resourceArb, { maxLength: 6 }), actionsArb, (permissions, principal, resources, actions) => {
      const expected: { allowed: Resource[], hidden: Resource[], refused?: Resource } = { allowed: [], hidden: [] }
      for (const resource of resources) {
        const decision = decide(permissions, principal, resource, actions)
        if (decision.allowed) expected.allowed.push(resource)
        else if (hiddenByExplanation(permissions, decision)) expected.hidden.push(resource)
        else { expected.refused = resource; expected.allowed = []; break }
      }
      const result = filterAllowed(permissions, principal, resources, actions)
      assert.deepEqual(
        { allowed: result.allowed, hidden: result.dropped.map(({ resource }) => resource), refused: result.refused?.resource },
        { allowed: expected.allowed, hidden: expected.hidden, refused: expected.refused }
      )
    }), { numRuns: 500 })
  })
})

describe('the evaluation of a permission list that changes', () => {
  const readers = permission({ name: 'readers', types: ['FeatureView'], actions: ['DESCRIBE'], policy: roleBasedPolicy(['reader']) })
  const entities = permission({ name: 'entities', types: ['Entity'], actions: ['DESCRIBE'], policy: allowAll })
  const view: Resource = { type: 'FeatureView', name: 'v' }
  const reader = user('r', ['reader'])

  test('a list that is not frozen is judged as it is at each call, not as it was when first seen', () => {
    const permissions: Permission[] = [entities]
    assert.equal(new Evaluation(permissions, reader, ['DESCRIBE']).granting(view), -1)
    permissions.push(readers)
    assert.equal(new Evaluation(permissions, reader, ['DESCRIBE']).granting(view), 1)
  })

  test('each frozen list, as a reloading registry hands them out, is judged by its own permissions', () => {
    const before = Object.freeze([entities])
    const after = Object.freeze([entities, readers])
    for (let round = 0; round < 2; round++) {
      assert.equal(new Evaluation(before, reader, ['DESCRIBE']).granting(view), -1)
      assert.equal(new Evaluation(after, reader, ['DESCRIBE']).granting(view), 1)
    }
  })

  test('a hand-built permission with an invalid pattern fails the first evaluation, whatever the resource', () => {
    const broken: Permission = { name: 'broken', types: ['Entity'], namePatterns: ['('], requiredTags: {}, actions: ['DESCRIBE'], policy: allowAll }
    assert.throws(() => new Evaluation([readers, broken], reader, ['DESCRIBE']).granting(view), /name_patterns\[0\]/)
  })
})
