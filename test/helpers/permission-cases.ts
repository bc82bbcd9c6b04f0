/**
 * The permission decision table, as data: every rule of docs/permissions.md and the cases of
 * Feast's own permission tests (feast-behaviour.md 10.1–10.3), as input → expected.
 * Shared by the engine's tests, the adapters' tests and the registry tests.
 *
 * A DecisionCase is one `decide` call; a FilterCase is one `filterAllowed` call. Principals only
 * carry namespaces where a namespace policy is under test (`principal.namespaces.length > 0`):
 * an OIDC-token based suite can skip those.
 */
import {
  ACTIONS, RESOURCE_TYPES, allowAll, combinedGroupNamespacePolicy, groupBasedPolicy, namespaceBasedPolicy, permission, roleBasedPolicy,
  type Action, type MatchPart, type Permission, type PermissionInput, type Resource, type ResourceType
} from '../../src/permissions/index.ts'
import { createPrincipal, type Principal } from '../../src/base/principal.ts'

export interface DecisionCase {
  /** A sentence: what the case shows. Unique within the table. */
  readonly name: string
  /** Which rule or which Feast test it comes from. */
  readonly group: string
  readonly permissions: readonly Permission[]
  readonly principal: Principal
  readonly resource: Resource
  readonly actions: readonly Action[]
  readonly allowed: boolean
  readonly noPermissionsDefined?: boolean
  /** Expected `unmatched` parts per permission name, where the case is about matching. */
  readonly unmatched?: Readonly<Record<string, readonly MatchPart[]>>
}

export interface FilterCase {
  readonly name: string
  readonly group: string
  readonly permissions: readonly Permission[]
  readonly principal: Principal
  readonly resources: readonly Resource[]
  readonly actions: readonly Action[]
  /** Names of the resources kept, in order; or the name of the resource that refuses the whole call. */
  readonly expected: { readonly allowed: readonly string[] } | { readonly refused: string }
}

export function user (username: string, roles: readonly string[] = [], groups: readonly string[] = [], namespaces: readonly string[] = []): Principal {
  return createPrincipal({ username, roles, groups, namespaces, source: 'oidc' })
}

const fv = (name: string, tags?: Record<string, string>): Resource => tags === undefined ? { type: 'FeatureView', name } : { type: 'FeatureView', name, tags }
const entity = (name: string): Resource => ({ type: 'Entity', name })

// --- Feast's fixtures (unit/permissions/conftest.py) ---------------------------------------
export const FEAST_USERS = {
  r: user('r', ['reader']),
  w: user('w', ['writer']),
  rw: user('rw', ['reader', 'writer']),
  special: user('special', ['reader', 'writer', 'special-reader']),
  updater: user('updater', ['updater']),
  creator: user('creator', ['creator']),
  admin: user('admin', ['updater', 'creator'])
} as const

export const FEAST_PERMISSIONS: readonly Permission[] = Object.freeze([
  permission({ name: 'reader', types: ['FeatureView'], actions: ['DESCRIBE'], policy: roleBasedPolicy(['reader']) }),
  permission({ name: 'writer', types: ['FeatureView'], actions: ['UPDATE'], policy: roleBasedPolicy(['writer']) }),
  permission({ name: 'special', types: ['FeatureView'], namePatterns: 'special.*', actions: ['DESCRIBE', 'UPDATE'], policy: roleBasedPolicy(['special-reader']) }),
  permission({ name: 'entity_updater', types: ['Entity'], actions: ['DESCRIBE', 'UPDATE'], policy: roleBasedPolicy(['updater']) }),
  permission({ name: 'entity_creator', types: ['Entity'], actions: ['CREATE'], policy: roleBasedPolicy(['creator']) })
])

export const SECURED = fv('secured', {})
export const SPECIAL_SECURED = fv('special-secured', {})

const READ_AND_UPDATE: readonly Action[] = ['READ_OFFLINE', 'READ_ONLINE', 'UPDATE']

/** Builds a one-permission list granting everyone, for matching cases. */
function open (input: Omit<PermissionInput, 'policy' | 'name'>, name = 'p'): Permission[] {
  return [permission({ name, policy: allowAll, ...input })]
}

const anyone = user('anyone')
const cases: DecisionCase[] = []
const add = (c: DecisionCase): void => { cases.push(c) }

