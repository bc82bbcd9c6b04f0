/**
 * The reference feature server: a Fastify app built on the feast-authz plugin, serving Feast's
 * online routes from an in-memory store, with Feast's route → action map. It is what
 * `feast-authz serve` and `npm start` run; see docs/reference-server.md.
 */
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
// Only what a user of the package imports: this file is the worked example of the plugin.
import { ConfigError, feastAuthz, OptionError, readFeatureStoreFile, type AuthLogger, type AuthzOptions, type FeastAuthzOptions } from '../index.ts'
import { openRegistryFromConfig, type FeastRegistry } from '../registry/index.ts'
import { catalogFromFeastRegistry } from './catalog-from-feast.ts'
import { emptyCatalog, type FeatureCatalog } from './catalog.ts'
import { HttpError } from './http-error.ts'
import { HEALTH_PATH, registerHealthRoute } from './health-route.ts'
import { addFeastBooleanKeyword } from './feast-boolean.ts'
import { acceptJsonBodiesOnly } from './json-body.ts'
import { registerOnlineRoutes } from './online-routes.ts'
import { createProjectScopes } from './project-scope.ts'
import { limitOption } from './limit-option.ts'
import { DEFAULT_MAX_BYTES, SampleRowsOverBound, type OnlineStoreOptions } from './online-store.ts'
import { DEFAULT_MAX_ANSWERED_VALUES } from './online-read.ts'
import { FEATURE_VIEWS_PATH, registerRegistryRoutes } from './registry-routes.ts'

/**
 * Options of {@link buildReferenceServer}: the plugin's {@link FeastAuthzOptions}, plus what to
 * serve. The plugin's `healthRoute` (the identity source's readiness) takes a path of its own:
 * the server's `GET /health` answers the registry's state.
 */
export interface ReferenceServerOptions extends FeastAuthzOptions {
  /**
   * Feature views, services and sample rows, or a Feast registry (`openFeastRegistry`): its
   * feature views are served (values absent) and its permissions enforced unless `permissions`
   * is given; the caller closes it. Default: the Feast registry feature_store.yaml names (opened
   * and closed by the server), else an empty registry for the config's `project`.
   */
  readonly registry?: FeatureCatalog | FeastRegistry
  /** A pino logger (give it feast-authz's redaction: `createLogger()`); default: no logging. */
  readonly pinoLogger?: Logger
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  readonly bodyLimit?: number
  /**
   * Most each project's in-memory online store holds, in bytes as it counts them (see
   * `createOnlineStore`'s `maxBytes`): a write past it is a 507, and the registry's sample rows
   * must fit (else the server's project stops startup, and another project's requests are a 507).
   * A positive integer; default 64 MiB (67,108,864).
   */
  readonly onlineStoreMaxBytes?: number
  /** Most values (rows × columns) one get-online-features answer holds, else a 422. A positive integer; default 100,000. */
  readonly maxAnsweredValues?: number
}

/**
 * Builds the reference feature server (not listening yet): Feast's online routes behind the
 * feast-authz plugin, and a public `GET /health` (503 while the Feast registry file cannot be read).
 *
 * @example
 * ```ts
 * import { buildReferenceServer } from 'feast-authz/server'
 * const app = await buildReferenceServer({ config: './feature_store.yaml', permissions: './permissions.yaml' })
 * await app.listen({ host: '0.0.0.0', port: 6566 })
 * ```
 */
