import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { AuthConfig } from '../config/auth-config.ts'
import type { ManagerHealth } from '../managers/types.ts'
import type { Principal } from '../base/principal.ts'
import type { FeastRegistry } from '../registry/feast-registry.ts'
import { createAuthzCore } from './core.ts'
import { AUTHZ_OPTION_RULES, type AuthzOptions } from './setup.ts'
import { checkOptions, text, type OptionRules } from '../base/option-rules.ts'
import { readRouteAuthz, registerPermissionSupport, type FastifyPermissionSpec } from './fastify-permissions.ts'
import { decorateRequestSlot } from './fastify-request-slot.ts'

/** Per-route settings, under `config.feastAuthz` of a route. */
export interface RouteAuthzConfig {
  /**
   * `true` skips authentication for this route (health checks, metrics).
   *
   * WARNING: anyone who can reach the server can call a public route, `request.principal` is
   * `null` there, and a `permission` on it answers 401. Keep it for routes that reveal nothing.
   */
  readonly public?: boolean
  /** A permission this route requires (checked in a preHandler, after body validation). */
  readonly permission?: FastifyPermissionSpec
}

/** What the plugin adds to the Fastify instance as `fastify.feastAuthz`. */
export interface FeastAuthzDecorator {
  /** The validated `auth` section in force. */
  readonly config: AuthConfig
  /** Whether the identity provider's keys (or the cluster connection) are ready. */
  health (): ManagerHealth
  /**
   * The Feast registry the permissions come from, when the plugin opened the one
   * feature_store.yaml names (no `permissions` option): resource lookups, `refresh()`.
   */
  readonly registry: FeastRegistry | undefined
  /**
   * The store's `project` from feature_store.yaml (a name Feast would take: anything else stops
   * registration), or undefined when it names none.
   */
  readonly project: string | undefined
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; `null` on public routes and before authentication. */
    principal: Principal | null
  }
  interface FastifyInstance {
    /** The plugin's configuration, health and registry (see {@link FeastAuthzDecorator}). */
    feastAuthz: FeastAuthzDecorator
  }
  interface FastifyContextConfig {
    /** feast-authz settings of this route: `public`, `permission`. */
    feastAuthz?: RouteAuthzConfig
  }
}

/** Options of the Fastify plugin: the shared {@link AuthzOptions}, plus `healthRoute`. */
export interface FeastAuthzOptions extends AuthzOptions {
  /**
   * Registers a public `GET` route at this path answering 200 when the identity source is
   * ready (OIDC keys loaded, RoleBinding informer synced) and 503 otherwise, with the details.
   *
   * WARNING: use it as a readiness probe, not a liveness probe: while the identity provider or
   * the API server is unreachable it answers 503, and a liveness probe would restart every pod
   * during the provider's outage. It needs no token, so it tells anyone who can reach it the
   * auth type and those details (key counts, namespace, sync state).
   */
  readonly healthRoute?: string
}

/**
 * What `healthRoute` takes: a path as written. Fastify reads `:` and `*` as a route pattern, and
 * `/:any` or `/*` made every GET path the app lacks a public readiness answer; a `?` or `#` part
 * is never matched by a request's path, so the route would silently answer nothing.
 */
export const HEALTH_ROUTE_PATH = /^\/[^:*?#]*$/
/** {@link HEALTH_ROUTE_PATH} in words, for the plugin's option and `feast-authz serve --health-route`. */
export const HEALTH_ROUTE_EXPECTED = 'a path starting with /, without : * ? or # (a path as written, not a route pattern or a query)'

/** The rules of {@link FeastAuthzOptions}: the shared ones and `healthRoute`. */
const PLUGIN_OPTION_RULES: OptionRules = {
  ...AUTHZ_OPTION_RULES,
  healthRoute: text({ pattern: HEALTH_ROUTE_PATH, expected: HEALTH_ROUTE_EXPECTED })
}

const plugin: FastifyPluginAsync<FeastAuthzOptions> = async (fastify, options) => {
  checkOptions(options, PLUGIN_OPTION_RULES)
  const core = createAuthzCore(options, options.logger ?? fastify.log)
  decorateRequestSlot(fastify, 'principal')
  fastify.decorate('feastAuthz', {
    config: core.config,
    health: () => core.health(),
    registry: core.registry,
    project: core.project
  } satisfies FeastAuthzDecorator)
  registerPermissionSupport(fastify, core.gate)

  const authenticate = core.authenticator<FastifyRequest, FastifyReply, (error?: Error) => void>({
    accept: (request, _reply, done, principal) => {
      request.principal = principal
      done()
    },
    reject: (_request, reply, _done, rejection) => { void reply.code(rejection.status).headers(rejection.headers).send(rejection.body) }
  })
  // onRequest, not preHandler: an anonymous caller never makes us read or parse a body.
  // A callback hook, so that a cached token (answered synchronously) costs no promise.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    if (readRouteAuthz(request, request.routeOptions.config.feastAuthz)?.public === true) { done(); return }
    authenticate(request, reply, done, request.headers, request.raw.rawHeaders, options.logger ?? request.log)
  })

  if (options.healthRoute !== undefined) {
    fastify.get(options.healthRoute, { config: { feastAuthz: { public: true } } }, async (_request, reply) => {
      const { status, body } = core.healthAnswer()
      return await reply.code(status).send(body)
    })
  }

  // Not awaited: a slow or down provider must not hold the server's startup.
  fastify.addHook('onReady', async () => { core.warmUp() })
  fastify.addHook('onClose', async () => { await core.close() })
}

/**
 * The feast-authz Fastify plugin: reads the `auth` section of `feature_store.yaml`,
 * authenticates every request's bearer token in `onRequest` and sets `request.principal`.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify'
 * import feastAuthz from 'feast-authz'
 * const app = Fastify()
 * await app.register(feastAuthz, { config: './feature_store.yaml' })
 * app.get('/health', { config: { feastAuthz: { public: true } } }, async () => 'ok')
 * ```
 */
export const feastAuthz = fp(plugin, { name: 'feast-authz', fastify: '5.x' })
export default feastAuthz