// --- Resource types ----------------------------------------------------------------------
{
  const group = 'types'
  const fvOnly = open({ types: ['FeatureView'] })
  add({ group, name: 'a FeatureView permission covers a FeatureView', permissions: fvOnly, principal: anyone, resource: fv('v'), actions: ['DESCRIBE'], allowed: true })
  add({ group, name: 'a FeatureView permission covers a BatchFeatureView', permissions: fvOnly, principal: anyone, resource: { type: 'BatchFeatureView', name: 'v' }, actions: ['DESCRIBE'], allowed: true })
  add({ group, name: 'a FeatureView permission covers a StreamFeatureView', permissions: fvOnly, principal: anyone, resource: { type: 'StreamFeatureView', name: 'v' }, actions: ['DESCRIBE'], allowed: true })
  add({ group, name: 'a FeatureView permission does not cover an OnDemandFeatureView', permissions: fvOnly, principal: anyone, resource: { type: 'OnDemandFeatureView', name: 'v' }, actions: ['DESCRIBE'], allowed: false, unmatched: { p: ['type'] } })
  add({ group, name: 'a FeatureView permission does not cover a LabelView', permissions: fvOnly, principal: anyone, resource: { type: 'LabelView', name: 'v' }, actions: ['DESCRIBE'], allowed: false, unmatched: { p: ['type'] } })
  add({ group, name: 'a BatchFeatureView permission does not cover a plain FeatureView', permissions: open({ types: ['BatchFeatureView'] }), principal: anyone, resource: fv('v'), actions: ['DESCRIBE'], allowed: false, unmatched: { p: ['type'] } })
  add({ group, name: 'a permission without types covers a Project', permissions: open({}), principal: anyone, resource: { type: 'Project', name: 'demo' }, actions: ['DESCRIBE'], allowed: true })
  add({ group, name: 'an Entity permission does not cover a DataSource', permissions: open({ types: ['Entity'] }), principal: anyone, resource: { type: 'DataSource', name: 'src' }, actions: ['DESCRIBE'], allowed: false, unmatched: { p: ['type'] } })

  // Feast test_match_resource_with_subclasses, for every type.
  for (const type of RESOURCE_TYPES) {
    const resource: Resource = { type, name: 'r' }
    add({ group: 'feast 10.1 test_match_resource_with_subclasses', name: `a ${type} matches a permission for [${type}]`, permissions: open({ types: [type] }), principal: anyone, resource, actions: ['DESCRIBE'], allowed: true })
    add({ group: 'feast 10.1 test_match_resource_with_subclasses', name: `a ${type} matches a permission for all types`, permissions: open({ types: [...RESOURCE_TYPES] }), principal: anyone, resource, actions: ['DESCRIBE'], allowed: true })
    const others = RESOURCE_TYPES.filter((t) => t !== type && !(t === 'FeatureView' && (type === 'BatchFeatureView' || type === 'StreamFeatureView')))
    add({ group: 'feast 10.1 test_match_resource_with_subclasses', name: `a ${type} does not match a permission for every other type`, permissions: open({ types: others }), principal: anyone, resource, actions: ['DESCRIBE'], allowed: false, unmatched: { p: ['type'] } })
  }
}

