/**
 * Per-project scoping of the reference server's routes, as Feast's REST servers do it: a request
 * acts on the server's project unless it names another one with the `project` query parameter;
 * then that project's resources are looked up and that project's permissions apply (both, so a
 * project's permissions are never checked against another project's resources).
 */
import type { FastifyRequest } from 'fastify'
import { notFound } from './http-error.ts'
import { createOnlineStore, type OnlineStore, type OnlineStoreOptions } from './online-store.ts'
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
 * there is nothing to act on).
 */
export function createProjectScopes (registry: FeatureCatalog, storeOptions: OnlineStoreOptions = {}): (request: FastifyRequest) => ProjectScope {
  const scopes = new Map<string, ProjectScope>()
  // The server's own project is ready (sample rows loaded) before the first request.
  scopes.set(registry.project, { registry, store: createOnlineStore(registry, storeOptions) })
  return (request) => {
    const name = requestedProject(request) ?? registry.project
    const found = catalogForProject(registry, name)
    if (found === undefined) throw notFound(`project ${JSON.stringify(name)} is not in the registry`)
    let scope = scopes.get(found.project)
    // Only projects the registry has get a scope, so the map stays bounded.
    if (scope === undefined || scope.registry !== found) {
      scope = { registry: found, store: createOnlineStore(found, storeOptions) }
      scopes.set(found.project, scope)
    }
    return scope
  }
}
