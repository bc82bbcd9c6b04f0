/**
 * Feast's online feature server routes, with its route → action map:
 *
 * | Route | Check |
 * |---|---|
 * | `POST /get-online-features` | READ_ONLINE on the feature service, or on each referenced view |
 * | `POST /push` | WRITE_ONLINE / WRITE_OFFLINE / both (by `to`) on every view fed by the push source |
 * | `POST /write-to-online-store` | WRITE_ONLINE on the view |
 * | `POST /materialize`, `POST /materialize-incremental` | WRITE_ONLINE on each view |
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { EPOCH } from './online-store.ts'
import {
  getOnlineFeaturesSchema, materializedViews, materializeIncrementalSchema, materializeSchema, planRead, pushedViews, pushSchema,
  pushTarget, requireView, rowsFor, writeToOnlineStoreSchema,
  type GetOnlineFeaturesBody, type MaterializeBody, type PushBody, type WriteToOnlineStoreBody
} from './online-requests.ts'
import { projectQuerySchema, requestedProject, type ProjectScope } from './project-scope.ts'
import { serviceResource, viewResource } from './catalog.ts'
import { oncePerRequest } from './request-work.ts'

/**
 * Every route acts on the project of `scopeOf(request)` (the server's, or the one the `project`
 * query parameter names), whose permissions are checked. What a request touches (its scope, and
 * the views or plan the body names) is worked out once, by whichever of the permission step and
 * the handler runs first, so both act on the same registry snapshot (see request-work.ts).
 */
export function registerOnlineRoutes (app: FastifyInstance, scopeOf: (request: FastifyRequest) => ProjectScope): void {
  const body = <T> (request: FastifyRequest): T => request.body as T
  const project = requestedProject

  const readWork = oncePerRequest((request) => {
    const scope = scopeOf(request)
    return { ...scope, plan: planRead(scope.registry, body<GetOnlineFeaturesBody>(request)) }
  })
  app.post('/get-online-features', {
    schema: { body: getOnlineFeaturesSchema, querystring: projectQuerySchema },
    config: {
      feastAuthz: {
        permission: {
          // With a feature service, Feast checks the service only, not the views behind it.
          resources: (request) => {
            const { registry, plan } = readWork(request)
            return plan.service !== undefined ? serviceResource(plan.service, registry.project) : plan.views.map((view) => viewResource(view, registry.project))
          },
          actions: 'READ_ONLINE',
          project
        }
      }
    }
  }, async (request) => {
    const { store, plan } = readWork(request)
    const input = body<GetOnlineFeaturesBody>(request)
    const entityNames = Object.keys(input.entities)
    const rows = Array.from({ length: plan.rowCount }, (_, i) => i)
    const results: Array<{ values: unknown[], statuses: string[], event_timestamps: string[] }> = entityNames.map((name) => ({
      values: [...(input.entities[name] ?? [])],
      statuses: rows.map(() => 'PRESENT'),
      event_timestamps: rows.map(() => EPOCH)
    }))
    for (const { view, feature } of plan.features) {
      const column = { values: [] as unknown[], statuses: [] as string[], event_timestamps: [] as string[] }
      for (const i of rows) {
        const stored = store.read(view, view.entities.map((key) => input.entities[key]?.[i]))
        const present = stored !== undefined && Object.hasOwn(stored.values, feature)
        column.values.push(present ? stored.values[feature] : null)
        column.statuses.push(present ? 'PRESENT' : 'NOT_FOUND')
        column.event_timestamps.push(present ? stored.eventTimestamp : EPOCH)
      }
      results.push(column)
    }
    const featureNames = plan.features.map(({ view, feature }) => input.full_feature_names === true ? `${view.name}__${feature}` : feature)
    return { metadata: { feature_names: [...entityNames, ...featureNames] }, results }
  })

  const pushWork = oncePerRequest((request) => {
    const input = body<PushBody>(request)
    const target = pushTarget(input) // a bad `to` is a 422 before any permission is looked at
    const scope = scopeOf(request)
    return { ...scope, target, views: pushedViews(scope.registry, input) }
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
    const { store, target: { to }, views } = pushWork(request)
    const input = body<PushBody>(request)
    const batches = views.map((view) => ({ view, rows: rowsFor(view, input.df) }))
    // No offline store here: offline pushes are checked and validated, then dropped.
    if (to !== 'offline') for (const { view, rows } of batches) store.write(view, rows)
    return { push_source_name: input.push_source_name, to, feature_views: views.map((view) => view.name), rows: batches[0]?.rows.length ?? 0 }
  })

  const writeWork = oncePerRequest((request) => {
    const scope = scopeOf(request)
    return { ...scope, view: requireView(scope.registry, body<WriteToOnlineStoreBody>(request).feature_view_name) }
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
    const { store, view } = writeWork(request)
    const input = body<WriteToOnlineStoreBody>(request)
    const rows = store.write(view, rowsFor(view, input.df))
    return { feature_view_name: view.name, rows }
  })

  const materializeWork = oncePerRequest((request) => {
    const scope = scopeOf(request)
    return { ...scope, views: materializedViews(scope.registry, body<MaterializeBody>(request)) }
  })
  for (const [url, schema] of [['/materialize', materializeSchema], ['/materialize-incremental', materializeIncrementalSchema]] as const) {
    app.post(url, {
      schema: { body: schema, querystring: projectQuerySchema },
      config: {
        feastAuthz: {
          permission: {
            resources: (request) => {
              const { registry, views } = materializeWork(request)
              return views.map((view) => viewResource(view, registry.project))
            },
            actions: 'WRITE_ONLINE',
            project
          }
        }
      }
    }, async (request) => {
      // The online store is filled from the registry's sample rows: there is no offline data to copy.
      return { materialized: materializeWork(request).views.map((view) => view.name) }
    })
  }
}