// --- Name patterns -----------------------------------------------------------------------
{
  const group = 'name patterns'
  const named = (patterns: string | readonly string[] | undefined, name: string, allowed: boolean, why: string): void => {
    const permissions = open(patterns === undefined ? {} : { namePatterns: patterns })
    add({ group, name: `${why}: ${JSON.stringify(patterns ?? null)} vs "${name}"`, permissions, principal: anyone, resource: fv(name), actions: ['DESCRIBE'], allowed, ...(allowed ? {} : { unmatched: { p: ['name_pattern'] } }) })
  }
  named('test.*', 'test1', true, 'a pattern matches the whole name')
  named('test.*', 'test', true, 'a pattern matches the whole name')
  named('test.*', 'wrongtest', false, 'a pattern is anchored at the start')
  named('.*test.*', 'wrongtest', true, 'a leading .* matches a prefix')
  named('driver', 'driver_stats', false, 'a pattern is anchored at the end')
  named('Driver.*', 'driver_stats', false, 'patterns are case-sensitive')
  named(undefined, 'anything', true, 'no pattern means any name')
  named([], 'anything', true, 'an empty pattern list means any name')
  named('a|b.*', 'xb', false, 'an alternation is anchored as a whole')
  named('a|b.*', 'bx', true, 'an alternation matches through any branch')
  // Feast test_match_name_patterns (the resource is named "name"; its None-name cases have no
  // counterpart here, since every resource has a name).
  const feast = (patterns: string | readonly string[], allowed: boolean): void => {
    const permissions = open({ types: ['Permission'], namePatterns: patterns })
    add({ group: 'feast 10.1 test_match_name_patterns', name: `patterns ${JSON.stringify(patterns)} ${allowed ? 'match' : 'do not match'} the name "name"`, permissions, principal: anyone, resource: { type: 'Permission', name: 'name' }, actions: ['DESCRIBE'], allowed })
  }
  feast('name', true)
  feast('another', false)
  feast('.*me', true)
  feast('^na.*', true)
  feast(['invalid', 'another_invalid'], false)
  feast(['invalid', 'name'], true)
  feast(['name', 'invalid'], true)
  feast(['invalid', 'another_invalid', 'name'], true)
  feast(['invalid', 'name', 'name'], true)
  add({ group: 'feast 10.1 test_match_name_patterns', name: 'pattern ^[\\d].* matches "123_must_start_by_number"', permissions: open({ namePatterns: '^[\\d].*' }), principal: anyone, resource: fv('123_must_start_by_number'), actions: ['DESCRIBE'], allowed: true })
  // Feast test_resource_match_with_name_filter, for every type.
  for (const type of RESOURCE_TYPES) {
    for (const [pattern, name, allowed] of [['test.*', 'test', true], ['test.*', 'test1', true], ['test.*', 'wrongtest', false], ['.*test.*', 'wrongtest', true]] as const) {
      add({ group: 'feast 10.1 test_resource_match_with_name_filter', name: `a ${type} named "${name}" ${allowed ? 'matches' : 'does not match'} pattern "${pattern}"`, permissions: open({ types: [type], namePatterns: pattern }), principal: anyone, resource: { type, name }, actions: ['DESCRIBE'], allowed })
    }
  }
}

// --- Required tags (matched against the resource's real tags) ----------------------------
{
  const group = 'required tags'
  const tagged = (required: Record<string, string>, tags: Record<string, string> | undefined, allowed: boolean, why: string, type: ResourceType = 'FeatureView'): void => {
    const resource: Resource = tags === undefined ? { type, name: 'r' } : { type, name: 'r', tags }
    add({ group, name: `${why}: requires ${JSON.stringify(required)}, ${type} has ${JSON.stringify(tags ?? null)}`, permissions: open({ requiredTags: required }), principal: anyone, resource, actions: ['DESCRIBE'], allowed, ...(allowed ? {} : { unmatched: { p: ['tags'] } }) })
  }
  tagged({ owner: 'dev' }, undefined, false, 'a resource without tags lacks a required tag')
  tagged({ owner: 'dev' }, { Owner: 'dev' }, false, 'tag names are case-sensitive')
  tagged({ owner: 'dev' }, { owner: 'Dev' }, false, 'tag values are case-sensitive')
  tagged({ toString: 'x' }, {}, false, 'a required tag is never found on the prototype')
  // Feast test_resource_match_with_tags, for every type.
  for (const type of RESOURCE_TYPES) {
    const g = 'feast 10.1 test_resource_match_with_tags'
    const t = (required: Record<string, string>, tags: Record<string, string>, allowed: boolean): void => {
      add({ group: g, name: `a ${type} tagged ${JSON.stringify(tags)} ${allowed ? 'has' : 'lacks'} required tags ${JSON.stringify(required)}`, permissions: open({ requiredTags: required }), principal: anyone, resource: { type, name: 'r', tags }, actions: ['DESCRIBE'], allowed })
    }
    t({ owner: 'dev' }, {}, false)
    t({ owner: 'dev' }, { owner: 'master' }, false)
    t({ owner: 'dev' }, { owner: 'dev', other: '1' }, true)
    t({ owner: 'dev', dep: '1' }, { owner: 'dev', other: '1' }, false)
    t({ owner: 'dev', dep: '1' }, { owner: 'dev', other: '1', dep: '1' }, true)
  }
}

