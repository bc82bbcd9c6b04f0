/**
 * Type tests of `feast-authz/express`: the declaration merging of `req.principal`, the options
 * of `feastAuthzExpress()` and the specs its `requirePermission` takes. Checked by
 * `npm run typecheck`.
 */
import express, { type Request, type RequestHandler } from 'express'
import feastAuthzExpressDefault, { feastAuthzExpress, type ExpressPermissionSpec, type FeastAuthzExpress, type FeastAuthzExpressOptions } from '../../src/adapters/express.ts'
import type { AuthConfig, FeastRegistry, ManagerHealth, Principal, Resource } from '../../src/index.ts'
import { expectFalse, expectTrue, type Equal, type IsAny } from './assert-type.ts'

declare const req: Request

// --- req.principal ---------------------------------------------------------------------------

// Absent on routes `authenticate` did not run on, hence `undefined` as well as `null`.
expectFalse<IsAny<typeof req.principal>>()
expectTrue<Equal<typeof req.principal, Principal | null | undefined>>()
expectTrue<Equal<typeof req.permittedResources, readonly Resource[] | undefined>>()
// @ts-expect-error the principal must be checked before use
void req.principal.username
if (req.principal != null) {
  const username: string = req.principal.username
  void username
  // @ts-expect-error the principal's fields are read-only
  req.principal.username = 'someone-else'
  // @ts-expect-error its lists are read-only too
  req.principal.groups.push('admins')
}

// --- feastAuthzExpress(options) ----------------------------------------------------------------

expectTrue<Equal<typeof feastAuthzExpressDefault, typeof feastAuthzExpress>>()
const authz: FeastAuthzExpress = feastAuthzExpress({ config: './feature_store.yaml', permissions: './permissions.yaml' })
feastAuthzExpress()
feastAuthzExpress({ config: { yaml: 'project: demo\n' }, realm: 'feast', maxTokenLength: 4096, permissions: [] })
feastAuthzExpress({ config: { project: 'demo', auth: { type: 'no_auth' } } })
// @ts-expect-error unknown option (a misspelt `permissions`)
feastAuthzExpress({ permisions: './permissions.yaml' })
// @ts-expect-error `config` is a path, URL, `{ yaml }` or parsed object
feastAuthzExpress({ config: 42 })
const options = { config: './feature_store.yaml' } satisfies FeastAuthzExpressOptions
void options

expectTrue<Equal<typeof authz.authenticate, RequestHandler>>()
expectTrue<Equal<typeof authz.config, AuthConfig>>()
expectTrue<Equal<ReturnType<typeof authz.health>, ManagerHealth>>()
expectTrue<Equal<typeof authz.registry, FeastRegistry | undefined>>()
expectTrue<Equal<ReturnType<typeof authz.close>, Promise<void>>>()
declare const otherHandler: RequestHandler
// @ts-expect-error the middleware set is read-only
authz.authenticate = otherHandler

// --- requirePermission(spec) ---------------------------------------------------------------------

const app = express()
app.use(authz.authenticate)
app.get('/views/:name', authz.requirePermission<{ name: string }>({
  resources: (request) => {
    // The route's params, given once, type the callback: no cast, no String().
    expectTrue<Equal<typeof request.params.name, string>>()
    return { type: 'FeatureView', name: request.params.name }
  },
  actions: 'DESCRIBE'
}), (request, res) => { res.json({ caller: request.principal?.username }) })
app.post('/push', authz.requirePermission({ resources: { type: 'FeatureView', name: 'a' }, actions: ['WRITE_ONLINE', 'WRITE'], project: (request) => request.get('x-project') }), (_request, res) => { res.end() })
app.get('/list', authz.requirePermission({ resources: async () => [{ type: 'FeatureView', name: 'a' }], actions: 'DESCRIBE', filter: true }), (request, res) => { res.json(request.permittedResources) })

// @ts-expect-error unknown action name
authz.requirePermission({ resources: { type: 'FeatureView', name: 'a' }, actions: 'READ_ALL' })
// @ts-expect-error unknown resource type
authz.requirePermission({ resources: { type: 'View', name: 'a' }, actions: 'DESCRIBE' })
// @ts-expect-error a resource needs a name
authz.requirePermission({ resources: [{ type: 'FeatureView' }], actions: 'DESCRIBE' })
// @ts-expect-error `actions` is required
authz.requirePermission({ resources: { type: 'FeatureView', name: 'a' } })

const spec = { resources: { type: 'Entity', name: 'driver' }, actions: ['DESCRIBE'] } satisfies ExpressPermissionSpec
void spec
