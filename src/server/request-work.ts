/**
 * What a request works on, computed once and kept with the request: the permission step (a
 * preHandler) and the route handler must see the same registry snapshot. Computing it twice
 * would let a registry refresh in between make the handler act on resources that were never
 * checked (a view renamed, retagged or added to a push source), or answer 404 after a 200 check.
 */
import type { FastifyRequest } from 'fastify'

/**
 * `compute` wrapped to run at most once per request: later calls for the same request return
 * the first result. A throw (404, 422) is not kept: the request ends with it anyway.
 *
 * A WeakMap rather than a request decorator: nothing is added to `FastifyRequest`'s type (which
 * every user of the package would see), and entries go with their requests.
 */
export function oncePerRequest<T> (compute: (request: FastifyRequest) => T): (request: FastifyRequest) => T {
  const results = new WeakMap<FastifyRequest, { value: T }>()
  return (request) => {
    const kept = results.get(request)
    if (kept !== undefined) return kept.value
    const value = compute(request)
    results.set(request, { value })
    return value
  }
}
