import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import {
  PermissionError, decide, loadPermissionsFile, parsePermissionsYaml, permissionsToYaml
} from '../../src/permissions/index.ts'
import { DECISION_CASES, FEAST_PERMISSIONS } from '../helpers/permission-cases.ts'

const FIXTURES = new URL('../../fixtures/permissions/', import.meta.url)
const fixture = (name: string): string => new URL(name, FIXTURES).pathname

function errorOf (text: string): PermissionError {
  try {
    parsePermissionsYaml(text, 'perms.yaml')
  } catch (error) {
    assert.ok(error instanceof PermissionError, `expected a PermissionError, got ${String(error)}`)
    return error
  }
  assert.fail('expected the YAML to be refused')
}

describe('permissions YAML: reading', () => {
  test('the sample file loads with every policy form', () => {
    const permissions = loadPermissionsFile(fixture('sample.yaml'))
    assert.deepEqual(permissions.map((p) => p.policy.kind), ['role', 'role', 'group', 'namespace', 'combined', 'allow_all'])
  })

  test('snake_case fields map onto the permission', () => {
    const [p] = parsePermissionsYaml('- name: r\n  types: [FeatureView]\n  name_patterns: ["driver_.*"]\n  required_tags: {team: drivers}\n  actions: [READ]\n  policy: {role_based_policy: {roles: [reader]}}\n')
    assert.deepEqual(p && { ...p, requiredTags: { ...p.requiredTags } }, {
      name: 'r', types: ['FeatureView'], namePatterns: ['driver_.*'], requiredTags: { team: 'drivers' }, actions: ['READ_ONLINE', 'READ_OFFLINE'], policy: { kind: 'role', roles: ['reader'] }
    })
  })

  test('an explicit empty list means no permissions', () => {
    assert.deepEqual(loadPermissionsFile(fixture('empty-list.yaml')), [])
  })

  test("Feast's test permissions written as YAML decide every Feast case the same way", () => {
    const fromYaml = loadPermissionsFile(fixture('feast-conftest.yaml'))
    const feastCases = DECISION_CASES.filter((c) => c.permissions === FEAST_PERMISSIONS)
    assert.ok(feastCases.length > 20)
    for (const c of feastCases) {
      assert.equal(decide(fromYaml, c.principal, c.resource, c.actions).allowed, c.allowed, c.name)
    }
  })

  test('permissionsToYaml writes a file that reads back to the same decisions', () => {
    for (const c of DECISION_CASES) {
      const again = parsePermissionsYaml(permissionsToYaml(c.permissions))
      assert.equal(decide(again, c.principal, c.resource, c.actions).allowed, c.allowed, c.name)
    }
  })
})