// --- Actions -----------------------------------------------------------------------------
{
  const group = 'actions'
  add({ group, name: 'a permission covering both requested actions applies', permissions: open({ actions: ['DESCRIBE', 'UPDATE'] }), principal: anyone, resource: fv('v'), actions: ['DESCRIBE', 'UPDATE'], allowed: true })
  add({ group, name: 'a permission covering one of two requested actions does not apply', permissions: open({ actions: ['DESCRIBE'] }), principal: anyone, resource: fv('v'), actions: ['DESCRIBE', 'UPDATE'], allowed: false, unmatched: { p: ['actions'] } })
  add({
    group,
    name: 'two permissions each covering one requested action never combine',
    permissions: [permission({ name: 'd', actions: ['DESCRIBE'], policy: allowAll }), permission({ name: 'u', actions: ['UPDATE'], policy: allowAll })],
    principal: anyone,
    resource: fv('v'),
    actions: ['DESCRIBE', 'UPDATE'],
    allowed: false,
    unmatched: { d: ['actions'], u: ['actions'] }
  })
  add({ group, name: 'the READ group covers READ_ONLINE', permissions: open({ actions: ['READ'] }), principal: anyone, resource: fv('v'), actions: ['READ_ONLINE'], allowed: true })
  add({ group, name: 'the WRITE group covers a push to online and offline at once', permissions: open({ actions: ['WRITE'] }), principal: anyone, resource: fv('v'), actions: ['WRITE_OFFLINE', 'WRITE_ONLINE'], allowed: true })
  add({ group, name: 'the READ group does not cover WRITE_ONLINE', permissions: open({ actions: ['READ'] }), principal: anyone, resource: fv('v'), actions: ['WRITE_ONLINE'], allowed: false, unmatched: { p: ['actions'] } })
  add({ group, name: 'the CRUD group does not cover READ_OFFLINE', permissions: open({ actions: ['CRUD'] }), principal: anyone, resource: fv('v'), actions: ['READ_OFFLINE'], allowed: false, unmatched: { p: ['actions'] } })
  add({ group, name: 'a permission without actions covers every action', permissions: open({}), principal: anyone, resource: fv('v'), actions: [...ACTIONS], allowed: true })
  // Feast test_match_actions.
  const g = 'feast 10.1 test_match_actions'
  for (const action of ACTIONS) {
    add({ group: g, name: `ALL_ACTIONS covers ${action}`, permissions: open({ actions: ['ALL_ACTIONS'] }), principal: anyone, resource: fv('v'), actions: [action], allowed: true })
  }
  const cd = open({ actions: ['CREATE', 'DELETE'] })
  for (const [requested, allowed] of [[['CREATE', 'DELETE'], true], [['CREATE'], true], [['DELETE'], true], [['UPDATE'], false], [['CREATE', 'DELETE', 'UPDATE'], false]] as const) {
    add({ group: g, name: `[CREATE, DELETE] ${allowed ? 'covers' : 'does not cover'} [${requested.join(', ')}]`, permissions: cd, principal: anyone, resource: fv('v'), actions: requested, allowed })
  }
}

