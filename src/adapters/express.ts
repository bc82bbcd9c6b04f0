/**
 * feast-authz for Express 4 and 5 (`feast-authz/express`): an `authenticate` middleware with the
 * same 401/503/RFC 6750 behaviour as the Fastify plugin, and `requirePermission(spec)`.
 * Both run the shared steps of authenticate-request.ts and require-permission.ts.
 *
 * Neither middleware returns a promise: Express 4 ignores one (a rejection would be unhandled,
 * which ends the process on Node 15+), so every outcome, errors included, goes to `next` or to
 * the response explicitly, and both majors behave alike.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import type { AuthConfig } from '../config/auth-config.ts'
import { createLogger, type AuthLogger } from '../base/logging.ts'
import type { ManagerHealth } from '../managers/types.ts'
import type { Resource } from '../permissions/model.ts'
import type { Principal } from '../base/principal.ts'
import type { FeastRegistry } from '../registry/feast-registry.ts'
import { createLogThrottle } from '../base/observability/throttle.ts'
import type { Rejection } from './challenge.ts'
import { createAuthzCore } from './core.ts'
import type { PermissionSpec } from './require-permission.ts'
import { AUTHZ_OPTION_RULES, type AuthzOptions } from './setup.ts'
import { absent, checkOptions, type OptionRules } from '../base/option-rules.ts'

declare global {
  namespace Express {
    interface Request {
      /** The authenticated caller, set by `authenticate`; absent on routes it did not run on. */
      principal?: Principal | null
      /** In filter mode, the resources the caller may see. */
      permittedResources?: readonly Resource[]
    }
  }
}

// What an Express app uses beside the middlewares, exported here too so that it never imports the
// root entry: that one is the Fastify plugin, and its declarations name Fastify's types, which an
// Express app need not have installed (fastify is an optional peer dependency).
export { feastAuthzLogSerializers, feastAuthzLoggerOptions, feastAuthzRedactPaths, type AuthLogger } from '../base/logging.ts'
export { CHANNELS, type AuthenticateEvent, type AuthorizeEvent, type JwksFetchEvent, type TokenReviewEvent } from '../base/observability/channels.ts'
export type { Principal } from '../base/principal.ts'
export type { Resource } from '../permissions/model.ts'

/** A permission requirement on an Express route. */
export type ExpressPermissionSpec = PermissionSpec<Request>

/** Options of {@link feastAuthzExpress}: the same as the Fastify plugin's, without `healthRoute`. */
export type FeastAuthzExpressOptions = AuthzOptions

/**
 * The shared option rules, and `healthRoute` refused: it is the Fastify plugin's, and JavaScript
 * callers (whom the types do not stop) would otherwise get no route and no word of why.
 */
const EXPRESS_OPTION_RULES: OptionRules = {
  ...AUTHZ_OPTION_RULES,
  healthRoute: absent('it is an option of the Fastify plugin; in Express, mount a route of your own that answers 200 or 503 from authz.health().ready (docs/observability.md)')
}

/** What `feastAuthzExpress()` returns. */
export interface FeastAuthzExpress {
  /** Authenticates the bearer token and sets `req.principal`; answers 401 (with a challenge) or 503 itself. */
  readonly authenticate: RequestHandler
  /**
   * Answers 401 without `req.principal`, 403 on denial, and otherwise calls `next()`.
   * Generic over the route's request types, which TypeScript takes from the route it is
   * passed to: `app.get('/views/:view', authz.requirePermission({ resources: (req) => ... }))`
   * types `req.params.view` as a string, with no cast.
   */
  requirePermission<P = Request['params'], ResBody = unknown, ReqBody = unknown, ReqQuery = Request['query'], Locals extends Record<string, unknown> = Record<string, unknown>> (
    spec: PermissionSpec<Request<P, ResBody, ReqBody, ReqQuery, Locals>>
  ): RequestHandler<P, ResBody, ReqBody, ReqQuery, Locals>
  /** The validated `auth` section in force. */
  readonly config: AuthConfig
  /** Whether the identity provider's keys (or the cluster connection) are ready. */
  health (): ManagerHealth
  /**
   * The Feast registry the permissions come from, when feature_store.yaml names one and no
   * `permissions` option was given: resource lookups, `refresh()`.
   */
  readonly registry: FeastRegistry | undefined
  /** The store's `project` from feature_store.yaml (as in the Fastify plugin's decorator), or undefined when it names none. */
  readonly project: string | undefined
  /** Releases the manager's connections and timers, and stops watching the registry. */
  close (): Promise<void>
}

