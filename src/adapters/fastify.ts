import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { AuthConfig } from '../config/auth-config.ts'
import type { ManagerHealth } from '../managers/types.ts'
import type { Principal } from '../base/principal.ts'
import type { FeastRegistry } from '../registry/feast-registry.ts'
import { performance } from 'node:perf_hooks'
import { debugEnabled, type AuthLogger } from '../base/logging.ts'
import { authenticateChannel } from '../base/observability/channels.ts'
import { authenticateRequest, reportAuthentication } from './authenticate-request.ts'
import { rejectionFor } from './challenge.ts'
import { setUpAuthz, type AuthzOptions } from './setup.ts'
import { registerPermissionSupport, type FastifyPermissionSpec } from './fastify-permissions.ts'
import { createPermissionGate } from './require-permission.ts'

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

const plugin: FastifyPluginAsync<FeastAuthzOptions> = async (fastify, options) => {
  const logger = options.logger ?? fastify.log
  const authz = setUpAuthz(options, logger, { openRegistry: true })
  const { manager, realm } = authz

  let gate
  try {
    gate = createPermissionGate({ authType: manager.type, permissions: authz.permissions, realm, logger })
  } catch (error) {
    // A bad permissions option: release the registry and the manager before reporting it.
    authz.close()
    await manager.close()
    throw error
  }
  fastify.decorateRequest('principal', null)
  fastify.decorate('feastAuthz', {
    config: authz.config,
    health: () => manager.health(),
    registry: authz.registry
  } satisfies FeastAuthzDecorator)
  registerPermissionSupport(fastify, gate)

  const logFor = (request: FastifyRequest): AuthLogger => options.logger ?? request.log
  const accept = (request: FastifyRequest, principal: Principal, startedAt: number): void => {
    request.principal = principal
    const log = logFor(request)
    if (authenticateChannel.hasSubscribers || debugEnabled(log)) {
      reportAuthentication(log, request.headers.authorization, startedAt, { principal })
    }
  }
  const reject = (request: FastifyRequest, reply: FastifyReply, error: unknown, startedAt: number): void => {
    reportAuthentication(logFor(request), request.headers.authorization, startedAt, { error })
    const rejection = rejectionFor(error, realm)
    void reply.code(rejection.status).headers(rejection.headers).send(rejection.body)
  }

  // onRequest, not preHandler: an anonymous caller never makes us read or parse a body.
  // A callback hook, so that a cached token (answered synchronously) costs no promise.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    if (request.routeOptions.config.feastAuthz?.public === true) { done(); return }
    const startedAt = performance.now()
    let result: Principal | Promise<Principal>
    try {
      result = authenticateRequest(authz, request.headers, request.raw.rawHeaders)
    } catch (error) {
      reject(request, reply, error, startedAt)
      return
    }
    if (result instanceof Promise) {
      result.then(
        (principal) => { accept(request, principal, startedAt); done() },
        (error: unknown) => { reject(request, reply, error, startedAt) }
      )
    } else {
      accept(request, result, startedAt)
      done()
    }
  })

  if (options.healthRoute !== undefined) {
    fastify.get(options.healthRoute, { config: { feastAuthz: { public: true } } }, async (_request, reply) => {
      const health = manager.health()
      // Public, so only the verdict: the details (namespaces, cache sizes) stay in fastify.feastAuthz.health().
      return await reply.code(health.ready ? 200 : 503).send({ ready: health.ready, type: manager.type })
    })
  }

  fastify.addHook('onReady', async () => {
    // Not awaited: a slow or down provider must not hold the server's startup.
    // warmUp reports its own failures; a stray rejection must not become a process-killing unhandled one.
    manager.warmUp().catch(() => {})
  })
  fastify.addHook('onClose', async () => {
    authz.close()
    await manager.close()
  })
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
