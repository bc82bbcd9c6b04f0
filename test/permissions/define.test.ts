import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  ACTIONS, PermissionError, RESOURCE_TYPES, allowAll, combinedGroupNamespacePolicy, groupBasedPolicy, namespaceBasedPolicy, permission, roleBasedPolicy,
  type PermissionInput
} from '../../src/permissions/index.ts'

const reader = roleBasedPolicy(['reader'])

function errorOf (input: unknown): PermissionError {
  try {
    permission(input as PermissionInput)
  } catch (error) {
    assert.ok(error instanceof PermissionError, `expected a PermissionError, got ${String(error)}`)
    return error
  }
  assert.fail('expected permission() to throw')
}

describe('permission(): defaults and normalisation (Feast test_defaults, test_normalized_args)', () => {
  test('a permission without types covers every resource type', () => {
    assert.deepEqual(permission({ name: 'p', policy: reader }).types, RESOURCE_TYPES)
  })
  test('an empty types list also means every resource type', () => {
    assert.deepEqual(permission({ name: 'p', types: [], policy: reader }).types, RESOURCE_TYPES)
  })
  test('a permission without actions covers every action', () => {
    assert.deepEqual(permission({ name: 'p', policy: reader }).actions, ACTIONS)
  })
  test('a permission without name patterns or required tags has empty ones', () => {
    const p = permission({ name: 'p', policy: reader })
    assert.deepEqual(p.namePatterns, [])
    assert.deepEqual({ ...p.requiredTags }, {})
  })
  test('a single type, pattern and action become one-element lists', () => {
    const p = permission({ name: 'p', types: 'Entity', namePatterns: 'a_pattern', actions: 'CREATE', policy: reader })
    assert.deepEqual([p.types, p.namePatterns, p.actions], [['Entity'], ['a_pattern'], ['CREATE']])
  })
  test('name patterns are trimmed', () => {
    const p = permission({ name: 'p', namePatterns: ['   pattern1  ', '  pattern2', 'pattern3  '], policy: reader })
    assert.deepEqual(p.namePatterns, ['pattern1', 'pattern2', 'pattern3'])
  })
  test('required tag keys and values are trimmed', () => {
    const p = permission({ name: 'p', requiredTags: { ' team ': ' drivers ' }, policy: reader })
    assert.deepEqual({ ...p.requiredTags }, { team: 'drivers' })
  })
  test('action groups expand to their actions without duplicates', () => {
    const p = permission({ name: 'p', actions: ['READ', 'READ_ONLINE', 'CRUD'], policy: reader })
    assert.deepEqual(p.actions, ['READ_ONLINE', 'READ_OFFLINE', 'CREATE', 'DESCRIBE', 'UPDATE', 'DELETE'])
  })
  test('a tag called __proto__ is an ordinary required tag', () => {
    const p = permission({ name: 'p', requiredTags: JSON.parse('{"__proto__": "x"}') as Record<string, string>, policy: reader })
    assert.deepEqual(Object.keys(p.requiredTags), ['__proto__'])
    assert.equal(({} as Record<string, unknown>).x, undefined)
  })
  test('free tags are kept as metadata', () => {
    assert.deepEqual({ ...permission({ name: 'p', tags: { owner: 'me' }, policy: reader }).tags }, { owner: 'me' })
  })
  test('a built permission is frozen', () => {
    const p = permission({ name: 'p', types: ['Entity'], policy: reader })
    assert.ok(Object.isFrozen(p) && Object.isFrozen(p.types) && Object.isFrozen(p.actions) && Object.isFrozen(p.policy))
  })
  test('every valid combination of Feast test_validity builds', () => {
    for (const types of [undefined, [], [...RESOURCE_TYPES], ['FeatureView', 'FeatureService']] as const) {
      for (const actions of [['ALL_ACTIONS'], [...ACTIONS], ['CREATE', 'DELETE']] as const) {
        assert.equal(permission({ name: 'p', ...(types === undefined ? {} : { types }), actions, policy: reader }).name, 'p')
      }
    }
  })
})

describe('policy factories', () => {
  test('each factory builds the policy it names', () => {
    assert.deepEqual(roleBasedPolicy(['a']), { kind: 'role', roles: ['a'] })
    assert.deepEqual(groupBasedPolicy(['g']), { kind: 'group', groups: ['g'] })
    assert.deepEqual(namespaceBasedPolicy(['n']), { kind: 'namespace', namespaces: ['n'] })
    assert.deepEqual(combinedGroupNamespacePolicy(['g'], ['n']), { kind: 'combined', groups: ['g'], namespaces: ['n'] })
    assert.deepEqual(allowAll, { kind: 'allow_all' })
  })
  test('a factory given a bare string instead of a list is refused', () => {
    assert.throws(() => roleBasedPolicy('reader' as unknown as string[]), { name: 'PermissionError', message: 'roles: expected a list of strings, got "reader"' })
  })
  test('a factory given a non-string entry names its position', () => {
    assert.throws(() => groupBasedPolicy(['eng', 7 as unknown as string]), { message: 'groups[1]: expected a non-empty string, got 7' })
  })
})

