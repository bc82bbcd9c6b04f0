/**
 * A real Fastify server with the feast-authz plugin and one permission-protected route,
 * shared by the client and intra end-to-end tests (127.0.0.1, port 0).
 *
 * - `GET /features/driver`: needs READ_ONLINE on FeatureView `driver` (role `reader`).
 * - `GET /whoami`: authenticated only; answers the principal.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import feastAuthz, { type FeastAuthzOptions } from '../../src/adapters/fastify.ts'
import { permission, roleBasedPolicy } from '../../src/permissions/index.ts'
import { principalToJSON } from '../../src/base/principal.ts'

export interface ProtectedApp {
  readonly app: FastifyInstance
  readonly url: string
  close (): Promise<void>
}

/** `plugin` adds plugin options, e.g. a `manager` built against a fake cluster. */
export async function startProtectedApp (auth: Record<string, unknown>, plugin: Omit<FeastAuthzOptions, 'config' | 'permissions'> = {}): Promise<ProtectedApp> {
  const app = Fastify({ logger: false })
  await app.register(feastAuthz, {
    config: { project: 'test', auth },
    oidc: { unknownKidCooldownSeconds: 0.05, failureBackoffSeconds: 0.05 },
    permissions: [permission({ name: 'readers', types: ['FeatureView'], actions: ['READ_ONLINE'], policy: roleBasedPolicy(['reader']) })],
    ...plugin
  })
  app.get('/features/driver', { preHandler: app.requirePermission({ resources: { type: 'FeatureView', name: 'driver' }, actions: 'READ_ONLINE' }) }, async () => ({ features: ['trips_today'] }))
  app.get('/whoami', async (request) => ({ principal: request.principal === null ? null : principalToJSON(request.principal) }))
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, url, close: async () => { await app.close() } }
}