describe('permissions YAML: errors name the file, line, index, permission and field', () => {
  const cases: readonly [string, string, string][] = [
    ['an unknown action', '- name: a\n  policy: {allow_all: true}\n- name: writers\n  actions: [DESCRIBE, WRIT_ONLINE]\n  policy: {allow_all: true}\n',
      'perms.yaml:4:23: permission [1] "writers": actions[1]: unknown action "WRIT_ONLINE" (did you mean WRITE_ONLINE?) (expected one of CREATE, DESCRIBE, UPDATE, DELETE, READ_ONLINE, READ_OFFLINE, WRITE_ONLINE, WRITE_OFFLINE, or a group ALL_ACTIONS, READ, WRITE, CRUD)'],
    ['an unknown type', '- name: t\n  types: [FeatureVeiw]\n  policy: {allow_all: true}\n',
      'perms.yaml:2:11: permission [0] "t": types[0]: unknown resource type "FeatureVeiw" (did you mean FeatureView?) (expected one of Project, FeatureView, OnDemandFeatureView, BatchFeatureView, StreamFeatureView, LabelView, Entity, FeatureService, DataSource, ValidationReference, SavedDataset, Permission)'],
    ['empty actions', '- name: e\n  actions: []\n  policy: {allow_all: true}\n', 'perms.yaml:2:3: permission [0] "e": actions: must be a non-empty list of actions (omit it for all actions)'],
    ['a missing policy', '- name: m\n  actions: [DESCRIBE]\n', 'perms.yaml:1:3: permission [0] "m": policy: a policy is required: one of role_based_policy, group_based_policy, namespace_based_policy, combined_group_namespace_policy, allow_all'],
    ['a regex that does not compile', '- name: x\n  name_patterns: ["ok", "driver_[a-"]\n  policy: {allow_all: true}\n',
      'perms.yaml:2:25: permission [0] "x": name_patterns[1]: "driver_[a-" is not a valid regular expression (missing closing ]: `[a-`)'],
    ['a tag that is not a string', '- name: t\n  required_tags: {version: 2}\n  policy: {allow_all: true}\n', 'perms.yaml:2:19: permission [0] "t": required_tags.version: expected a string value, got 2 (quote it in YAML)'],
    ['an unknown field', '- name: u\n  name_pattern: x\n  policy: {allow_all: true}\n', 'perms.yaml:2:3: permission [0] "u": name_pattern: unknown field (did you mean name_patterns?) (expected one of name, types, name_patterns, required_tags, actions, policy, tags)'],
    ['a __proto__ field', '- name: u\n  __proto__: {polluted: true}\n  policy: {allow_all: true}\n', 'perms.yaml:2:3: permission [0] "u": __proto__: unknown field (expected one of name, types, name_patterns, required_tags, actions, policy, tags)'],
    ['a missing name', '- actions: [DESCRIBE]\n  policy: {allow_all: true}\n', 'perms.yaml:1:3: permission [0]: name: expected a non-empty string, got nothing'],
    ['a duplicate name', '- name: d\n  policy: {allow_all: true}\n- name: d\n  policy: {allow_all: true}\n', 'perms.yaml:3:3: permission [1] "d": name: duplicate permission name (also used by permission [0])'],
    ['two policies', '- name: two\n  policy:\n    role_based_policy: {roles: [a]}\n    group_based_policy: {groups: [b]}\n',
      'perms.yaml:2:3: permission [0] "two": policy: expected exactly one policy (one of role_based_policy: {roles}, group_based_policy: {groups}, namespace_based_policy: {namespaces}, combined_group_namespace_policy: {groups, namespaces}, allow_all: true), got role_based_policy, group_based_policy'],
    ['an unknown policy', '- name: up\n  policy: {roles_policy: {roles: [a]}}\n', 'perms.yaml:2:12: permission [0] "up": policy.roles_policy: unknown policy (expected one of role_based_policy: {roles}, group_based_policy: {groups}, namespace_based_policy: {namespaces}, combined_group_namespace_policy: {groups, namespaces}, allow_all: true)'],
    ['a policy\'s list written straight under policy', '- name: rl\n  policy: {roles: [a]}\n', 'perms.yaml:2:12: permission [0] "rl": policy.roles: unknown policy (did you mean role_based_policy: { roles: [...] }?) (expected one of role_based_policy: {roles}, group_based_policy: {groups}, namespace_based_policy: {namespaces}, combined_group_namespace_policy: {groups, namespaces}, allow_all: true)'],
    ['a misspelt policy', '- name: mp\n  policy: {role_based_polcy: {roles: [a]}}\n', 'perms.yaml:2:12: permission [0] "mp": policy.role_based_polcy: unknown policy (did you mean role_based_policy?) (expected one of role_based_policy: {roles}, group_based_policy: {groups}, namespace_based_policy: {namespaces}, combined_group_namespace_policy: {groups, namespaces}, allow_all: true)'],
    ['type for types', '- name: ty\n  type: [FeatureView]\n  policy: {allow_all: true}\n', 'perms.yaml:2:3: permission [0] "ty": type: unknown field (did you mean types?) (expected one of name, types, name_patterns, required_tags, actions, policy, tags)'],
    ['a policy with a missing list', '- name: ml\n  policy: {combined_group_namespace_policy: {groups: [a]}}\n', 'perms.yaml:2:12: permission [0] "ml": policy.combined_group_namespace_policy.namespaces: is required: a list of strings (an empty list grants nothing)'],
    ['a policy with an unknown field', '- name: uf\n  policy: {role_based_policy: {role: [a]}}\n', 'perms.yaml:2:32: permission [0] "uf": policy.role_based_policy.role: unknown field (did you mean roles?) (expected roles)'],
    ['a role that is not a string', '- name: rn\n  policy:\n    role_based_policy:\n      roles: [reader, 42]\n', 'perms.yaml:4:23: permission [0] "rn": policy.role_based_policy.roles[1]: expected a non-empty string, got 42'],
    ['allow_all that is not true', '- name: aa\n  policy: {allow_all: yes}\n', 'perms.yaml:2:12: permission [0] "aa": policy.allow_all: expected true, got "yes"'],
    ['an item that is not a mapping', '- just-a-name\n', 'perms.yaml:1:3: permission [0]: expected a mapping with name, types, name_patterns, required_tags, actions and policy, got "just-a-name"'],
    ['a mapping at the top', 'permissions: []\n', 'perms.yaml:1:1: expected a list of permissions at the top of the file, got a mapping'],
    ['a feature_store.yaml given as the permissions file', 'project: demo\nauth:\n  type: no_auth\n', 'perms.yaml:1:1: expected a list of permissions at the top of the file, got a mapping (this reads as a feature_store.yaml; a permissions file is a list: - name: readers ..., see docs/permissions.md)'],
    ['an empty file', '# nothing\n', 'perms.yaml: the file is empty: expected a list of permissions (write [] for none, which allows every authenticated user)'],
    ['a duplicate key', '- name: a\n  name: b\n  policy: {allow_all: true}\n', 'perms.yaml:2:3: invalid YAML: duplicate key'],
    ['broken YAML', '- name: [a\n', 'perms.yaml:2:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]']
  ]
  for (const [what, text, message] of cases) {
    test(`${what} is refused`, () => {
      assert.equal(errorOf(text).message, message)
    })
  }

  test('the error carries the source, index, permission and field', () => {
    const error = errorOf('- name: a\n  policy: {allow_all: true}\n- name: w\n  actions: [NOPE]\n  policy: {allow_all: true}\n')
    assert.deepEqual([error.source, error.index, error.permission, error.field], ['perms.yaml', 1, 'w', 'actions[0]'])
  })

  test('an alias bomb is refused instead of expanded', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]']
    for (let i = 1; i < 8; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`)
    const error = errorOf(`- name: bomb\n  tags:\n${lines.map((l) => `    ${l}`).join('\n')}\n  policy: {allow_all: true}\n`)
    assert.match(error.message, /^perms\.yaml: invalid YAML: .*alias/i)
  })

  test('a value YAML reads as a tag or a directive is refused without being shown', () => {
    for (const text of ['- name: t\n  name_patterns: !do-not-print-me\n  policy: {allow_all: true}\n', '%do-not-print-me\n---\n[]\n']) {
      const { message } = errorOf(text)
      assert.match(message, /invalid YAML: unknown or invalid tag|invalid YAML: unknown directive/)
      assert.doesNotMatch(message, /do-not-print-me/)
    }
  })

  test('YAML type tags cannot build objects', () => {
    assert.match(errorOf('- name: t\n  policy: !!js/function "x"\n').message, /^perms\.yaml:2:11: invalid YAML: unknown or invalid tag \(a value starting with ! is a tag: put the value in quotes if it is not meant as one\)$/)
  })
})

describe('permissions YAML: files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'feast-authz-perms-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('a missing file is named with the reason', () => {
    assert.throws(() => loadPermissionsFile(join(dir, 'nope.yaml')), { name: 'PermissionError', message: `${join(dir, 'nope.yaml')}: cannot read the permissions file: file not found` })
  })

  test('a directory is refused', () => {
    assert.throws(() => loadPermissionsFile(dir), { message: `${dir}: cannot read the permissions file: is a directory, expected a file` })
  })

  test('errors in a file name its path', () => {
    assert.throws(() => loadPermissionsFile(fixture('invalid-unknown-action.yaml')), {
      message: /invalid-unknown-action\.yaml:8:23: permission \[1\] "writers": actions\[1\]: unknown action "WRIT_ONLINE"/
    })
  })

  test('a file that holds one string (a token file named by mistake) is refused by its kind, never quoted', () => {
    const path = join(dir, 'token')
    writeFileSync(path, 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.do-not-print-me\n')
    assert.throws(() => loadPermissionsFile(path), { message: `${path}:1:1: expected a list of permissions at the top of the file, got a string` })
  })

  test('a file larger than 1 MiB is refused before parsing', () => {
    const path = join(dir, 'big.yaml')
    writeFileSync(path, `# ${'x'.repeat(1024 * 1024)}\n[]\n`)
    assert.throws(() => loadPermissionsFile(path), { message: /big\.yaml: file is \d+ bytes, larger than the 1048576 bytes a permissions file may have$/ })
  })
})