describe('permission(): invalid definitions fail with the permission and field named', () => {
  const cases: readonly [string, unknown, string][] = [
    ['an empty name', { name: '  ', policy: reader }, 'name: expected a non-empty string, got "  "'],
    ['a missing name', { policy: reader }, 'name: expected a non-empty string, got nothing'],
    ['an unknown type', { name: 'p', types: ['FeatureView', 'FeatureViews'], policy: reader }, `permission "p": types[1]: unknown resource type "FeatureViews" (did you mean FeatureView?) (expected one of ${RESOURCE_TYPES.join(', ')})`],
    ['an unknown action', { name: 'p', actions: ['READ', 'PUSH'], policy: reader }, 'permission "p": actions[1]: unknown action "PUSH" (expected one of CREATE, DESCRIBE, UPDATE, DELETE, READ_ONLINE, READ_OFFLINE, WRITE_ONLINE, WRITE_OFFLINE, or a group ALL_ACTIONS, READ, WRITE, CRUD)'],
    ['an empty actions list', { name: 'p', actions: [], policy: reader }, 'permission "p": actions: must be a non-empty list of actions (omit it for all actions)'],
    ['null actions', { name: 'p', actions: null, policy: reader }, 'permission "p": actions: must be a non-empty list of actions (omit it for all actions)'],
    ['a missing policy', { name: 'p' }, 'permission "p": policy: a policy is required (e.g. roleBasedPolicy([\'reader\']) or allowAll)'],
    ['a policy given as a list', { name: 'p', policy: [] }, 'permission "p": policy: expected a policy object, got a list'],
    ['an unknown policy kind', { name: 'p', policy: { kind: 'roles', roles: ['a'] } }, 'permission "p": policy.kind: unknown policy kind "roles" (expected role, group, namespace, combined or allow_all)'],
    ['a hand-built policy with a bad list', { name: 'p', policy: { kind: 'combined', groups: ['g'], namespaces: 'n' } }, 'permission "p": policy.namespaces: expected a list of strings, got "n"'],
    ['a pattern that does not compile', { name: 'p', namePatterns: ['ok', 'driver_(.*'], policy: reader }, 'permission "p": namePatterns[1]: "driver_(.*" is not a valid regular expression (missing closing ): `driver_(.*`)'],
    ['a pattern with a backreference', { name: 'p', namePatterns: '(a)\\1', policy: reader }, 'permission "p": namePatterns[0]: "(a)\\\\1" uses backreferences (\\1, (?P=name)), which need a backtracking matcher: name patterns are matched in linear time (RE2 syntax), so a pattern cannot stall the server; rewrite it without them'],
    ['a pattern with a lookahead', { name: 'p', namePatterns: '(?!internal_).*', policy: reader }, 'permission "p": namePatterns[0]: "(?!internal_).*" uses lookahead and lookbehind assertions ((?=, (?!, (?<=, (?<!), which need a backtracking matcher: name patterns are matched in linear time (RE2 syntax), so a pattern cannot stall the server; rewrite it without them'],
    ['a pattern too large to match in bounded time', { name: 'p', namePatterns: '[a-z]{300}', policy: reader }, 'permission "p": namePatterns[0]: "[a-z]{300}" is too large: it compiles to 302 instructions, more than 256 (large counted repetitions such as {200} expand); simplify it'],
    ['a pattern whose nested counted repetitions expand too far', { name: 'p', namePatterns: '((a){0,40}){0,40}', policy: reader }, 'permission "p": namePatterns[0]: "((a){0,40}){0,40}" is too large: its nested counted repetitions expand past 1000 copies; simplify it'],
    ['a pattern that is not a string', { name: 'p', namePatterns: [3], policy: reader }, 'permission "p": namePatterns[0]: expected a regular expression string, got 3'],
    ['a required tag that is not a string', { name: 'p', requiredTags: { version: 2 }, policy: reader }, 'permission "p": requiredTags.version: expected a string value, got 2 (quote it in YAML)'],
    ['required tags given as a list', { name: 'p', requiredTags: ['a'], policy: reader }, 'permission "p": requiredTags: expected a mapping of tag names to string values, got a list'],
    ['an empty required tag name', { name: 'p', requiredTags: { ' ': 'x' }, policy: reader }, 'permission "p": requiredTags: a tag name is empty'],
    ['a free tag that is not a string', { name: 'p', tags: { a: null }, policy: reader }, 'permission "p": tags.a: expected a string value, got null'],
    ['an unknown field', { name: 'p', namePattern: 'x', policy: reader }, 'permission "p": namePattern: unknown field (expected name, types, namePatterns, requiredTags, actions, policy, tags)'],
    ['something that is not an object', 'p', 'expected a permission object, got "p"']
  ]
  for (const [what, input, message] of cases) {
    test(`${what} is refused`, () => {
      const error = errorOf(input)
      assert.equal(error.message, message)
    })
  }
  test('the error carries the permission name and the field', () => {
    const error = errorOf({ name: 'writers', actions: ['WRIT'], policy: reader })
    assert.deepEqual([error.permission, error.field, error.code], ['writers', 'actions[0]', 'FEAST_AUTHZ_PERMISSION'])
  })
})
