/**
 * The framework-neutral part of both adapters: setup, the permission gate, authentication with
 * its reporting, health, the registry, warm-up and clean-up. The Fastify plugin and the Express
 * middleware only translate requests and replies to and from what this core decides.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { AuthConfig } from '../config/auth-config.ts'
import { debugEnabled, type AuthLogger } from '../base/logging.ts'
import type { Principal } from '../base/principal.ts'
import { AuthError } from '../base/errors.ts'
import { authenticateChannel } from '../base/observability/channels.ts'
import type { ManagerHealth } from '../managers/types.ts'
import type { FeastRegistry } from '../registry/feast-registry.ts'
import { authenticateUncached, cachedPrincipal, reportAuthentication } from './authenticate-request.ts'
import { rejectionFor, type Rejection } from './challenge.ts'
import { createPermissionGate, type PermissionGate } from './require-permission.ts'
import { setUpAuthz, type AuthzOptions } from './setup.ts'

/**
 * What an adapter does with the outcome of authenticating one request. `Req`, `Res` and `Next`
 * are the framework's own (request, reply, done) or (req, res, next): passed through as they
 * are, so the hot path allocates nothing to carry them.
 */
export interface AuthenticationReplies<Req, Res, Next> {
  /** The caller is `principal`: record it on the request and continue. */
  accept (req: Req, res: Res, next: Next, principal: Principal): void
  /** Send `rejection` (401 with a challenge, 503 with Retry-After, or 500). */
  reject (req: Req, res: Res, next: Next, rejection: Rejection): void
}

/** Authenticates one request; calls back synchronously for a cached token, later otherwise. */
export type RequestAuthenticator<Req, Res, Next> = (
  req: Req, res: Res, next: Next, headers: IncomingHttpHeaders, rawHeaders: readonly string[] | undefined, log: AuthLogger
) => void

/** One adapter instance's state and steps. */
export interface AuthzCore {
  /** The validated `auth` section in force. */
  readonly config: AuthConfig
  /** The `auth.type` in force. */
  readonly authType: AuthConfig['type']
  /** The permission checker shared by every route of this instance. */
  readonly gate: PermissionGate
  /** The Feast registry the permissions come from, when the core opened it. */
  readonly registry: FeastRegistry | undefined
  /** The store's `project` (feature_store.yaml), undefined when it names none. */
  readonly project: string | undefined
  /** Builds the authentication step of one framework. */
  authenticator<Req, Res, Next> (replies: AuthenticationReplies<Req, Res, Next>): RequestAuthenticator<Req, Res, Next>
  /** Whether the identity provider's keys (or the cluster connection) are ready. */
  health (): ManagerHealth
  /** What the public health route answers: the verdict only (the details may say too much). */
  healthAnswer (): { readonly status: 200 | 503, readonly body: { readonly ready: boolean, readonly type: AuthConfig['type'] } }
  /** Starts fetching keys (or syncing the cluster) without holding anyone up. */
  warmUp (): void
  /** Releases the manager's connections and timers, and stops watching the registry. */
  close (): Promise<void>
}

/**
 * Sets up one adapter instance from its options. A bad option throws, after releasing whatever
 * was already opened (the registry, the manager's connections).
 */
export function createAuthzCore (options: AuthzOptions, logger: AuthLogger): AuthzCore {
  const authz = setUpAuthz(options, logger, { openRegistry: true })
  const { manager, realm } = authz
  let closing: Promise<void> | undefined
  let gate: PermissionGate | undefined
  const close = async (): Promise<void> => {
    closing ??= (async () => {
      gate?.close()
      authz.close()
      await manager.close()
    })()
    await closing
  }
  const { project } = authz
  try {
    gate = createPermissionGate({ authType: manager.type, permissions: authz.permissions, realm, logger, ...(project === undefined ? {} : { project }) })
  } catch (error) {
    // A bad permissions option: release the registry and the manager before reporting it.
    close().catch(() => {})
    throw error
  }

  const authenticator = <Req, Res, Next>(replies: AuthenticationReplies<Req, Res, Next>): RequestAuthenticator<Req, Res, Next> => {
    // `reporting`: whether the request's success is reported (debug, or a channel subscriber), decided once.
    const report = (reporting: boolean, log: AuthLogger, headers: IncomingHttpHeaders, startedAt: number, principal: Principal): void => {
      if (reporting) reportAuthentication(log, headers.authorization, startedAt, { principal })
    }
    const rejection = (log: AuthLogger, headers: IncomingHttpHeaders, startedAt: number, error: unknown): Rejection => {
      reportAuthentication(log, headers.authorization, startedAt, { error })
      return rejectionFor(error, realm)
    }
    return (req, res, next, headers, rawHeaders, log) => {
      // A cache hit reads the clock only when its success is reported (debug, or a subscriber).
      const reporting = authenticateChannel.hasSubscribers || debugEnabled(log)
      let startedAt = reporting ? performance.now() : 0
      const hit = cachedPrincipal(authz, headers, rawHeaders)
      if (hit !== undefined) {
        report(reporting, log, headers, startedAt, hit)
        replies.accept(req, res, next, hit)
        return
      }
      if (!reporting) startedAt = performance.now()
      let result: Principal | AuthError | Promise<Principal>
      try {
        result = authenticateUncached(authz, headers, rawHeaders)
      } catch (error) {
        replies.reject(req, res, next, rejection(log, headers, startedAt, error))
        return
      }
      if (result instanceof AuthError) {
        replies.reject(req, res, next, rejection(log, headers, startedAt, result))
        return
      }
      // A token verified without I/O is answered synchronously: no promise.
      if (!(result instanceof Promise)) {
        report(reporting, log, headers, startedAt, result)
        replies.accept(req, res, next, result)
        return
      }
      result.then(
        (principal) => {
          report(reporting, log, headers, startedAt, principal)
          replies.accept(req, res, next, principal)
        },
        (error: unknown) => { replies.reject(req, res, next, rejection(log, headers, startedAt, error)) }
      )
    }
  }

  return {
    config: authz.config,
    authType: manager.type,
    gate,
    registry: authz.registry,
    project,
    authenticator,
    health: () => manager.health(),
    healthAnswer: () => {
      const { ready } = manager.health()
      return { status: ready ? 200 : 503, body: { ready, type: manager.type } }
    },
    // warmUp reports its own failures; a stray rejection must not become a process-killing unhandled one.
    warmUp: () => { manager.warmUp().catch(() => {}) },
    close
  }
}
