/**
 * The permission checks `npm run bench:in-process` times: a registry listing in filter mode
 * (1,000 feature views against 30 permissions) and an ordinary single-resource check. Built
 * deterministically, so that two runs (and two versions of the engine) decide the same things.
 */
import { createPrincipal, type Principal } from '../../src/base/principal.ts'
import {
  allowAll, groupBasedPolicy, namespaceBasedPolicy, permission, roleBasedPolicy,
  type Action, type Permission, type Resource, type ResourceType
} from '../../src/permissions/index.ts'

export interface PermissionCheckFixture {
  readonly permissions: readonly Permission[]
  readonly principal: Principal
  readonly resources: readonly Resource[]
  readonly actions: readonly Action[]
}

const TEAMS = ['team_a', 'team_b', 'team_c', 'team_d', 'team_e', 'shared', 'legacy', 'sandbox'] as const
const VIEW_TYPES: readonly ResourceType[] = ['FeatureView', 'FeatureView', 'FeatureView', 'FeatureView', 'BatchFeatureView', 'StreamFeatureView', 'OnDemandFeatureView']
const OTHER_TYPES: readonly ResourceType[] = ['Entity', 'DataSource', 'FeatureService', 'Project', 'SavedDataset', 'ValidationReference', 'Permission', 'LabelView']

/**
 * `GET /api/v1/feature_views` of a large registry, for a caller of two teams and the analysts'
 * group: role policies, name patterns and required tags, with Feast's filter-mode cases all
 * present: views granted, views denied by an applicable name-scoped permission, views denied with
 * no applicable permission (hidden, as their type's permissions have name patterns), and views
 * an unscoped permission applies to before a later name-scoped one. None refuses the call.
 */
