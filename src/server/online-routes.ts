/**
 * Feast's online feature server routes, with its route → action map:
 *
 * | Route | Check |
 * |---|---|
 * | `POST /get-online-features` | READ_ONLINE on the feature service, or on each referenced view and each on-demand view's sources |
 * | `POST /push` | WRITE_ONLINE / WRITE_OFFLINE / both (by `to`) on every view fed by the push source; none (a 422) when it feeds none |
 * | `POST /write-to-online-store` | WRITE_ONLINE on the view |
 * | `POST /materialize`, `POST /materialize-incremental` | WRITE_ONLINE on each view in `feature_views`, or on Feast's default set; none for no view |
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { checkReadBody, readFeatures, readTarget } from './online-read.ts'
import {
  checkFrameDepth, checkIncrementalWindow, checkMaterializable, checkMaterializeVersion, checkMaterializeWindow, materializedViews,
  materializeIncrementalSchema, materializeQuerySchema, materializeSchema, pushedViews, pushSchema, pushTarget, queryFlag, writableView,
  rowsFor, writeToOnlineStoreSchema,
  type MaterializeBody, type PushBody, type WriteToOnlineStoreBody
} from './online-requests.ts'
import { projectQuerySchema, requestedProject, type ProjectScope } from './project-scope.ts'
import { viewResource } from './catalog.ts'
import { oncePerRequest } from './request-work.ts'
import { jsonTextOf } from './json-body.ts'
import { readExactly } from './exact-integers.ts'
import { exactJson } from './exact-json.ts'

/** The bounds of the online routes that are not the store's. */
export interface OnlineLimits {
  /** Most values (rows × columns) a get-online-features answer holds. */
  readonly maxAnsweredValues: number
}

/**
 * Every route acts on the project of `scopeOf(request)` (the server's, or the one the `project`
 * query parameter names), whose permissions are checked. What a request touches (its scope, and
 * the views or plan the body names) is worked out once, by whichever of the permission step and
 * the handler runs first, so both act on the same registry snapshot (see request-work.ts).
 */
