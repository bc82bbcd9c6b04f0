/**
 * Per-project scoping of the reference server's routes, as Feast's REST servers do it: a request
 * acts on the server's project unless it names another one with the `project` query parameter;
 * then that project's resources are looked up and that project's permissions apply (both, so a
 * project's permissions are never checked against another project's resources).
 */
import type { FastifyRequest } from 'fastify'
import { insufficientStorage, notFound, type HttpError } from './http-error.ts'
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

/** What a request works on: the registry and online store of its project. */
export interface ProjectScope {
  readonly registry: FeatureCatalog
  readonly store: OnlineStore
}

/**
 * Resolves a request's project to its registry and online store (each store bounded by
 * `storeOptions`); a project the registry does not have is a 404 (before any permission check:
 * there is nothing to act on). The server's own store is filled now (its sample rows not fitting
 * throw `SampleRowsOverBound`); another project's on its first request, where sample rows that do
 * not fit make that project's every request a 507 until the registry changes.
 */
export function createProjectScopes (registry: FeatureCatalog, storeOptions: OnlineStoreOptions = {}): (request: FastifyRequest) => ProjectScope {
  const scopes = new Map<string, ProjectScope | Unservable>()
  // The server's own project is ready (sample rows loaded) before the first request.
  scopes.set(registry.project, { registry, store: createOnlineStore(registry, storeOptions) })
  return (request) => {
    const name = requestedProject(request) ?? registry.project
    const found = catalogForProject(registry, name)
    if (found === undefined) throw notFound(`project ${JSON.stringify(name)} is not in the registry`)
    let scope = scopes.get(found.project)
    // Only projects the registry has get a scope, so the map stays bounded. A refusal is kept as
    // a scope is: the store is not built again for every request, only for a changed registry.
    if (scope === undefined || scope.registry !== found) {
      scope = otherProjectScope(found, storeOptions, request)
      scopes.set(found.project, scope)
    }
    if ('refusal' in scope) throw scope.refusal
    return scope
  }
}

/** A project whose sample rows do not fit its store: each request for it is answered with `refusal`. */
interface Unservable {
  readonly registry: FeatureCatalog
  readonly refusal: HttpError
}

// The server's own words for the bound: this module serves buildReferenceServer (and so feast-authz serve).
const SERVER_BOUND = 'the reference server\'s onlineStoreMaxBytes or feast-authz serve --online-store-max-bytes'

function otherProjectScope (registry: FeatureCatalog, storeOptions: OnlineStoreOptions, request: FastifyRequest): ProjectScope | Unservable {
  try {
    return { registry, store: createOnlineStore(registry, storeOptions) }
  } catch (error) {
    // Startup is over: the operator learns it from the log, the caller from a 5xx naming the cause (not a 500).
    if (!(error instanceof SampleRowsOverBound)) throw error
    const message = sampleRowsOverBound(error.facts, SERVER_BOUND)
    request.log.error({ project: error.facts.project, bytes: error.facts.bytes, maxBytes: error.facts.maxBytes }, `feast-authz: ${message}; its requests are answered 507`)
    return { registry, refusal: insufficientStorage(message, { logged: true }) }
  }
}
