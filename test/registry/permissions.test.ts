import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decide, filterAllowed } from '../../src/permissions/decide.ts'
import { PermissionError } from '../../src/permissions/errors.ts'
import { RESOURCE_TYPES, type Permission } from '../../src/permissions/model.ts'
import { combinedGroupNamespacePolicy, groupBasedPolicy, namespaceBasedPolicy, permission, roleBasedPolicy, type PermissionInput } from '../../src/permissions/define.ts'
import { createPrincipal, type Principal } from '../../src/base/principal.ts'
import { parsePermissionsYaml, permissionsToYaml } from '../../src/permissions/yaml.ts'
import { decodeRegistry } from '../../src/registry/decode.ts'
import { buildSnapshot, type RegistrySnapshot } from '../../src/registry/snapshot.ts'
import { DECISION_CASES, FILTER_CASES } from '../helpers/permission-cases.ts'
import { permissionMessage, registryBytes } from '../helpers/registry-builder.ts'
import { wire } from '../helpers/feast-registry-writer.ts'
import { expectError } from '../helpers/errors.ts'

/** Encodes `permissions` into a registry, decodes it, and returns what the registry serves for `demo`. */
function throughRegistry (permissions: readonly Permission[]): readonly Permission[] {
  const snapshot = load(registryBytes({ projects: ['demo'], permissions: { demo: permissions } }))
  return snapshot.projects.get('demo')?.permissions ?? assert.fail('project demo missing')
}

function load (bytes: Uint8Array): RegistrySnapshot {
  return buildSnapshot(decodeRegistry(bytes), '/test/registry.db')
}

function refusal (raw: Record<string, unknown>, pattern: RegExp): void {
  expectError(() => load(registryBytes({ projects: ['demo'], rawPermissions: [raw] })), { type: PermissionError, message: pattern })
}

const usesAllowAll = (permissions: readonly Permission[]): boolean => permissions.some((p) => p.policy.kind === 'allow_all')

/*
 * A registry cannot hold AllowAll (Feast writes it as an empty policy, which the loader refuses).
 * The table's matching cases use it to grant everyone; here it becomes a role only the case's
 * principal has, which grants exactly the same principals in that case.
 */
const EVERYONE = 'feast-authz-test-everyone'
function registryReady<C extends { readonly permissions: readonly Permission[], readonly principal: Principal }> (c: C): C {
  if (!usesAllowAll(c.permissions)) return c
  return {
    ...c,
    permissions: c.permissions.map((p) => p.policy.kind === 'allow_all' ? permission({ ...inputOf(p), policy: roleBasedPolicy([EVERYONE]) }) : p),
    principal: createPrincipal({ ...c.principal, roles: [...c.principal.roles, EVERYONE] })
  }
}

function inputOf (p: Permission): PermissionInput {
  return {
    name: p.name,
    types: p.types,
    namePatterns: p.namePatterns,
    requiredTags: p.requiredTags,
    actions: p.actions,
    policy: p.policy,
    ...(p.tags === undefined ? {} : { tags: p.tags })
  }
}

