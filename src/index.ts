/**
 * feast-authz: the authorization layer of Feast-style feature servers.
 *
 * - `feastAuthz` (default export): the Fastify plugin.
 * - `feast-authz/express`: the same for Express 5.
 * - `feast-authz/client`: token resolution and header injection for clients.
 * - `feast-authz/server`: the reference feature server.
 */
export { feastAuthz as default, feastAuthz, type FeastAuthzOptions, type FeastAuthzDecorator, type RouteAuthzConfig } from './adapters/fastify.ts'
export type { FastifyPermissionSpec } from './adapters/fastify-permissions.ts'
export type { PermissionSpec, ActionName, Resources } from './adapters/require-permission.ts'
export type { AuthzOptions } from './adapters/setup.ts'
export type { PermissionSource } from './permissions/source.ts'

export { loadAuthConfig, type AuthConfig, type AuthType, type NoAuthConfig, type OidcAuthConfig, type OidcServerConfig, type KubernetesAuthConfig, type LoadOptions } from './config/auth-config.ts'
export type { FeatureStoreSource } from './config/feature-store-file.ts'
export { ConfigError } from './config/errors.ts'

export { AuthError, type AuthErrorCode } from './base/errors.ts'
export { createAuthManager } from './managers/create-manager.ts'
export type { AuthManager, ManagerHealth } from './managers/types.ts'
export { ANONYMOUS, type Principal, type AuthSource } from './base/principal.ts'

export {
  ACTIONS, ACTION_GROUPS, RESOURCE_TYPES, expandActions,
  PermissionError, permission, allowAll, roleBasedPolicy, groupBasedPolicy, namespaceBasedPolicy, combinedGroupNamespacePolicy,
  decide, describeDecision, filterAllowed, loadPermissionsFile, parsePermissionsYaml,
  type Action, type ActionGroup, type Permission, type PermissionInput, type Policy, type Resource, type ResourceType,
  type Decision, type FilterResult, type PermissionVerdict
} from './permissions/index.ts'

export {
  openRegistryFromConfig, openFeastRegistry, loadRegistryFile, readRegistrySetting, encodeRegistry, UNKNOWN_PROJECT_PERMISSIONS,
  type FeastRegistry, type FeastRegistryOptions, type RegistrySnapshot, type RegistryProject, type RefreshOutcome, type RegistrySetting
} from './registry/index.ts'

export { renderFeatureStore, kubernetesRbac, oidcRbac, type RenderOptions, type RenderedFeatureStore, type KubeObject, type KubernetesRbacOptions } from './operator/index.ts'

export { CHANNELS, type AuthenticateEvent, type AuthorizeEvent, type JwksFetchEvent, type TokenReviewEvent } from './base/observability/channels.ts'
export { feastAuthzLogSerializers, feastAuthzLoggerOptions, feastAuthzRedactPaths, type AuthLogger } from './base/logging.ts'
