/**
 * `GET /health` as Feast's feature server answers it: 200 while the registry can be read, 503
 * when it cannot (Feast's handler lists the projects and answers 503 when that raises, which a
 * registry file gone or unparsable does once the cache is due a refresh). The Feast operator
 * points the startup, liveness and readiness probes of the online server all at this path.
 *
 * The identity source's readiness is said in the body but does not decide the status: Feast's
 * `/health` ignores its identity provider, and a liveness probe failing through a provider's
 * outage would restart every pod for nothing (keys already loaded and cached identities still
 * authenticate). The body says states only: no path, no message, nothing from a token.
 */
import type { FastifyInstance } from 'fastify'
import type { FeastRegistry, RegistryFileState } from '../registry/index.ts'

/** Where Feast's feature server answers its health. */
export const HEALTH_PATH = '/health'

/** The body of `GET /health`. */
interface HealthBody {
  readonly status: 'ok' | 'unavailable'
  readonly registry: RegistryFileState
  readonly auth: { readonly type: string, readonly ready: boolean }
}

/**
 * Registers the public `GET /health`. `registries` are the Feast registries the server reads (the
 * one served, and the one its permissions come from when that is another); a catalog read once at
 * startup is always `current`. The worst state of them is said: a permission registry that cannot
 * be read is as much an outage as a served one. A refused file (read, but not taken) stays a 200:
 * the version in force is served, and a liveness restart would accept the file this server refused.
 */
export function registerHealthRoute (app: FastifyInstance, registries: readonly FeastRegistry[]): void {
  app.get(HEALTH_PATH, { config: { feastAuthz: { public: true } } }, async (_request, reply) => {
    const state = worstState(registries)
    const body: HealthBody = {
      status: state === 'unreadable' ? 'unavailable' : 'ok',
      registry: state,
      auth: { type: app.feastAuthz.config.type, ready: app.feastAuthz.health().ready }
    }
    return await reply.code(state === 'unreadable' ? 503 : 200).send(body)
  })
}

const SEVERITY: Readonly<Record<RegistryFileState, number>> = { current: 0, refused: 1, unreadable: 2 }

function worstState (registries: readonly FeastRegistry[]): RegistryFileState {
  let worst: RegistryFileState = 'current'
  for (const registry of registries) {
    const state = registry.fileState()
    if (SEVERITY[state] > SEVERITY[worst]) worst = state
  }
  return worst
}