export async function buildReferenceServer (options: ReferenceServerOptions = {}): Promise<FastifyInstance> {
  const { registry: givenRegistry, pinoLogger, bodyLimit, onlineStoreMaxBytes, maxAnsweredValues, ...authz } = options
  // Checked before anything is built: a path given as `registry` would otherwise be met as a
  // TypeError on the first request; a bad bound would be named as createOnlineStore's, or refuse
  // every read. (Fastify checks `bodyLimit` and the plugin its own options.)
  if (givenRegistry !== undefined && !isFeastRegistry(givenRegistry) && !isCatalog(givenRegistry)) {
    throw new OptionError(`buildReferenceServer: registry must be a Feast registry opened with openFeastRegistry (a path goes in feature_store.yaml's \`registry\`), or a FeatureCatalog, got ${typeof givenRegistry === 'string' ? JSON.stringify(givenRegistry) : 'an object that is neither'}`, { option: 'registry' })
  }
  if (authz.healthRoute !== undefined && SERVER_GET_ROUTES.includes(authz.healthRoute)) {
    throw new OptionError(`buildReferenceServer: healthRoute ${JSON.stringify(authz.healthRoute)} is a route of the reference server (GET /health says the registry's state, as Feast's does); give the identity source's readiness another path, such as "/ready"`, { option: 'healthRoute' })
  }
  if (pinoLogger !== undefined && !hasMethods(pinoLogger, PINO_METHODS)) {
    throw new OptionError(`buildReferenceServer: pinoLogger must be a pino logger (createLogger()), with the methods ${PINO_METHODS.join(', ')}`, { option: 'pinoLogger' })
  }
  const storeOptions = { maxBytes: limitOption(onlineStoreMaxBytes, { owner: OWNER, option: 'onlineStoreMaxBytes', unit: 'bytes', fallback: DEFAULT_MAX_BYTES }) }
  const limits = { maxAnsweredValues: limitOption(maxAnsweredValues, { owner: OWNER, option: 'maxAnsweredValues', unit: 'values', fallback: DEFAULT_MAX_ANSWERED_VALUES }) }
  const app = Fastify({
    ...(pinoLogger === undefined ? { logger: false } : { loggerInstance: pinoLogger }),
    bodyLimit: bodyLimit ?? 1024 * 1024,
    // Fastify waits for a request's body forever by default: a caller sending it a byte at a time
    // held its connection open for as long as it liked, even after a 401 (Node reads a refused
    // request's body to the end). 60 s is Node's bound on the headers, and ample for 1 MiB.
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Bodies are validated as sent: a string is not silently turned into a list. Flags take
    // what Feast's pydantic models take (feast-boolean.ts).
    ajv: { customOptions: { coerceTypes: false }, plugins: [addFeastBooleanKeyword] }
  }) as unknown as FastifyInstance

  acceptJsonBodiesOnly(app)
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // FastAPI (Feast's server) answers invalid bodies with 422; so do we.
    if (error.validation !== undefined) {
      return reply.code(422).send({ statusCode: 422, code: 'invalid_request', error: 'Unprocessable Entity', message: error.message })
    }
    const status = error.statusCode ?? 500
    // A refusal of our own is answered as it is, a 507 (a full online store) too; any other 5xx is a failure.
    if ((status >= 400 && status < 500) || error instanceof HttpError) {
      // The operator is the one who can act on a full store: the log says so too (once, for a refusal already logged).
      if (status >= 500 && !(error instanceof HttpError && error.logged)) request.log.warn({ statusCode: status, code: error.code }, error.message)
      return reply.code(status).send({ statusCode: status, code: error.code ?? 'bad_request', error: reasonOf(status), message: error.message })
    }
    request.log.error({ err: error }, 'request failed')
    return reply.code(500).send({ statusCode: 500, code: 'internal_error', error: 'Internal Server Error', message: 'the request failed; see the server log' })
  })

  let opened: FeastRegistry | undefined
  try {
    const logger: AuthLogger = authz.logger ?? app.log
    const givenFeast = givenRegistry !== undefined && isFeastRegistry(givenRegistry) ? givenRegistry : undefined
    if (givenFeast !== undefined && authz.permissions !== undefined) {
      logger.info({ registry: givenFeast.path }, 'feast-authz: permissions given explicitly; the Feast registry\'s permissions are not used')
    }
    // Without `permissions`, the plugin opens the Feast registry feature_store.yaml names itself
    // (and closes it): the server reads it back from `app.feastAuthz.registry`.
    await app.register(feastAuthz, { ...authz, ...(authz.permissions === undefined && givenFeast !== undefined ? { permissions: givenFeast } : {}) })
    let feast = givenFeast ?? app.feastAuthz.registry
    if (givenRegistry === undefined && feast === undefined && authz.permissions !== undefined) {
      // Permissions given explicitly: the plugin left the registry alone, but its views are still what is served.
      feast = opened = openRegistryFromConfig(authz.config, { logger })
      const closeOpened = opened
      if (closeOpened !== undefined) app.addHook('onClose', async () => { closeOpened.close() })
    }
    // A catalog given is what is served, even when feature_store.yaml names a Feast registry (the
    // plugin then took its permissions from that one): its views were silently replaced by the file's.
    const givenCatalog = givenRegistry !== undefined && givenFeast === undefined ? givenRegistry as FeatureCatalog : undefined
    const catalog: FeatureCatalog = givenCatalog ??
      (feast !== undefined ? catalogFromFeastRegistry(feast) : emptyRegistry(projectOf(app, authz.config), logger))
    // Permissions from another Feast registry than the one served: /health reads both.
    const permissionRegistry = isFeastRegistry(authz.permissions) && authz.permissions !== feast ? authz.permissions : undefined
    registerHealthRoute(app, [feast, permissionRegistry].filter((registry) => registry !== undefined))
    const scopeOf = storeScopes(catalog, storeOptions)
    registerOnlineRoutes(app, scopeOf, limits)
    registerRegistryRoutes(app, scopeOf)
    await app.ready()
  } catch (error) {
    // A bad config, permissions or registry file: release what was built before reporting it.
    opened?.close()
    await app.close().catch(() => {})
    throw error
  }
  return app
}

