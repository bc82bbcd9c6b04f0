/**
 * Type tests of the Fastify plugin as users import it (`feast-authz`): the declaration merging
 * of `request.principal`, `fastify.feastAuthz` and `fastify.requirePermission`, route config and
 * plugin options. Checked by `npm run typecheck`; every `@ts-expect-error` fails the check if
 * the wrong usage below it ever compiles.
 */
import Fastify, { type FastifyRequest, type preHandlerAsyncHookHandler } from 'fastify'
import feastAuthz, {
  feastAuthz as namedFeastAuthz,
  type FastifyPermissionSpec, type FeastAuthzDecorator, type RouteAuthzConfig, type FeastAuthzOptions, type ManagerHealth,
  type Principal, type Resource, type AuthConfig, type FeastRegistry
} from '../../src/index.ts'
import { expectFalse, expectTrue, type Equal, type IsAny } from './assert-type.ts'

const app = Fastify()
declare const request: FastifyRequest

// --- The plugin and its options -------------------------------------------------------------

expectTrue<Equal<typeof feastAuthz, typeof namedFeastAuthz>>()

await app.register(feastAuthz)
await app.register(feastAuthz, { config: './feature_store.yaml' })
await app.register(feastAuthz, { config: new URL('file:///etc/feast/feature_store.yaml') })
await app.register(feastAuthz, { config: { yaml: 'project: demo\n', source: 'inline' } })
await app.register(feastAuthz, { config: { project: 'demo', auth: { type: 'no_auth' } } })
await app.register(feastAuthz, { config: './feature_store.yaml', permissions: './permissions.yaml', healthRoute: '/healthz', realm: 'feast', maxTokenLength: 4096 })
await app.register(feastAuthz, { permissions: { permissionsFor: () => [] } })

// @ts-expect-error an unknown option is a compile error (here a misspelt `config`)
await app.register(feastAuthz, { confg: './feature_store.yaml' })
// @ts-expect-error `config` is a path, URL, `{ yaml }` or parsed object, not a number
await app.register(feastAuthz, { config: 42 })
// @ts-expect-error `healthRoute` is the path of the route, not a switch
await app.register(feastAuthz, { healthRoute: true })
// @ts-expect-error `maxTokenLength` is a number of characters
await app.register(feastAuthz, { maxTokenLength: '8k' })
// @ts-expect-error `permissions` is a list, a YAML path or a permission source
await app.register(feastAuthz, { permissions: { roles: ['reader'] } })

const options = { config: './feature_store.yaml', healthRoute: '/healthz' } satisfies FeastAuthzOptions
void options

// --- request.principal ------------------------------------------------------------------------

expectFalse<IsAny<typeof request.principal>>()
expectTrue<Equal<typeof request.principal, Principal | null>>()
expectTrue<Equal<typeof request.permittedResources, readonly Resource[] | null>>()

// @ts-expect-error the principal is null on public routes: it must be checked before use
void request.principal.username

if (request.principal !== null) {
  const username: string = request.principal.username
  const roles: readonly string[] = request.principal.roles
  const source: 'oidc' | 'kubernetes' | 'intra' | 'no_auth' = request.principal.source
  void username, roles, source
  // @ts-expect-error the principal's fields are read-only
  request.principal.username = 'someone-else'
  // @ts-expect-error its lists are read-only too: a handler cannot grant itself a role
  request.principal.roles.push('admin')
  // @ts-expect-error the source is one of the known identity sources
  const wrong: typeof request.principal.source = 'ldap'
  void wrong
}

// --- fastify.feastAuthz -----------------------------------------------------------------------

expectTrue<Equal<typeof app.feastAuthz, FeastAuthzDecorator>>()
expectTrue<Equal<typeof app.feastAuthz.config, AuthConfig>>()
expectTrue<Equal<ReturnType<typeof app.feastAuthz.health>, ManagerHealth>>()
expectTrue<Equal<typeof app.feastAuthz.registry, FeastRegistry | undefined>>()
const ready: boolean = app.feastAuthz.health().ready
void ready
// @ts-expect-error the decorator is read-only
app.feastAuthz.config = { type: 'no_auth' }

// --- fastify.requirePermission(spec) ----------------------------------------------------------

expectTrue<Equal<ReturnType<typeof app.requirePermission>, preHandlerAsyncHookHandler>>()