export function listingFixture (viewCount = 1_000): PermissionCheckFixture {
  const views = ['FeatureView', 'OnDemandFeatureView'] as const
  const permissions: Permission[] = [
    // Unscoped and applicable to PII views, but never the last applicable one: such views are hidden, not refused.
    permission({ name: 'pii-auditors', types: 'FeatureView', requiredTags: { pii: 'true' }, actions: 'DESCRIBE', policy: roleBasedPolicy(['auditor']) }),
    permission({ name: 'platform-admins', types: [...views], namePatterns: '(team_[a-e]|shared|legacy)_.*', actions: 'ALL_ACTIONS', policy: roleBasedPolicy(['platform-admin']) }),
    // Types a listing of views never matches.
    ...OTHER_TYPES.map((type, i) => permission({ name: `describe-${type}`, types: type, actions: 'DESCRIBE', policy: i % 2 === 0 ? allowAll : roleBasedPolicy(['reader']) })),
    // Actions a listing never asks for.
    ...['WRITE', 'UPDATE', 'DELETE', 'CREATE'].map((action) => permission({ name: `writers-${action}`, types: [...views], actions: action as 'WRITE', policy: roleBasedPolicy(['writer']) })),
    ...['team_a', 'team_b', 'team_c', 'team_d', 'team_e'].map((team) =>
      permission({ name: `${team}-readers`, types: 'FeatureView', namePatterns: [`${team}_.*`, `${team}-.*`], actions: ['DESCRIBE', 'READ'], policy: roleBasedPolicy([`${team}-reader`]) })),
    ...['team_a', 'team_c'].map((team) =>
      permission({ name: `${team}-on-demand`, types: 'OnDemandFeatureView', namePatterns: `${team}_.*`, actions: 'DESCRIBE', policy: roleBasedPolicy([`${team}-reader`]) })),
    permission({ name: 'gold-analysts', types: 'FeatureView', namePatterns: '(shared|legacy)_.*', requiredTags: { tier: 'gold' }, actions: 'DESCRIBE', policy: groupBasedPolicy(['analysts']) }),
    permission({ name: 'silver-analysts', types: 'FeatureView', namePatterns: 'shared_.*', requiredTags: { tier: 'silver', owner: 'shared' }, actions: 'DESCRIBE', policy: groupBasedPolicy(['analysts']) }),
    permission({ name: 'sandbox-jobs', types: 'FeatureView', namePatterns: 'sandbox_features_\\d+', actions: ['DESCRIBE', 'WRITE'], policy: namespaceBasedPolicy(['sandbox']) }),
    permission({ name: 'streaming-team', types: 'StreamFeatureView', namePatterns: '.*_stream_.*', actions: 'DESCRIBE', policy: groupBasedPolicy(['streaming']) }),
    permission({ name: 'batch-team', types: 'BatchFeatureView', namePatterns: ['.*_batch_.*', 'nightly_.*'], actions: 'DESCRIBE', policy: groupBasedPolicy(['batch']) }),
    permission({ name: 'legacy-owners', types: 'FeatureView', namePatterns: 'legacy_.*', requiredTags: { owner: 'legacy' }, actions: 'ALL_ACTIONS', policy: roleBasedPolicy(['legacy-owner']) }),
    permission({ name: 'team_b-on-demand', types: 'OnDemandFeatureView', namePatterns: 'team_b_.*', actions: 'DESCRIBE', policy: roleBasedPolicy(['team_b-reader']) }),
    permission({ name: 'team_d-on-demand', types: 'OnDemandFeatureView', namePatterns: 'team_d_.*', actions: 'DESCRIBE', policy: roleBasedPolicy(['team_d-reader']) }),
    permission({ name: 'shared-on-demand', types: 'OnDemandFeatureView', namePatterns: 'shared_.*', requiredTags: { tier: 'gold' }, actions: 'DESCRIBE', policy: groupBasedPolicy(['analysts']) })
  ]
  const resources: Resource[] = []
  for (let i = 0; i < viewCount; i++) {
    const team = TEAMS[i % TEAMS.length]!
    const type = VIEW_TYPES[i % VIEW_TYPES.length]!
    const kind = type === 'StreamFeatureView' ? 'stream' : type === 'BatchFeatureView' ? 'batch' : 'features'
    const tags: Record<string, string> = { owner: team, tier: i % 3 === 0 ? 'gold' : 'silver' }
    if (i % 11 === 0) tags.pii = 'true'
    resources.push({ type, name: `${team}_${kind}_${i}`, project: 'bench', tags })
  }
  return {
    permissions: Object.freeze(permissions),
    principal: createPrincipal({ username: 'analyst', roles: ['team_a-reader', 'team_c-reader'], groups: ['analysts'], source: 'oidc' }),
    resources: Object.freeze(resources),
    actions: Object.freeze(['DESCRIBE'] as Action[])
  }
}

/** An online read of one feature view against a handful of permissions: the ordinary request. */
export function singleCheckFixture (): PermissionCheckFixture {
  return {
    permissions: Object.freeze([
      permission({ name: 'admins', actions: 'ALL_ACTIONS', policy: roleBasedPolicy(['admin']) }),
      permission({ name: 'writers', types: 'FeatureView', actions: 'WRITE', policy: roleBasedPolicy(['writer']) }),
      permission({ name: 'special', types: 'FeatureView', namePatterns: 'special_.*', actions: 'READ', policy: roleBasedPolicy(['special-reader']) }),
      permission({ name: 'online-readers', types: 'FeatureView', actions: ['DESCRIBE', 'READ'], policy: roleBasedPolicy(['reader']) }),
      permission({ name: 'entities', types: 'Entity', actions: 'DESCRIBE', policy: allowAll })
    ]),
    principal: createPrincipal({ username: 'reader', roles: ['reader'], source: 'oidc' }),
    resources: Object.freeze([{ type: 'FeatureView', name: 'driver_hourly_stats', project: 'bench', tags: { owner: 'team_a' } }] as Resource[]),
    actions: Object.freeze(['READ_ONLINE'] as Action[])
  }
}