export function registerOnlineRoutes (app: FastifyInstance, scopeOf: (request: FastifyRequest) => ProjectScope, limits: OnlineLimits): void {
  const body = <T> (request: FastifyRequest): T => request.body as T
  const project = requestedProject

  // The body's JSON types are checked by readTarget (shared with the Express example), not by a
  // schema: then the resources named are found, the caller is checked, and only then is the body
  // validated against them (readFeatures), so a denied caller learns nothing from an error.
  const readWork = oncePerRequest((request) => {
    // The JSON types first, as a schema would check them: before the project is looked up.
    // The body's text keeps the order of its entities columns, which the answer repeats, and
    // integers beyond 2^53, which JSON.parse may have rounded.
    const text = jsonTextOf(request)
    const input = checkReadBody(request.body, text)
    const scope = scopeOf(request)
    return { ...scope, target: readTarget(scope.registry, input, text) }
  })
  app.post('/get-online-features', {
    schema: { querystring: projectQuerySchema },
    config: {
      feastAuthz: {
        permission: {
          resources: (request) => readWork(request).target.resources,
          actions: 'READ_ONLINE',
          project
        }
      }
    }
  }, async (request, reply) => {
    const { store, target } = readWork(request)
    const answer = readFeatures(target, store(request), limits)
    // Entity and feature values beyond 2^53 are BigInts, answered as the integers they are. (A
    // serializer of one's own leaves the content type to be set.)
    void reply.type('application/json; charset=utf-8').serializer(exactJson)
    return answer
  })

  const pushWork = oncePerRequest((request) => {
    const input = body<PushBody>(request)
    // A bad `to` or a too deeply nested value is a 422 before any permission is looked at.
    const target = pushTarget(input)
    checkFrameDepth(input.df, 'df')
    const df = readExactly(input.df, jsonTextOf(request), 'df')
    const scope = scopeOf(request)
    return { ...scope, target, df, views: pushedViews(scope.registry, input) }
  })
  app.post('/push', {
    schema: { body: pushSchema, querystring: projectQuerySchema },
    config: {
      feastAuthz: {
        permission: {
          resources: (request) => {
            const { registry, views } = pushWork(request)
            return views.map((view) => viewResource(view, registry.project))
          },
          actions: (request) => pushWork(request).target.actions,
          project
        }
      }
    }
  }, async (request) => {
    const { store, target: { to }, df, views } = pushWork(request)
    const input = body<PushBody>(request)
    const batches = views.map((view) => ({ view, rows: rowsFor(view, df) }))
    // No offline store here: offline pushes are checked and validated, then dropped. Every view
    // the source feeds is written or none is (a full store refuses the whole push).
    if (to !== 'offline') store(request).writeAll(batches)
    return { push_source_name: input.push_source_name, to, feature_views: views.map((view) => view.name), rows: batches[0]?.rows.length ?? 0 }
  })

  const writeWork = oncePerRequest((request) => {
    const input = body<WriteToOnlineStoreBody>(request)
    checkFrameDepth(input.df, 'df')
    const df = readExactly(input.df, jsonTextOf(request), 'df')
    const scope = scopeOf(request)
    return { ...scope, df, view: writableView(scope.registry, input.feature_view_name) }
  })
  app.post('/write-to-online-store', {
    schema: { body: writeToOnlineStoreSchema, querystring: projectQuerySchema },
    config: {
      feastAuthz: {
        permission: {
          resources: (request) => {
            const { registry, view } = writeWork(request)
            return viewResource(view, registry.project)
          },
          actions: 'WRITE_ONLINE',
          project
        }
      }
    }
  }, async (request) => {
    const { store, df, view } = writeWork(request)
    const rows = store(request).write(view, rowsFor(view, df))
    return { feature_view_name: view.name, rows }
  })

  // Both routes as Feast's handlers: the body's own checks (version, the window, the `async` and
  // `force` flags), then the views (404), the permission (403), and only then whether the named
  // views can be materialized (422). Feast checks the window after the permission; a body-only
  // check reveals nothing about a resource, so here it stays with the other body checks.
  const routes = [
    ['/materialize', materializeSchema, checkMaterializeWindow],
    ['/materialize-incremental', materializeIncrementalSchema, checkIncrementalWindow]
  ] as const
  for (const [url, schema, checkWindow] of routes) {
    const materializeWork = oncePerRequest((request) => {
      const input = body<MaterializeBody>(request)
      const query = request.query as Readonly<Record<string, unknown>> | undefined
      const runAsync = queryFlag(query, 'async')
      // Feast's `force` resets views left MATERIALIZING by an earlier async run; none ever are here.
      queryFlag(query, 'force')
      checkMaterializeVersion(input)
      checkWindow(input)
      const scope = scopeOf(request)
      return { ...scope, runAsync, views: materializedViews(scope.registry, input) }
    })
    const materializePermission = app.requirePermission({
      resources: (request) => {
        const { registry, views } = materializeWork(request)
        return views.map((view) => viewResource(view, registry.project))
      },
      actions: 'WRITE_ONLINE',
      project
    })
    app.post(url, {
      schema: { body: schema, querystring: materializeQuerySchema },
      // Not route config: Feast asserts WRITE_ONLINE once per view it materializes, so a
      // materialization of no view asks no permission and succeeds, where the plugin's check
      // refuses a request that names no resource. The caller is still authenticated (onRequest).
      preHandler: async function checkMaterializePermission (request, reply) {
        if (materializeWork(request).views.length === 0) return
        return await materializePermission.call(this, request, reply)
      }
    }, async (request, reply) => {
      const { runAsync, views, store } = materializeWork(request)
      checkMaterializable(views)
      // Materializing fills the project's store: one whose sample rows cannot fit is a 507 here too.
      // Materializing no view asks no permission (as in Feast) and touches no store: a caller with
      // no permission in the project would otherwise build its store and learn of its 507.
      if (views.length > 0) store(request)
      const names = views.map((view) => view.name)
      // Feast's `?async=true` answer. Nothing runs in the background here (nothing is copied), so
      // no view is ever left MATERIALIZING and Feast's 409 for a second run cannot happen.
      if (runAsync) {
        void reply.code(202)
        return { status: 'accepted', feature_views: names }
      }
      // The online store is filled from the registry's sample rows: there is no offline data to copy.
      return { materialized: names }
    })
  }
}