/**
 * Builds the Express middlewares from `feature_store.yaml` (and optional permissions).
 *
 * @example
 * ```ts
 * import express from 'express'
 * import { feastAuthzExpress } from 'feast-authz/express'
 * const authz = feastAuthzExpress({ config: './feature_store.yaml', permissions: './permissions.yaml' })
 * const app = express()
 * app.get('/health', (_req, res) => { res.send('ok') })
 * app.use(authz.authenticate)
 * app.get('/views/:name', authz.requirePermission({
 *   resources: (req) => ({ type: 'FeatureView', name: String(req.params.name) }),
 *   actions: 'DESCRIBE'
 * }), (req, res) => { res.json({ caller: req.principal?.username }) })
 * ```
 */
export function feastAuthzExpress (options: FeastAuthzExpressOptions = {}): FeastAuthzExpress {
  checkOptions(options, EXPRESS_OPTION_RULES)
  const logger: AuthLogger = options.logger ?? createLogger()
  const core = createAuthzCore(options, logger)
  // Express has no startup hook: start fetching keys now, without holding anyone up.
  core.warmUp()

  const authenticateRequest = core.authenticator<Request, Response, NextFunction>({
    accept: (req, _res, next, principal) => {
      req.principal = principal
      next()
    },
    reject: (_req, res, next, rejection) => { refuse(res, next, rejection) }
  })
  // Not async: a cached token continues synchronously, as in the Fastify plugin.
  const authenticate: RequestHandler = (req, res, next) => {
    authenticateRequest(req, res, next, req.headers, req.rawHeaders, logger)
  }
  // Without `authenticate` in front, a route sees no principal and answers 401 even to a valid token.
  const hintThrottle = createLogThrottle()

  return {
    authenticate,
    // The route's request types only narrow what the spec's callbacks see: one implementation.
    requirePermission: ((spec: ExpressPermissionSpec): RequestHandler => {
      const compiled = core.gate.compile(spec)
      return (req: Request, res: Response, next: NextFunction) => {
        if (req.principal === undefined && core.authType !== 'no_auth') {
          const { log, suppressed } = hintThrottle('no-authenticate')
          if (log) {
            logger.warn({ path: req.path, ...(suppressed > 0 ? { suppressed } : {}) },
              'feast-authz: requirePermission found no principal on the request: did you mount authenticate (app.use(authz.authenticate)) before this route?')
          }
        }
        // An error of the spec's callbacks (a 422 for a bad body, say) reaches the app's error handler as it was thrown.
        core.gate.decide(compiled, req, req.principal ?? null, logger, (outcome) => {
          if (!outcome.allowed) { refuse(res, next, outcome.rejection); return }
          if (compiled.filter) req.permittedResources = outcome.resources
          next()
        }, (error) => { forward(next, error) })
      }
    }) as FeastAuthzExpress['requirePermission'],
    config: core.config,
    health: () => core.health(),
    registry: core.registry,
    project: core.project,
    close: async () => { await core.close() }
  }
}

// Called from promise callbacks too, where a throw would be an unhandled rejection: a reply that
// cannot be sent (another middleware, a timeout say, already answered) goes to the error handler.
function refuse (res: Response, next: NextFunction, rejection: Rejection): void {
  try {
    res.status(rejection.status).set(rejection.headers).json(rejection.body)
  } catch (error) {
    forward(next, error)
  }
}

// `next()`, `next('route')` and `next('router')` would go on past the check: a thrown value that is
// not an object (nothing at all, as from `Promise.reject()`, or a string) reaches the error handler as an Error.
function forward (next: NextFunction, error: unknown): void {
  next(typeof error === 'object' && error !== null ? error : new Error(`feast-authz: the permission check failed: ${String(error)}`))
}

export default feastAuthzExpress
