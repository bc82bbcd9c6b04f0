/**
 * Type tests of the configuration and permission API of `feast-authz`: `loadAuthConfig` narrows
 * on `type`, the permission factories take lists and known names only, and errors, codes and
 * diagnostics-channel events have their documented shapes. Checked by `npm run typecheck`.
 */
import { subscribe } from 'node:diagnostics_channel'
import {
  loadAuthConfig, AuthError, ConfigError, PermissionError, CHANNELS, ANONYMOUS,
  type AuthConfig, type AuthErrorCode, type AuthType, type AuthenticateEvent, type AuthorizeEvent,
  type KubernetesAuthConfig, type OidcAuthConfig, type Permission, type Action, type ActionGroup
} from '../../src/index.ts'
import {
  permission, roleBasedPolicy, groupBasedPolicy, namespaceBasedPolicy, combinedGroupNamespacePolicy, allowAll, decide, expandActions,
  type Decision, type PermissionInput, type Policy
} from '../../src/permissions/index.ts'
import { expectTrue, type Equal } from './assert-type.ts'

// --- loadAuthConfig: narrowing by `type` ------------------------------------------------------

const { auth } = loadAuthConfig('./feature_store.yaml')
loadAuthConfig({ yaml: 'auth: { type: no_auth }\n' }, { role: 'client', env: {} })
loadAuthConfig(undefined)
// @ts-expect-error `role` is `server` or `client`
loadAuthConfig('./feature_store.yaml', { role: 'proxy' })

expectTrue<Equal<typeof auth, AuthConfig>>()
expectTrue<Equal<AuthType, 'no_auth' | 'oidc' | 'kubernetes'>>()
// @ts-expect-error OIDC fields exist only once `type` says oidc
void auth.verify_ssl
// @ts-expect-error `type` is one of no_auth, oidc, kubernetes
if (auth.type === 'jwt') void auth

switch (auth.type) {
  case 'oidc': {
    expectTrue<Equal<typeof auth, OidcAuthConfig>>()
    const verify: boolean = auth.verify_ssl
    const issuer: string | undefined = auth.issuer
    const lifespan: number = auth.jwks_cache_lifespan_seconds
    void verify, issuer, lifespan
    // @ts-expect-error Kubernetes fields are not on an OIDC config
    void auth.token_review_cache_ttl_seconds
    // @ts-expect-error the loaded config is read-only
    auth.verify_ssl = false
    break
  }
  case 'kubernetes': {
    expectTrue<Equal<typeof auth, KubernetesAuthConfig>>()
    const ttl: number = auth.token_review_cache_ttl_seconds
    const audiences: readonly string[] | undefined = auth.audiences
    void ttl, audiences
    // @ts-expect-error OIDC fields are not on a Kubernetes config
    void auth.auth_discovery_url
    break
  }
  case 'no_auth': {
    // @ts-expect-error a no_auth config has nothing but its type
    void auth.client_id
    break
  }
  default: {
    const exhaustive: never = auth
    void exhaustive
  }
}

// --- Permissions: permission() and the policy factories --------------------------------------

const readers: Permission = permission({
  name: 'readers',
  types: ['FeatureView', 'FeatureService'],
  namePatterns: 'driver_.*',
  requiredTags: { team: 'ml' },
  actions: ['DESCRIBE', 'READ'],
  policy: roleBasedPolicy(['reader'])
})
permission({ name: 'one-type', types: 'Project', actions: 'ALL_ACTIONS', policy: groupBasedPolicy(['admins']) })
permission({ name: 'ns', policy: namespaceBasedPolicy(['team-a']) })
permission({ name: 'combined', policy: combinedGroupNamespacePolicy(['admins'], ['team-a']), tags: { owner: 'ml' } })
permission({ name: 'open', types: ['Entity'], actions: 'DESCRIBE', policy: allowAll })
void readers

expectTrue<Equal<typeof allowAll, Policy>>()
expectTrue<Equal<Parameters<typeof permission>[0], PermissionInput>>()
// A permission is read-only once built.
// @ts-expect-error
readers.actions = ['CREATE']