app.get('/views', { preHandler: app.requirePermission({ resources: { type: 'FeatureView', name: 'driver_stats' }, actions: 'DESCRIBE' }) }, async () => 'ok')
app.requirePermission({ resources: [{ type: 'FeatureView', name: 'a' }, { type: 'Entity', name: 'driver', project: 'demo', tags: { team: 'ml' } }], actions: ['READ_ONLINE', 'DESCRIBE'] })
app.requirePermission({ resources: { type: 'Project', name: 'demo' }, actions: 'READ' })
app.requirePermission({ resources: { type: 'FeatureService', name: 'svc' }, actions: ['CRUD', 'WRITE'] })
app.requirePermission({ resources: { type: 'FeatureView', name: 'a' }, actions: 'ALL_ACTIONS', filter: true, project: 'demo' })

// Computed resources, actions and project see the Fastify request (not `any`).
app.requirePermission({
  resources: (req) => {
    expectTrue<Equal<typeof req, FastifyRequest>>()
    return { type: 'FeatureView', name: (req.params as { name: string }).name }
  },
  actions: (req) => (req.method === 'POST' ? 'WRITE_ONLINE' : ['READ_ONLINE']),
  project: (req) => (req.query as { project?: string }).project
})
app.requirePermission({ resources: async () => [{ type: 'FeatureView', name: 'a' }], actions: 'DESCRIBE' })

// @ts-expect-error unknown action name
app.requirePermission({ resources: { type: 'FeatureView', name: 'a' }, actions: 'READ_ALL' })
// @ts-expect-error action names are upper case, as in Feast
app.requirePermission({ resources: { type: 'FeatureView', name: 'a' }, actions: ['read_online'] })
// @ts-expect-error a computed action list must name known actions
app.requirePermission({ resources: { type: 'FeatureView', name: 'a' }, actions: () => 'PUBLISH' })
// @ts-expect-error unknown resource type (types are case-sensitive)
app.requirePermission({ resources: { type: 'Featureview', name: 'a' }, actions: 'DESCRIBE' })
// @ts-expect-error a resource needs a name
app.requirePermission({ resources: { type: 'FeatureView' }, actions: 'DESCRIBE' })
// @ts-expect-error a computed resource must be a resource, not a name
app.requirePermission({ resources: (req) => String(req.id), actions: 'DESCRIBE' })
// @ts-expect-error `actions` is required
app.requirePermission({ resources: { type: 'FeatureView', name: 'a' } })
// @ts-expect-error `resources` is required
app.requirePermission({ actions: 'DESCRIBE' })
// @ts-expect-error `filter` is a boolean
app.requirePermission({ resources: { type: 'FeatureView', name: 'a' }, actions: 'DESCRIBE', filter: 'yes' })

// --- Route config: config.feastAuthz ----------------------------------------------------------

app.get('/health', { config: { feastAuthz: { public: true } } }, async () => 'ok')
app.post('/push', { config: { feastAuthz: { permission: { resources: { type: 'FeatureView', name: 'a' }, actions: 'WRITE_ONLINE' } } } }, async () => 'ok')
app.get('/routes', { config: { feastAuthz: { permission: { resources: (req) => ({ type: 'FeatureView', name: req.url }), actions: ['DESCRIBE'], filter: true } } } }, async () => 'ok')

// @ts-expect-error `public` is a boolean
app.get('/health2', { config: { feastAuthz: { public: 'yes' } } }, async () => 'ok')
// Fastify infers a route's config type from the literal, so an unknown key inside it is not
// caught at the route; it is when the settings are typed as RouteAuthzConfig.
// @ts-expect-error unknown route setting (a misspelt `public`)
const misspelt: RouteAuthzConfig = { pubilc: true }
void misspelt
// @ts-expect-error the route permission is checked like requirePermission's spec
app.get('/push2', { config: { feastAuthz: { permission: { resources: { type: 'FeatureView', name: 'a' }, actions: 'PUSH' } } } }, async () => 'ok')

const spec = { resources: { type: 'FeatureView', name: 'a' }, actions: 'READ' } satisfies FastifyPermissionSpec
void spec

// The route's types reach the callbacks: typed params and body need no cast.
app.post<{ Params: { view: string }, Body: { project: string } }>('/typed/:view', {
  preHandler: app.requirePermission({
    resources: (request) => {
      expectTrue<Equal<typeof request.params.view, string>>()
      return { type: 'FeatureView', name: request.params.view }
    },
    project: (request) => request.body.project,
    actions: 'WRITE_ONLINE'
  })
}, async () => 'ok')