// --- Policies ----------------------------------------------------------------------------
{
  const group = 'policies'
  const onFv = (policy: PermissionInput['policy']): Permission[] => [permission({ name: 'p', types: ['FeatureView'], policy })]
  const p = (name: string, policyFor: Permission[], principal: Principal, allowed: boolean): void => {
    add({ group, name, permissions: policyFor, principal, resource: fv('v'), actions: ['DESCRIBE'], allowed })
  }
  p('a role policy grants a principal with one of the roles', onFv(roleBasedPolicy(['reader', 'admin'])), user('u', ['admin']), true)
  p('a role policy denies a principal with none of the roles', onFv(roleBasedPolicy(['reader'])), user('u', ['writer']), false)
  p('a role policy matches roles case-sensitively', onFv(roleBasedPolicy(['reader'])), user('u', ['Reader']), false)
  p('a role policy with no roles grants nothing', onFv(roleBasedPolicy([])), user('u', ['reader']), false)
  p('a role policy ignores groups of the same name', onFv(roleBasedPolicy(['reader'])), user('u', [], ['reader']), false)
  p('a group policy grants a member of one of the groups', onFv(groupBasedPolicy(['eng', 'ops'])), user('u', [], ['ops']), true)
  p('a group policy denies a principal in none of the groups', onFv(groupBasedPolicy(['eng'])), user('u', ['eng'], ['sales']), false)
  p('a group policy with no groups grants nothing', onFv(groupBasedPolicy([])), user('u', [], ['eng']), false)
  p('a namespace policy grants a principal in one of the namespaces', onFv(namespaceBasedPolicy(['team-a', 'team-b'])), user('u', [], [], ['team-b']), true)
  p('a namespace policy denies a principal in none of the namespaces', onFv(namespaceBasedPolicy(['team-a'])), user('u', [], ['team-a'], ['team-c']), false)
  p('a namespace policy with no namespaces grants nothing', onFv(namespaceBasedPolicy([])), user('u', [], [], ['team-a']), false)
  p('a combined policy grants through a group', onFv(combinedGroupNamespacePolicy(['eng'], ['team-a'])), user('u', [], ['eng']), true)
  p('a combined policy grants through a namespace', onFv(combinedGroupNamespacePolicy(['eng'], ['team-a'])), user('u', [], [], ['team-a']), true)
  p('a combined policy denies a principal in neither', onFv(combinedGroupNamespacePolicy(['eng'], ['team-a'])), user('u', ['eng', 'team-a'], ['sales'], ['team-c']), false)
  p('allow-all grants a principal with nothing', onFv(allowAll), user('nobody'), true)
  // Feast test_role_based_policy, through a permission.
  const { r, w, rw } = FEAST_USERS
  const g = 'feast 10.2 test_role_based_policy'
  for (const [roles, principal, allowed] of [
    [['reader'], r, true], [['writer'], r, false], [['reader', 'writer'], r, true], [['writer', 'updater'], r, false],
    [['reader'], w, false], [['writer'], w, true], [['reader', 'writer'], w, true], [['reader', 'updater'], w, false],
    [['reader'], rw, true], [['writer'], rw, true], [['reader', 'writer'], rw, true], [['updater'], rw, false]
  ] as const) {
    add({ group: g, name: `roles [${roles.join(', ')}] ${allowed ? 'grant' : 'do not grant'} user ${principal.username}`, permissions: onFv(roleBasedPolicy(roles)), principal, resource: fv('v'), actions: ['DESCRIBE'], allowed })
  }
  // Feast test_allow_all.
  for (const principal of [r, w, rw, user('missing')]) {
    add({ group: 'feast 10.2 test_allow_all', name: `allow-all grants user ${principal.username}`, permissions: onFv(allowAll), principal, resource: fv('v'), actions: ['DESCRIBE'], allowed: true })
  }
  // Feast test_user_has_matching_role.
  const a = user('a', ['a1', 'a2'])
  const b = user('b', ['b1', 'b2'])
  for (const [principal, roles, allowed] of [
    [user('c'), [], false], [a, ['b1'], false], [a, ['a1', 'b1'], true], [a, ['a1'], true], [a, ['a1', 'a2'], true], [a, ['a1', 'a2', 'a3'], true],
    [b, ['a1', 'a3'], false], [b, ['a1', 'b1'], true], [b, ['b1', 'b2'], true], [b, ['b1', 'b2', 'b3'], true]
  ] as const) {
    add({ group: 'feast 10.2 test_user_has_matching_role', name: `user ${principal.username} ${allowed ? 'has' : 'lacks'} one of roles [${roles.join(', ')}]`, permissions: onFv(roleBasedPolicy(roles)), principal, resource: fv('v'), actions: ['DESCRIBE'], allowed })
  }
}

