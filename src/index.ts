/**
 * feast-authz: the authorization layer of Feast-style feature servers. The root entry is the
 * Fastify plugin and its types; each other audience has its own entry point:
 *
 * - `feastAuthz` (default export): the Fastify plugin.
 * - `feast-authz/express`: the same for Express 4 and 5.
 * - `feast-authz/permissions`: the permission model, definitions, YAML files and the decision engine.
 * - `feast-authz/registry`: Feast registry files: resources and permissions.
 * - `feast-authz/operator`: a FeatureStore resource rendered into auth configuration.
 * - `feast-authz/client`: token resolution and header injection for clients.
 * - `feast-authz/server`: the reference feature server.
 * - `feast-authz/online`: Feast's online reads (catalog, online store, get-online-features) without Fastify.
 */
export { feastAuthz as default, feastAuthz, type FeastAuthzOptions, type FeastAuthzDecorator, type RouteAuthzConfig } from './adapters/fastify.ts'
export type { FastifyPermissionSpec } from './adapters/fastify-permissions.ts'
export type { PermissionSpec, ActionName, Resources } from './adapters/require-permission.ts'
export type { AuthzOptions } from './adapters/setup.ts'
export type { PermissionSource } from './permissions/source.ts'
export type { Action, ActionGroup, Permission, Resource, ResourceType } from './permissions/model.ts'
export type { FeastRegistry } from './registry/feast-registry.ts'

export { loadAuthConfig, type AuthConfig, type AuthType, type NoAuthConfig, type OidcAuthConfig, type OidcServerConfig, type KubernetesAuthConfig, type LoadOptions } from './config/auth-config.ts'
export { readFeatureStoreFile, type FeatureStoreFile, type FeatureStoreSource } from './config/feature-store-file.ts'

export { AuthError, FeastAuthzError, OptionError, type AuthErrorCode } from './base/errors.ts'
export { ConfigError } from './config/errors.ts'
export { PermissionError } from './permissions/errors.ts'

export { createAuthManager, type ManagerOptions } from './managers/create-manager.ts'
export type { AuthManager, ManagerHealth } from './managers/types.ts'
export type { ClusterConnectionOption, InformerTuning, KubernetesOptions, KubernetesTuning } from './managers/kubernetes/tuning.ts'
export { ANONYMOUS, type Principal, type AuthSource } from './base/principal.ts'

export { CHANNELS, type AuthenticateEvent, type AuthorizeEvent, type JwksFetchEvent, type TokenReviewEvent } from './base/observability/channels.ts'
export { feastAuthzLogSerializers, feastAuthzLoggerOptions, feastAuthzRedactPaths, type AuthLogger } from './base/logging.ts'