describe('permissions read from a registry', () => {
  it('come back equal to the permissions that were applied, for every policy kind', () => {
    const applied = [
      permission({ name: 'roles', types: ['FeatureView', 'FeatureService'], namePatterns: ['driver_.*', 'rider'], requiredTags: { team: 'a' }, actions: ['DESCRIBE', 'READ_ONLINE'], policy: roleBasedPolicy(['reader']), tags: { owner: 'x' } }),
      permission({ name: 'groups', types: ['Entity'], actions: ['CREATE'], policy: groupBasedPolicy(['data-team']) }),
      permission({ name: 'namespaces', types: ['Project'], actions: 'WRITE', policy: namespaceBasedPolicy(['feast']) }),
      permission({ name: 'combined', actions: 'ALL_ACTIONS', policy: combinedGroupNamespacePolicy(['admins'], ['ops']) }),
      permission({ name: 'label views', types: ['LabelView', 'BatchFeatureView'], policy: roleBasedPolicy(['labeller']) })
    ]
    assert.deepEqual(throughRegistry(applied), applied)
  })

  it('cover every type when the registry lists none, as in Feast', () => {
    const [read] = load(registryBytes({ rawPermissions: [{ spec: { name: 'all', project: 'demo', actions: [1], policy: { role_based_policy: { roles: ['r'] } } } }] })).permissions
    assert.deepEqual(read?.permission.types, RESOURCE_TYPES)
  })

  it('trim name patterns and tags, as Feast does', () => {
    const [read] = load(registryBytes({ rawPermissions: [{ spec: { name: 'p', project: 'demo', name_patterns: [' a.* '], required_tags: { ' team ': ' x ' }, actions: [1], policy: { role_based_policy: { roles: ['r'] } } } }] })).permissions
    assert.deepEqual(read?.permission.namePatterns, ['a.*'])
    assert.deepEqual({ ...read?.permission.requiredTags }, { team: 'x' })
  })

  it('may have no name, as Feast\'s Permission allows, and still decide', () => {
    const [read] = load(registryBytes({ rawPermissions: [{ spec: { project: 'demo', types: [0], actions: [1], policy: { role_based_policy: { roles: ['r'] } } } }] })).permissions
    const nameless = read?.permission ?? assert.fail('the nameless permission was not read')
    assert.equal(nameless.name, '')
    const view = { type: 'FeatureView', name: 'driver' } as const
    assert.equal(decide([nameless], createPrincipal({ username: 'u', roles: ['r'], source: 'oidc' }), view, ['DESCRIBE']).allowed, true)
    assert.equal(decide([nameless], createPrincipal({ username: 'u', roles: ['other'], source: 'oidc' }), view, ['DESCRIBE']).allowed, false)
  })

  it('may have an empty tag name, as Feast\'s Permission allows, and require it on the resource', () => {
    const [read] = load(registryBytes({ rawPermissions: [{ spec: { name: 'p', project: 'demo', required_tags: { ' ': 'x' }, tags: { '': 'y' }, actions: [1], policy: { role_based_policy: { roles: ['r'] } } } }] })).permissions
    const p = read?.permission ?? assert.fail('the permission was not read')
    assert.deepEqual({ ...p.requiredTags }, { '': 'x' })
    assert.deepEqual({ ...p.tags }, { '': 'y' })
    const reader = createPrincipal({ username: 'u', roles: ['r'], source: 'oidc' })
    assert.equal(decide([p], reader, { type: 'FeatureView', name: 'v', tags: { '': 'x' } }, ['DESCRIBE']).allowed, true)
    assert.equal(decide([p], reader, { type: 'FeatureView', name: 'v', tags: { team: 'x' } }, ['DESCRIBE']).allowed, false)
  })

  it('leave out an empty role, group or namespace of the policy, which no principal can hold, instead of refusing the registry Feast serves', () => {
    const read = load(registryBytes({
      rawPermissions: [
        { spec: { name: 'roles', project: 'demo', actions: [1], policy: { role_based_policy: { roles: ['reader', ''] } } } },
        { spec: { name: 'combined', project: 'demo', actions: [1], policy: { combined_group_namespace_policy: { groups: [''], namespaces: ['', 'jobs'] } } } }
      ]
    })).permissions.map((entry) => entry.permission.policy)
    assert.deepEqual(read, [{ kind: 'role', roles: ['reader'] }, { kind: 'combined', groups: [], namespaces: ['jobs'] }])
  })

  it('grant no one when the policy names only an empty role', () => {
    const [read] = load(registryBytes({ rawPermissions: [{ spec: { name: 'blank', project: 'demo', actions: [1], policy: { role_based_policy: { roles: [''] } } } }] })).permissions
    const blank = read?.permission ?? assert.fail('the permission was not read')
    const everyone = createPrincipal({ username: 'u', roles: ['reader', 'admin'], groups: ['g'], namespaces: ['n'], source: 'oidc' })
    assert.equal(decide([blank], everyone, { type: 'FeatureView', name: 'v' }, ['DESCRIBE']).allowed, false)
  })

  it('belong to the project their spec names', () => {
    const reader = permission({ name: 'reader', policy: roleBasedPolicy(['r']) })
    const writer = permission({ name: 'writer', policy: roleBasedPolicy(['w']) })
    const snapshot = load(registryBytes({ projects: ['a', 'b'], permissions: { a: [reader], b: [writer] } }))
    assert.deepEqual(snapshot.projects.get('a')?.permissions, [reader])
    assert.deepEqual(snapshot.projects.get('b')?.permissions, [writer])
  })

  it('are also resources of type Permission, with their tags', () => {
    const tagged = permission({ name: 'tagged', policy: roleBasedPolicy(['r']), tags: { owner: 'sec' } })
    const snapshot = load(registryBytes({ permissions: { demo: [tagged] } }))
    assert.deepEqual({ ...snapshot.projects.get('demo')?.find('Permission', 'tagged')?.tags }, { owner: 'sec' })
  })

  describe('make the whole registry unusable when one is invalid', () => {
    const policy = { role_based_policy: { roles: ['r'] } }
    it('an empty policy (how Feast stores AllowAll)', () => {
      refusal({ spec: { name: 'open', project: 'demo', actions: [1], policy: {} } }, /permission \[0\] "open": policy: the policy is empty/)
      refusal({ spec: { name: 'open', project: 'demo', actions: [1] } }, /policy: the policy is empty/)
    })
    it('no actions', () => {
      refusal({ spec: { name: 'p', project: 'demo', policy } }, /permission \[0\] "p": actions: the permission lists no actions/)
    })
    it('an unknown type number, from a newer Feast', () => {
      refusal({ spec: { name: 'p', project: 'demo', types: [0, 12], actions: [1], policy } }, /types\[1\]: unknown resource type number 12/)
    })
    it('an unknown action number', () => {
      refusal({ spec: { name: 'p', project: 'demo', actions: [1, 8], policy } }, /actions\[1\]: unknown action number 8/)
    })
    it('a name pattern that is not a regular expression', () => {
      refusal({ spec: { name: 'p', project: 'demo', name_patterns: ['(unclosed'], actions: [1], policy } }, /"p": name_patterns\[0\]: .*not a valid regular expression/)
    })
    it('no project', () => {
      refusal({ spec: { name: 'p', actions: [1], policy } }, /"p": project: the permission names no project/)
    })
  })
})

