/**
 * The registry REST route the reference server offers: `GET /api/v1/feature_views`, listing
 * the feature views the caller may DESCRIBE (Feast's filter mode: views denied by
 * name-scoped permissions are hidden, other denials refuse the call with 403). The `project`
 * query parameter lists another project of the registry, under that project's permissions.
 *
 * What is listed is what Feast's registry server lists (`ListAllFeatureViews`): feature views
 * (batch ones included), stream and on-demand feature views; label views are left out, as there.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { projectQuerySchema, requestedProject, type ProjectScope } from './project-scope.ts'
import { viewResource } from './catalog.ts'
import { oncePerRequest } from './request-work.ts'

/** The path of Feast's feature-view listing. */
export const FEATURE_VIEWS_PATH = '/api/v1/feature_views'

export function registerRegistryRoutes (app: FastifyInstance, scopeOf: (request: FastifyRequest) => ProjectScope): void {
  // One snapshot for the filter check and the listing (see request-work.ts).
  const listWork = oncePerRequest((request) => {
    const { registry } = scopeOf(request)
    return { registry, views: registry.featureViews().filter((view) => view.kind !== 'LabelView') }
  })
  app.get(FEATURE_VIEWS_PATH, {
    schema: { querystring: projectQuerySchema },
    config: {
      feastAuthz: {
        permission: {
          resources: (request) => {
            const { registry, views } = listWork(request)
            return views.map((view) => viewResource(view, registry.project))
          },
          actions: 'DESCRIBE',
          filter: true,
          project: requestedProject
        }
      }
    }
  }, async (request) => {
    const { registry, views } = listWork(request)
    const permitted = new Set((request.permittedResources ?? []).map((resource) => resource.name))
    const featureViews = views
      .filter((view) => permitted.has(view.name))
      .map((view) => ({
        type: view.kind,
        spec: {
          name: view.name,
          project: registry.project,
          entities: [...view.entities],
          features: view.features.map((name) => ({ name })),
          tags: { ...view.tags },
          ...(view.pushSource === undefined ? {} : { push_source: view.pushSource })
        }
      }))
    return { featureViews, pagination: { totalCount: featureViews.length } }
  })
}