// --- Combining permissions ---------------------------------------------------------------
{
  const group = 'combining'
  const deny = permission({ name: 'needs-admin', types: ['FeatureView'], policy: roleBasedPolicy(['admin']) })
  const grant = permission({ name: 'needs-reader', types: ['FeatureView'], policy: roleBasedPolicy(['reader']) })
  add({ group, name: 'access is granted when a later applicable permission grants', permissions: [deny, grant], principal: user('u', ['reader']), resource: fv('v'), actions: ['DESCRIBE'], allowed: true })
  add({ group, name: 'access is denied when every applicable permission denies', permissions: [deny, grant], principal: user('u', ['writer']), resource: fv('v'), actions: ['DESCRIBE'], allowed: false })
  add({
    group,
    name: 'a permission whose policy would grant does not count when it does not apply',
    permissions: [deny, permission({ name: 'entities', types: ['Entity'], policy: allowAll })],
    principal: user('u'),
    resource: fv('v'),
    actions: ['DESCRIBE'],
    allowed: false,
    unmatched: { 'needs-admin': [], entities: ['type'] }
  })
  add({ group, name: 'access is denied when no permission applies', permissions: [permission({ name: 'entities', types: ['Entity'], policy: allowAll })], principal: user('u'), resource: fv('v'), actions: ['DESCRIBE'], allowed: false })
  add({ group, name: 'with no permissions at all every principal is allowed', permissions: [], principal: user('nobody'), resource: fv('v'), actions: ['DELETE'], allowed: true, noPermissionsDefined: true })
  add({
    group,
    name: 'a permission reports every part that did not match',
    permissions: [permission({ name: 'narrow', types: ['Entity'], namePatterns: 'x', requiredTags: { a: 'b' }, actions: ['CREATE'], policy: allowAll })],
    principal: user('u'),
    resource: fv('v'),
    actions: ['DESCRIBE'],
    allowed: false,
    unmatched: { narrow: ['type', 'name_pattern', 'tags', 'actions'] }
  })
}

// --- Feast 10.2 test_decorator / 10.3 test_security_manager (non-intra rows) --------------
{
  const g = 'feast 10.3 test_access_SecuredFeatureView'
  const { r, w, rw, special } = FEAST_USERS
  const rows: readonly [Principal, readonly Action[], boolean, boolean][] = [
    // principal, actions, allowed on "secured", allowed on "special-secured"
    [r, ['DESCRIBE'], true, true],
    [r, ['UPDATE'], false, false],
    [w, ['DESCRIBE'], false, false],
    [w, ['UPDATE'], true, true],
    [rw, ['DESCRIBE'], true, true],
    [rw, ['UPDATE'], true, true],
    [rw, ['DESCRIBE', 'UPDATE'], false, false],
    [special, ['DESCRIBE', 'UPDATE'], false, true],
    [special, READ_AND_UPDATE, false, false]
  ]
  for (const [principal, actions, onSecured, onSpecial] of rows) {
    for (const [resource, allowed] of [[SECURED, onSecured], [SPECIAL_SECURED, onSpecial]] as const) {
      add({ group: g, name: `user ${principal.username} ${allowed ? 'may' : 'may not'} [${actions.join(', ')}] on ${resource.name}`, permissions: FEAST_PERMISSIONS, principal, resource, actions, allowed })
    }
  }
  const users = FEAST_USERS
  for (const [name, principal] of Object.entries(users)) {
    const mayCreate = name === 'creator' || name === 'admin'
    add({ group: 'feast 10.3 test_create_entity', name: `user ${name} ${mayCreate ? 'may' : 'may not'} create an entity`, permissions: FEAST_PERMISSIONS, principal, resource: entity(''), actions: ['CREATE'], allowed: mayCreate })
    const mayUpdate = name === 'updater' || name === 'admin'
    add({ group: 'feast 10.3 test_update_entity', name: `user ${name} ${mayUpdate ? 'may' : 'may not'} describe and update an entity`, permissions: FEAST_PERMISSIONS, principal, resource: entity('e'), actions: ['DESCRIBE', 'UPDATE'], allowed: mayUpdate })
  }
  for (const [principal, canRead, canWrite] of [[r, true, false], [w, false, true], [rw, true, true]] as const) {
    add({ group: 'feast 10.2 test_decorator', name: `user ${principal.username} ${canRead ? 'may' : 'may not'} read (DESCRIBE) a secured view`, permissions: FEAST_PERMISSIONS, principal, resource: SECURED, actions: ['DESCRIBE'], allowed: canRead })
    add({ group: 'feast 10.2 test_decorator', name: `user ${principal.username} ${canWrite ? 'may' : 'may not'} write (UPDATE) a secured view`, permissions: FEAST_PERMISSIONS, principal, resource: SECURED, actions: ['UPDATE'], allowed: canWrite })
  }
}

