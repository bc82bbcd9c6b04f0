import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { allowAll, decide, describeDecision, filterAllowed, permission, roleBasedPolicy, type Permission } from '../../src/permissions/index.ts'
import { FEAST_PERMISSIONS, FEAST_USERS, SECURED, user } from '../helpers/permission-cases.ts'

const driverView = { type: 'FeatureView', name: 'driver_stats' } as const

describe('decide: explanations', () => {
  test('a denial names the actions and the resource in its short message, and nothing about policies', () => {
    const decision = decide(FEAST_PERMISSIONS, FEAST_USERS.w, SECURED, ['DESCRIBE'])
    assert.equal(decision.message, 'Permission denied: [DESCRIBE] on FeatureView:secured')
    assert.doesNotMatch(decision.message, /reader/)
  })

  test('the full explanation names the denying permission, the actions, the resource and the missing roles', () => {
    const decision = decide(FEAST_PERMISSIONS, FEAST_USERS.w, SECURED, ['DESCRIBE'])
    assert.match(describeDecision(decision), /^Permission reader denied \[DESCRIBE\] on FeatureView:secured: requires roles \[reader\]/)
  })

  test('the full explanation says why each other permission did not apply', () => {
    const decision = decide(FEAST_PERMISSIONS, FEAST_USERS.w, SECURED, ['DESCRIBE'])
    assert.match(describeDecision(decision), /not applicable: writer \[actions did not match\]; special \[name_pattern did not match\]; entity_updater \[type did not match\]/)
  })

  test('when no permission applies the explanation says so', () => {
    const decision = decide(FEAST_PERMISSIONS, FEAST_USERS.rw, SECURED, ['DESCRIBE', 'UPDATE'])
    assert.match(describeDecision(decision), /^No permission applies to \[DESCRIBE, UPDATE\] on FeatureView:secured \(not applicable: reader \[actions did not match\]/)
  })

  test('an allowed decision names the permission that granted it', () => {
    const decision = decide(FEAST_PERMISSIONS, FEAST_USERS.rw, SECURED, ['UPDATE'])
    assert.equal(describeDecision(decision), 'Permission writer granted [UPDATE] on FeatureView:secured')
  })

  test('every policy kind explains what it requires', () => {
    const perms: Permission[] = [
      permission({ name: 'r', policy: roleBasedPolicy(['reader', 'admin']) }),
      permission({ name: 'g', policy: { kind: 'group', groups: ['eng'] } }),
      permission({ name: 'n', policy: { kind: 'namespace', namespaces: ['ns'] } }),
      permission({ name: 'c', policy: { kind: 'combined', groups: ['eng'], namespaces: ['ns'] } })
    ]
    const decision = decide(perms, user('u'), driverView, ['DESCRIBE'])
    assert.deepEqual(decision.explanation.map((v) => v.missing), [
      'requires roles [reader, admin]', 'requires groups [eng]', 'requires namespaces [ns]', 'requires groups [eng] or namespaces [ns]'
    ])
  })

  test('a verdict reports the policy outcome even for a permission that did not apply', () => {
    const decision = decide([permission({ name: 'entities', types: ['Entity'], policy: allowAll })], user('u'), driverView, ['DESCRIBE'])
    assert.deepEqual(decision.explanation, [{ permission: 'entities', applied: false, unmatched: ['type'], policyGranted: true }])
  })

  test('a granting verdict carries no missing requirement', () => {
    const decision = decide([permission({ name: 'r', policy: roleBasedPolicy(['reader']) })], FEAST_USERS.r, driverView, ['DESCRIBE'])
    assert.equal(Object.hasOwn(decision.explanation[0] ?? {}, 'missing'), false)
  })

  test('with no permissions the decision says so and explains nothing', () => {
    const decision = decide([], user('u'), driverView, ['DELETE'])
    assert.deepEqual([decision.allowed, decision.noPermissionsDefined, decision.explanation], [true, true, []])
    assert.equal(describeDecision(decision), 'No permissions defined: [DELETE] on FeatureView:driver_stats allowed for every authenticated user')
  })

  test('the decision carries the resource and actions it was asked about', () => {
    const decision = decide(FEAST_PERMISSIONS, FEAST_USERS.r, SECURED, ['DESCRIBE'])
    assert.deepEqual([decision.resource, decision.actions], [SECURED, ['DESCRIBE']])
  })

  test('an empty action list asks nothing of the actions, as in Feast', () => {
    const decision = decide([permission({ name: 'u', actions: ['UPDATE'], policy: roleBasedPolicy(['w']) })], user('u', ['w']), driverView, [])
    assert.equal(decision.allowed, true)
  })

  test('a hand-built permission object (not from permission()) is decided the same way', () => {
    const handBuilt: Permission = { name: 'hb', types: ['FeatureView'], namePatterns: ['driver_.*'], requiredTags: {}, actions: ['DESCRIBE'], policy: { kind: 'role', roles: ['reader'] } }
    assert.equal(decide([handBuilt], FEAST_USERS.r, { type: 'StreamFeatureView', name: 'driver_live' }, ['DESCRIBE']).allowed, true)
    assert.equal(decide([handBuilt], FEAST_USERS.r, { type: 'FeatureView', name: 'xdriver_live' }, ['DESCRIBE']).allowed, false)
  })
})

describe('filterAllowed: explanations of hidden resources', () => {
  const scoped = permission({ name: 'scoped', types: ['FeatureView'], namePatterns: 'team_.*', actions: ['DESCRIBE'], policy: roleBasedPolicy(['team']) })
  const everyone = permission({ name: 'everyone', types: ['FeatureView'], namePatterns: '.*', actions: ['DESCRIBE'], policy: allowAll })
  const teamView = { type: 'FeatureView', name: 'team_a' } as const

  test('a hidden resource carries the explanation of the permission that denied it', () => {
    const [hidden] = filterAllowed([scoped], user('u'), [teamView], ['DESCRIBE']).dropped
    assert.equal(describeDecision(hidden!.decision), 'Permission scoped denied [DESCRIBE] on FeatureView:team_a: requires roles [team]')
  })

  test('a hidden resource is explained by the permission list of the call, even when that list changes afterwards', () => {
    const permissions: Permission[] = [scoped]
    const result = filterAllowed(permissions, user('u'), [teamView], ['DESCRIBE'])
    permissions.push(everyone)
    assert.deepEqual(result.dropped[0]?.decision.explanation.map((verdict) => verdict.permission), ['scoped'])
  })

  test('a hidden resource is explained when its decision is first read, once, and not when the others are', () => {
    let reads = 0
    const counted = { type: 'FeatureView', get name () { reads++; return 'team_b' } } as const
    const result = filterAllowed([scoped], user('u'), [teamView, counted], ['DESCRIBE'])
    const filtering = reads
    assert.equal(result.dropped.length, 2)
    assert.equal(describeDecision(result.dropped[0]!.decision), 'Permission scoped denied [DESCRIBE] on FeatureView:team_a: requires roles [team]')
    assert.equal(reads, filtering, 'reading the first decision explained the second resource too')
    const decision = result.dropped[1]!.decision
    assert.ok(reads > filtering)
    assert.equal(result.dropped[1]!.decision, decision)
  })

  test('a hidden resource is explained by the principal\'s roles at the call, even when they change afterwards', () => {
    const roles: string[] = []
    const result = filterAllowed([scoped], { roles, groups: [], namespaces: [] }, [teamView], ['DESCRIBE'])
    roles.push('team')
    assert.equal(result.dropped[0]?.decision.allowed, false)
  })
})