// @ts-expect-error policies take a list: roleBasedPolicy(['reader']), not roleBasedPolicy('reader')
roleBasedPolicy('reader')
// @ts-expect-error groupBasedPolicy takes a list
groupBasedPolicy('admins')
// @ts-expect-error namespaceBasedPolicy takes a list
namespaceBasedPolicy('team-a')
// @ts-expect-error the combined policy takes groups and namespaces, both lists
combinedGroupNamespacePolicy(['admins'])
// @ts-expect-error unknown resource type in `types`
permission({ name: 'x', types: ['Featureview'], policy: allowAll })
// @ts-expect-error unknown action in `actions`
permission({ name: 'x', actions: ['READ_ALL'], policy: allowAll })
// @ts-expect-error action names are upper case
permission({ name: 'x', actions: 'describe', policy: allowAll })
// @ts-expect-error a permission needs a policy (Feast's default AllowAll is not implied)
permission({ name: 'x', types: ['FeatureView'] })
// @ts-expect-error a permission needs a name
permission({ types: ['FeatureView'], policy: allowAll })
// @ts-expect-error unknown field (Feast's snake_case belongs in YAML files)
permission({ name: 'x', name_patterns: ['a.*'], policy: allowAll })
// @ts-expect-error tag values are strings
permission({ name: 'x', requiredTags: { tier: 1 }, policy: allowAll })

// --- decide() and the action names -----------------------------------------------------------

const decision: Decision = decide([readers], ANONYMOUS, { type: 'FeatureView', name: 'driver_stats' }, expandActions(['READ', 'DESCRIBE']))
const allowed: boolean = decision.allowed
const message: string = decision.message
void allowed, message
expectTrue<Equal<ReturnType<typeof expandActions>, Action[]>>()
expectTrue<Equal<ActionGroup, 'ALL_ACTIONS' | 'READ' | 'WRITE' | 'CRUD'>>()
decide([readers], { roles: ['reader'], groups: [], namespaces: [] }, { type: 'FeatureView', name: 'a' }, ['READ_ONLINE'])
// @ts-expect-error unknown resource type
decide([readers], ANONYMOUS, { type: 'Table', name: 'a' }, ['READ_ONLINE'])
// @ts-expect-error unknown action
decide([readers], ANONYMOUS, { type: 'FeatureView', name: 'a' }, ['READ_ALL'])
// @ts-expect-error expandActions rejects unknown names
expandActions('EVERYTHING')

// --- Errors ------------------------------------------------------------------------------------

declare const error: unknown
if (error instanceof AuthError) {
  expectTrue<Equal<typeof error.code, AuthErrorCode>>()
  expectTrue<Equal<typeof error.status, 401 | 503>>()
  // @ts-expect-error `code` is one of the stable codes, never a free string
  if (error.code === 'token_invalid') void error
  switch (error.code) {
    case 'provider_unavailable':
    case 'cluster_unavailable':
      break
    default:
      void error.retryAfterSeconds
  }
}
new AuthError('token_expired', 'the token expired')
// @ts-expect-error unknown error code
new AuthError('expired', 'the token expired')
const configFailure = new ConfigError('expected a mapping', { source: 'feature_store.yaml', field: 'auth', line: 3, column: 1 })
const permissionFailure = new PermissionError('unknown action', { permission: 'readers', field: 'actions[0]' })
const asErrors: Error[] = [configFailure, permissionFailure, new AuthError('missing_token', 'no token')]
void asErrors

// --- Diagnostics channels ----------------------------------------------------------------------

expectTrue<Equal<typeof CHANNELS.authenticate, 'feast-authz:authenticate'>>()
expectTrue<Equal<keyof typeof CHANNELS, 'authenticate' | 'authorize' | 'jwksFetch' | 'tokenReview'>>()
// @ts-expect-error unknown channel
void CHANNELS.authentication
// @ts-expect-error the channel names are constants
CHANNELS.authenticate = 'mine'

const outcomes = new Map<AuthenticateEvent['outcome'], number>()
subscribe(CHANNELS.authenticate, (message) => {
  const event = message as AuthenticateEvent
  outcomes.set(event.outcome, (outcomes.get(event.outcome) ?? 0) + 1)
  const code: AuthErrorCode | 'internal_error' | undefined = event.code
  const duration: number = event.durationMs
  void code, duration
  // @ts-expect-error outcomes are success, failure and error
  if (event.outcome === 'ok') void event
  // @ts-expect-error the event carries a fingerprint, never the token
  void event.token
})
subscribe(CHANNELS.authorize, (message) => {
  const event = message as AuthorizeEvent
  expectTrue<Equal<typeof event.decision, 'allow' | 'deny' | 'unauthenticated'>>()
})