export const DECISION_CASES: readonly DecisionCase[] = Object.freeze(cases)

// --- Filter mode -------------------------------------------------------------------------
const filters: FilterCase[] = []
{
  const { r, w, rw, special } = FEAST_USERS
  const g = 'feast 10.3 test_access_SecuredFeatureView (permitted_resources)'
  const both = [SECURED, SPECIAL_SECURED]
  const f = (name: string, principal: Principal, actions: readonly Action[], expected: FilterCase['expected'], group = g): void => {
    filters.push({ group, name, permissions: FEAST_PERMISSIONS, principal, resources: both, actions, expected })
  }
  f('user r sees both views when describing', r, ['DESCRIBE'], { allowed: ['secured', 'special-secured'] })
  f('user r is refused when updating: the writer permission has no name patterns', r, ['UPDATE'], { refused: 'secured' })
  f('user w is refused when describing: the reader permission has no name patterns', w, ['DESCRIBE'], { refused: 'secured' })
  f('user w sees both views when updating', w, ['UPDATE'], { allowed: ['secured', 'special-secured'] })
  f('user rw sees both views when describing', rw, ['DESCRIBE'], { allowed: ['secured', 'special-secured'] })
  f('user rw sees both views when updating', rw, ['UPDATE'], { allowed: ['secured', 'special-secured'] })
  f('user rw sees nothing, without a refusal, when describing and updating', rw, ['DESCRIBE', 'UPDATE'], { allowed: [] })
  f('user special sees only special-secured when describing and updating', special, ['DESCRIBE', 'UPDATE'], { allowed: ['special-secured'] })
  f('user special sees nothing when reading and updating', special, READ_AND_UPDATE, { allowed: [] })

  const group = 'filter rules'
  const scoped = permission({ name: 'scoped', types: ['FeatureView'], namePatterns: 'team_.*', policy: roleBasedPolicy(['team']) })
  const unscoped = permission({ name: 'unscoped', types: ['FeatureView'], policy: roleBasedPolicy(['admin']) })
  const add2 = (name: string, permissions: readonly Permission[], principal: Principal, resources: readonly Resource[], actions: readonly Action[], expected: FilterCase['expected']): void => {
    filters.push({ group, name, permissions, principal, resources, actions, expected })
  }
  add2('a resource denied by a name-scoped permission is dropped', [scoped], user('u'), [fv('team_a')], ['DESCRIBE'], { allowed: [] })
  add2('a resource denied by a permission without name patterns refuses the call', [unscoped], user('u'), [fv('team_a')], ['DESCRIBE'], { refused: 'team_a' })
  add2('the last applicable permission decides: name-scoped last means dropped', [unscoped, scoped], user('u'), [fv('team_a')], ['DESCRIBE'], { allowed: [] })
  add2('the last applicable permission decides: unscoped last means refused', [scoped, unscoped], user('u'), [fv('team_a')], ['DESCRIBE'], { refused: 'team_a' })
  add2('a resource no permission covers by type refuses the call', [scoped], user('u', ['team']), [fv('team_a'), entity('e')], ['DESCRIBE'], { refused: 'e' })
  add2('a resource unmatched by actions while same-type permissions have no name patterns refuses the call', [permission({ name: 'd', types: ['FeatureView'], actions: ['DESCRIBE'], policy: allowAll })], user('u'), [fv('v')], ['UPDATE'], { refused: 'v' })
  add2('a resource outside every name pattern of its type is dropped', [scoped], user('u', ['team']), [fv('team_a'), fv('other'), fv('team_b')], ['DESCRIBE'], { allowed: ['team_a', 'team_b'] })
  add2('a BatchFeatureView counts as covered by a FeatureView permission when filtering', [scoped], user('u', ['team']), [{ type: 'BatchFeatureView', name: 'other' }], ['DESCRIBE'], { allowed: [] })
  add2('the first refusal stops the walk and nothing is returned', [scoped], user('u', ['team']), [fv('team_a'), entity('e'), fv('team_b')], ['DESCRIBE'], { refused: 'e' })
  add2('with no permissions at all every resource is kept', [], user('u'), [fv('a'), entity('b')], ['DELETE'], { allowed: ['a', 'b'] })

  // Several denials, and the last applicable permission among scoped and unscoped ones.
  const pii = permission({ name: 'pii', types: ['FeatureView'], requiredTags: { pii: 'true' }, policy: roleBasedPolicy(['auditor']) })
  const stats = permission({ name: 'stats', types: ['FeatureView'], namePatterns: '.*_stats', policy: roleBasedPolicy(['analyst']) })
  const goldTeam = permission({ name: 'gold-team', types: ['FeatureView'], namePatterns: 'team_.*', requiredTags: { tier: 'gold' }, policy: roleBasedPolicy(['team']) })
  const drivers = permission({ name: 'drivers', types: ['Entity'], namePatterns: 'driver_.*', policy: roleBasedPolicy(['viewer']) })
  const scopedUpdates = permission({ name: 'scoped-updates', types: ['FeatureView'], namePatterns: 'x.*', actions: ['UPDATE'], policy: roleBasedPolicy(['writer']) })
  add2('several hidden resources are all dropped and the permitted ones kept in order', [scoped], user('u', ['team']),
    [fv('team_a'), fv('x'), fv('team_b'), fv('y'), { type: 'BatchFeatureView', name: 'z' }], ['DESCRIBE'], { allowed: ['team_a', 'team_b'] })
  add2('an unscoped permission that applies before a name-scoped one that also applies leaves the resource hidden', [pii, scoped], user('u'),
    [fv('team_a', { pii: 'true' })], ['DESCRIBE'], { allowed: [] })
  add2('an unscoped permission that applies after a name-scoped one refuses the call', [scoped, pii], user('u'),
    [fv('team_a', { pii: 'true' })], ['DESCRIBE'], { refused: 'team_a' })
  add2('an unscoped permission whose required tags are missing leaves the name-scoped one last', [scoped, pii], user('u'),
    [fv('team_a', { pii: 'false' })], ['DESCRIBE'], { allowed: [] })
  add2('a name-scoped permission that would grant but does not match the name does not hide a denial by an earlier unscoped one', [unscoped, scoped], user('u', ['team']),
    [fv('team_a'), fv('other')], ['DESCRIBE'], { refused: 'other' })
  add2('after an applicable unscoped permission, a resource is hidden only when a later name-scoped one matches its name', [unscoped, scoped], user('u'),
    [fv('team_a'), fv('other')], ['DESCRIBE'], { refused: 'other' })
  add2('the last applicable permission decides among scoped and unscoped ones, resource by resource', [scoped, unscoped, stats], user('u'),
    [fv('team_stats'), fv('driver_stats'), fv('team_a')], ['DESCRIBE'], { refused: 'team_a' })
  add2('a name-scoped permission whose required tags are missing does not hide a denial by an earlier unscoped one', [unscoped, goldTeam], user('u', ['team']),
    [fv('team_a', { tier: 'gold' }), fv('team_b', { tier: 'silver' })], ['DESCRIBE'], { refused: 'team_b' })
  add2('a denying name-scoped permission whose required tags are missing does not hide a denial by an earlier unscoped one', [unscoped, goldTeam], user('u'),
    [fv('team_b', { tier: 'silver' })], ['DESCRIBE'], { refused: 'team_b' })
  add2('a name-scoped permission after an applicable unscoped one hides a denied resource whose name and tags match', [unscoped, goldTeam], user('u'),
    [fv('team_a', { tier: 'gold' })], ['DESCRIBE'], { allowed: [] })
  add2('resources of mixed types are each judged by the permissions of their own type', [scoped, drivers], user('u', ['team']),
    [fv('team_a'), entity('driver_1'), fv('x'), entity('rider')], ['DESCRIBE'], { allowed: ['team_a'] })
  add2('a name-scoped permission for other actions still makes a resource no permission applies to hidden', [scopedUpdates], user('u'),
    [fv('v')], ['DESCRIBE'], { allowed: [] })
  add2('resources hidden or permitted before a refusal are not returned', [scoped, drivers], user('u', ['team']),
    [fv('team_a'), entity('driver_1'), { type: 'DataSource', name: 'src' }, fv('team_b')], ['DESCRIBE'], { refused: 'src' })
}

export const FILTER_CASES: readonly FilterCase[] = Object.freeze(filters)