const OWNER = 'buildReferenceServer'

/** The server's own GET routes, which the plugin's `healthRoute` cannot take. */
export const SERVER_GET_ROUTES: readonly string[] = [HEALTH_PATH, FEATURE_VIEWS_PATH]

/** The projects' scopes, the server's own store filled now: sample rows that do not fit are said in this function's words. */
function storeScopes (catalog: FeatureCatalog, storeOptions: OnlineStoreOptions): ReturnType<typeof createProjectScopes> {
  try {
    return createProjectScopes(catalog, storeOptions)
  } catch (error) {
    if (error instanceof SampleRowsOverBound) throw new SampleRowsOverBound(OWNER, 'onlineStoreMaxBytes', error.facts)
    throw error
  }
}

/**
 * The registry of a server given none, said at startup: a newcomer's first server (the
 * feature_store.yaml of the getting-started page) lists no view and answers 404 for every name,
 * which reads as a bug unless the log says why.
 */
function emptyRegistry (project: string, logger: AuthLogger): FeatureCatalog {
  logger.warn({ project }, 'feast-authz: no registry given and feature_store.yaml names none: serving an empty registry (no feature view or service: each name is a 404); give one with `registry` in feature_store.yaml (a Feast registry, or the YAML format of docs/reference-server.md) or `feast-authz serve --registry`')
  return emptyCatalog(project)
}

function isFeastRegistry (registry: unknown): registry is FeastRegistry {
  return hasMethods(registry, ['permissionsFor', 'projectView', 'featureView', 'resource', 'pushTargets', 'hasProject', 'fileState'])
}

function isCatalog (registry: unknown): registry is FeatureCatalog {
  return hasMethods(registry, ['featureViews', 'featureView', 'featureService', 'viewsFedBy', 'sampleRows'])
}

/** How long a request may take to arrive, headers and body (Node answers 408 and closes the connection). */
const REQUEST_TIMEOUT_MS = 60_000

/** What Fastify requires of a logger instance. */
const PINO_METHODS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'child'] as const

function hasMethods (value: unknown, names: readonly string[]): boolean {
  return typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
}

/** The config's project, which an empty registry is for (the plugin checked the name). */
function projectOf (app: FastifyInstance, config: AuthzOptions['config']): string {
  const { project } = app.feastAuthz
  if (project === undefined) throw new ConfigError('expected the project name when no registry is given', { source: readFeatureStoreFile(config).source, field: 'project' })
  return project
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  507: 'Insufficient Storage'
}

function reasonOf (status: number): string {
  return REASONS[status] ?? 'Client Error'
}
