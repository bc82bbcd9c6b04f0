/**
 * Permission checks for the Fastify plugin: `fastify.requirePermission(spec)` as an explicit
 * preHandler, and the same check from route config (`config: { feastAuthz: { permission } }`).
 * Both run the shared gate of require-permission.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault, RouteGenericInterface } from 'fastify'
import { boolean, checkOptions, unchecked, type OptionRules } from '../base/option-rules.ts'
import type { Resource } from '../permissions/model.ts'
import type { CompiledPermissionSpec, PermissionGate, PermissionOutcome, PermissionSpec } from './require-permission.ts'
import { decorateRequestSlot } from './fastify-request-slot.ts'

/** A permission requirement on a Fastify route. */
export type FastifyPermissionSpec = PermissionSpec<FastifyRequest>

declare module 'fastify' {
  interface FastifyRequest {
    /** In filter mode, the resources the caller may see; `null` when no filter check ran. */
    permittedResources: readonly Resource[] | null
  }
  interface FastifyInstance {
    /**
     * A preHandler that answers 401 without an authenticated principal, 403 when the
     * permissions deny, and continues otherwise.
     *
     * @example
     * ```ts
     * app.post<{ Params: { name: string } }>('/views/:name', {
     *   preHandler: app.requirePermission({
     *     resources: (request) => ({ type: 'FeatureView', name: request.params.name }),
     *     actions: 'WRITE_ONLINE'
     *   })
     * }, handler)
     * ```
     * Generic over the route's types (`Params`, `Body`, ...), which TypeScript takes from the
     * route it is passed to, so the callbacks need no casts.
     */
    requirePermission<RouteGeneric extends RouteGenericInterface = RouteGenericInterface> (
      spec: PermissionSpec<FastifyRequest<RouteGeneric>>
    ): preHandlerAsyncHookHandler<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, RouteGeneric>
  }
}

/**
 * The route's `config.feastAuthz` as the plugin's onRequest hook read it (`false`: the route has
 * none), so that the permission preHandler does not build Fastify's `routeOptions` a second
 * time. Absent (not read) sends the preHandler to `routeOptions` itself: it never relies on a
 * value another hook failed to set. Not a request decorator: Fastify sets each decorator on every
 * request it builds, through a store V8 cannot specialise (≈ 0.1 µs each), where this is set only
 * by our own hook.
 */
export const ROUTE_AUTHZ = Symbol('feast-authz route config')

// The permission spec is checked by compiling it.
const ROUTE_CONFIG_RULES: OptionRules = { public: boolean(), permission: unchecked() }

interface RouteAuthzCarrier { [ROUTE_AUTHZ]?: { readonly permission?: FastifyPermissionSpec } | false | null }

/** Reads the route's feast-authz settings once per request, for both hooks. */
export function readRouteAuthz<T extends { readonly permission?: FastifyPermissionSpec }> (request: FastifyRequest, route: T | undefined): T | undefined {
  (request as unknown as RouteAuthzCarrier)[ROUTE_AUTHZ] = route ?? false
  return route
}

/** Adds the decorator and the route-config hook to `fastify` (called by the plugin). */
export function registerPermissionSupport (fastify: FastifyInstance, gate: PermissionGate): void {
  decorateRequestSlot(fastify, 'permittedResources')
  // The route's types only narrow what the spec's callbacks see: one implementation.
  fastify.decorate('requirePermission', ((spec: FastifyPermissionSpec): preHandlerAsyncHookHandler => {
    const compiled = gate.compile(spec)
    return async function requirePermission (request: FastifyRequest, reply: FastifyReply) {
      return apply(compiled, request, reply, await gate.evaluate(compiled, request, request.principal, request.log))
    }
  }) as FastifyInstance['requirePermission'])

  // Route-config permissions are enforced by a global preHandler reading the route's own config,
  // so they hold for every route, including routes declared before the plugin finished loading
  // (an un-awaited register): onRoute only sees the routes added after it.
  const compiledSpecs = new WeakMap<FastifyPermissionSpec, CompiledPermissionSpec<FastifyRequest>>()
  const compiledFor = (spec: FastifyPermissionSpec): CompiledPermissionSpec<FastifyRequest> => {
    let compiled = compiledSpecs.get(spec)
    if (compiled === undefined) {
      compiled = gate.compile(spec)
      compiledSpecs.set(spec, compiled)
    }
    return compiled
  }
  // Compiling as routes are added makes a bad spec fail at startup, for every route onRoute sees.
  fastify.addHook('onRoute', (route) => {
    const authz = (route.config as { feastAuthz?: { permission?: FastifyPermissionSpec } } | undefined)?.feastAuthz
    // A misspelt `permission` would leave the route to every authenticated caller, unchecked.
    checkOptions(authz, ROUTE_CONFIG_RULES, { owner: `route ${[route.method].flat().join(',')} ${route.url}`, path: 'config.feastAuthz' })
    if (authz?.permission !== undefined) compiledFor(authz.permission)
  })
  // A callback hook: routes without a permission pay one property lookup, no promise.
  fastify.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const route = (request as unknown as RouteAuthzCarrier)[ROUTE_AUTHZ]
    // Only the two values readRouteAuthz writes are trusted; anything else is read afresh.
    const spec = route === false ? undefined : (typeof route === 'object' && route !== null ? route : request.routeOptions.config.feastAuthz)?.permission
    if (spec === undefined) { done(); return }
    let compiled: CompiledPermissionSpec<FastifyRequest>
    try {
      compiled = compiledFor(spec)
    } catch (error) {
      done(error as Error)
      return
    }
    // A spec resolved at once (static resources, a synchronous callback) continues without a promise.
    gate.decide(compiled, request, request.principal, request.log,
      (outcome) => { if (apply(compiled, request, reply, outcome) === undefined) done() },
      (error) => { done(error as Error) })
  })
}

/** Continues (undefined) or sends the refusal (the reply, which the hook then returns or leaves without calling done). */
function apply (
  spec: CompiledPermissionSpec<FastifyRequest>,
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: PermissionOutcome
): FastifyReply | undefined {
  if (outcome.allowed) {
    if (spec.filter) request.permittedResources = outcome.resources
    return undefined
  }
  const { rejection } = outcome
  return reply.code(rejection.status).headers(rejection.headers).send(rejection.body)
}
