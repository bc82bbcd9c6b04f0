/**
 * Permission checks for the Fastify plugin: `fastify.requirePermission(spec)` as an explicit
 * preHandler, and the same check from route config (`config: { feastAuthz: { permission } }`).
 * Both run the shared gate of require-permission.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import type { Resource } from '../permissions/model.ts'
import type { CompiledPermissionSpec, PermissionGate, PermissionOutcome, PermissionSpec } from './require-permission.ts'

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
     * app.post('/views/:name', {
     *   preHandler: app.requirePermission({
     *     resources: (request) => ({ type: 'FeatureView', name: (request.params as { name: string }).name }),
     *     actions: 'WRITE_ONLINE'
     *   })
     * }, handler)
     * ```
     */
    requirePermission (spec: FastifyPermissionSpec): preHandlerAsyncHookHandler
  }
}

/** Adds the decorator and the route-config hook to `fastify` (called by the plugin). */
export function registerPermissionSupport (fastify: FastifyInstance, gate: PermissionGate): void {
  fastify.decorateRequest('permittedResources', null)
  fastify.decorate('requirePermission', (spec: FastifyPermissionSpec): preHandlerAsyncHookHandler => {
    const compiled = gate.compile(spec)
    return async function requirePermission (request: FastifyRequest, reply: FastifyReply) {
      return await enforce(gate, compiled, request, reply)
    }
  })

  // Route config is compiled when the route is added (a bad spec fails at startup) and becomes
  // one more route-level preHandler, so routes without a permission pay nothing.
  fastify.addHook('onRoute', (route) => {
    const spec = (route.config as { feastAuthz?: { permission?: FastifyPermissionSpec } } | undefined)?.feastAuthz?.permission
    if (spec === undefined) return
    const compiled = gate.compile(spec)
    const check: preHandlerAsyncHookHandler = async function feastAuthzRoutePermission (request, reply) {
      return await enforce(gate, compiled, request, reply)
    }
    const existing = route.preHandler
    route.preHandler = existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])]
  })
}

async function enforce (gate: PermissionGate, spec: CompiledPermissionSpec<FastifyRequest>, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const outcome: PermissionOutcome = await gate.evaluate(spec, request, request.principal, request.log)
  if (outcome.allowed) {
    if (spec.filter) request.permittedResources = outcome.resources
    return undefined
  }
  const { rejection } = outcome
  return await reply.code(rejection.status).headers(rejection.headers).send(rejection.body)
}
