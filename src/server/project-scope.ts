/**
 * Per-project scoping of the reference server's routes, as Feast's REST servers do it: a request
 * acts on the server's project unless it names another one with the `project` query parameter;
 * then that project's resources are looked up and that project's permissions apply (both, so a
 * project's permissions are never checked against another project's resources).
 */
import type { FastifyRequest } from 'fastify'
import { HttpError, insufficientStorage, notFound } from './http-error.ts'
import { createOnlineStore, SampleRowsOverBound, sampleRowsOverBound, type OnlineStore, type OnlineStoreOptions } from './online-store.ts'
import { catalogForProject, type FeatureCatalog } from './catalog.ts'

/** The `project` query parameter: one string (a repeated parameter is a 422, never a guess). */
export const projectQuerySchema = {
  type: 'object',
  properties: { project: { type: 'string' } }
} as const

/** The project a request names, if any; an empty value names none (as in Feast). */
export function requestedProject (request: FastifyRequest): string | undefined {
  const project = (request.query as { project?: unknown } | undefined)?.project
  return typeof project === 'string' && project !== '' ? project : undefined
}

/** What a request works on: the registry of its project, and that project's online store. */
export interface ProjectScope {
  readonly registry: FeatureCatalog
  /**
   * The project's online store, built from the registry's sample rows on first use: a handler
   * calls it after the permission check, so a caller who may not act on the project never meets
   * its store's 507, and a listing never builds a store at all. `request` is whose log says the 507.
   */
  readonly store: (request: FastifyRequest) => OnlineStore
}

/**
 * Resolves a request's project to its scope (each store bounded by `storeOptions`); a project the
 * registry does not have is a 404 (before any permission check: there is nothing to act on). The
 * server's own store is filled now (its sample rows not fitting throw `SampleRowsOverBound`);
 * another project's when a request first acts on it, where sample rows that do not fit make every
 * such request of that project a 507 until the registry changes.
 */
export function createProjectScopes (registry: FeatureCatalog, storeOptions: OnlineStoreOptions = {}): (request: FastifyRequest) => ProjectScope {
  const scopes = new Map<string, ProjectScope>()
  // The server's own project is ready (sample rows loaded) before the first request.
  const own = createOnlineStore(registry, storeOptions)
  scopes.set(registry.project, { registry, store: () => own })
  return (request) => {
    const name = requestedProject(request) ?? registry.project
    const found = catalogForProject(registry, name)
    if (found === undefined) throw notFound(`project ${JSON.stringify(name)} is not in the registry`)
    let scope = scopes.get(found.project)
    // Only projects the registry has get a scope, so the map stays bounded. A store (or its
    // refusal) is kept with its scope: not built again for every request, only for a changed registry.
    if (scope === undefined || scope.registry !== found) {
      scope = otherProjectScope(found, storeOptions)
      scopes.set(found.project, scope)
    }
    return scope
  }
}

// The server's own words for the bound: this module serves buildReferenceServer (and so feast-authz serve).
const SERVER_BOUND = 'the reference server\'s onlineStoreMaxBytes or feast-authz serve --online-store-max-bytes'

function otherProjectScope (registry: FeatureCatalog, storeOptions: OnlineStoreOptions): ProjectScope {
  let built: OnlineStore | HttpError | undefined
  return {
    registry,
    store: (request) => {
      built ??= buildStore(registry, storeOptions, request)
      if (built instanceof HttpError) throw built
      return built
    }
  }
}

/** A project's store, or the 507 that answers each request acting on it when its sample rows do not fit. */
function buildStore (registry: FeatureCatalog, storeOptions: OnlineStoreOptions, request: FastifyRequest): OnlineStore | HttpError {
  try {
    return createOnlineStore(registry, storeOptions)
  } catch (error) {
    // Startup is over: the operator learns it from the log, the caller from a 5xx naming the cause (not a 500).
    if (!(error instanceof SampleRowsOverBound)) throw error
    const message = sampleRowsOverBound(error.facts, SERVER_BOUND)
    request.log.error({ project: error.facts.project, bytes: error.facts.bytes, maxBytes: error.facts.maxBytes }, `feast-authz: ${message}; its requests are answered 507`)
    return insufficientStorage(message, { logged: true })
  }
}