describe('decisions with permissions from a registry equal those with the same permissions in YAML', () => {
  it(`hold for every case of the decision table (${DECISION_CASES.length} cases)`, () => {
    for (const c of DECISION_CASES.map(registryReady)) {
      const fromRegistry = decide(throughRegistry(c.permissions), c.principal, c.resource, c.actions)
      const fromYaml = decide(parsePermissionsYaml(permissionsToYaml(c.permissions)), c.principal, c.resource, c.actions)
      assert.equal(fromRegistry.allowed, c.allowed, c.name)
      assert.equal(fromRegistry.allowed, fromYaml.allowed, c.name)
      assert.deepEqual(fromRegistry.explanation, fromYaml.explanation, c.name)
    }
  })

  it(`hold for every filter case (${FILTER_CASES.length} cases)`, () => {
    for (const c of FILTER_CASES.map(registryReady)) {
      const outcome = (permissions: readonly Permission[]): unknown => {
        try {
          return filterAllowed(permissions, c.principal, c.resources, c.actions)
        } catch (error) {
          return { threw: (error as Error).message }
        }
      }
      assert.deepEqual(outcome(throughRegistry(c.permissions)), outcome(parsePermissionsYaml(permissionsToYaml(c.permissions))), c.name)
    }
  })

  it('cannot be formed for the cases that use AllowAll: the registry refuses the permission instead of allowing everyone', () => {
    const cases = DECISION_CASES.filter((c) => usesAllowAll(c.permissions))
    assert.ok(cases.length > 0)
    for (const c of cases) {
      assert.throws(() => throughRegistry(c.permissions), /policy: the policy is empty/, c.name)
    }
  })

  it('encode a permission the way Feast writes it (types and actions as enum numbers)', () => {
    const message = permissionMessage(permission({ name: 'p', types: ['Project', 'LabelView'], actions: ['READ_OFFLINE'], policy: roleBasedPolicy(['r']) }), 'demo')
    assert.deepEqual((message.spec as { types: number[] }).types, [10, 11])
    assert.deepEqual((message.spec as { actions: number[] }).actions, [5])
  })
})

describe('a permission whose policy has two members of the policy_type oneof on the wire (a file Feast never writes)', () => {
  const { bytes, string } = wire
  const role = bytes(3, string(1, 'admin'))
  const group = bytes(4, string(1, 'readers'))
  const registryWithPolicy = (...policy: number[][]): Uint8Array => {
    const spec = [...string(1, 'p'), ...string(2, 'demo'), ...bytes(6, [1]), ...bytes(7, policy.flat())]
    return Uint8Array.from([...bytes(16, bytes(1, spec)), ...bytes(17, bytes(1, string(1, 'demo')))])
  }
  const readPolicy = (...policy: number[][]): unknown => load(registryWithPolicy(...policy)).permissions[0]?.permission.policy
  const principal = (fields: { roles?: string[], groups?: string[] }): Principal =>
    createPrincipal({ username: 'u', roles: fields.roles ?? [], groups: fields.groups ?? [], namespaces: [], source: 'oidc' })

  it('is read with the group policy when the role policy comes first, as Feast reads it', () => {
    assert.deepEqual(readPolicy(role, group), { kind: 'group', groups: ['readers'] })
  })

  it('is read with the role policy when the group policy comes first', () => {
    assert.deepEqual(readPolicy(group, role), { kind: 'role', roles: ['admin'] })
  })

  it('grants the members of the later group, not the holders of the earlier role', () => {
    const permissions = load(registryWithPolicy(role, group)).permissions.map((read) => read.permission)
    const resource = { type: 'FeatureView', name: 'v', project: 'demo', tags: {} } as const
    assert.equal(decide(permissions, principal({ roles: ['admin'] }), resource, ['DESCRIBE']).allowed, false)
    assert.equal(decide(permissions, principal({ groups: ['readers'] }), resource, ['DESCRIBE']).allowed, true)
  })

  it('leaves out an empty entry of the member it kept', () => {
    assert.deepEqual(readPolicy(role, bytes(4, string(1, ''))), { kind: 'group', groups: [] })
  })
})
