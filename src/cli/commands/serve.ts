import { dirname, isAbsolute, resolve } from 'node:path'
import { HEALTH_ROUTE_EXPECTED, HEALTH_ROUTE_PATH } from '../../adapters/fastify.ts'
import { ConfigError } from '../../config/errors.ts'
import { readFeatureStoreFile } from '../../config/feature-store-file.ts'
import { createLogger, type AuthLogger } from '../../base/logging.ts'
import { mayBeCredential, quotedUnlessCredential } from '../../base/credential-shape.ts'
import { PermissionError } from '../../permissions/errors.ts'
import { openFeastRegistry, type FeastRegistry } from '../../registry/feast-registry.ts'
import { isCatalogYamlPath } from '../../registry/config.ts'
import { buildReferenceServer, SERVER_GET_ROUTES } from '../../server/app.ts'
import { DEFAULT_MAX_ANSWERED_VALUES } from '../../server/online-read.ts'
import { DEFAULT_MAX_BYTES, SampleRowsOverBound, sampleRowsOverBound } from '../../server/online-store.ts'
import { loadYamlCatalogFile } from '../../server/catalog-yaml.ts'
import type { FeatureCatalog } from '../../server/catalog.ts'
import { parseCommandArgs, portNumber, positiveWholeNumber, reportUsage } from '../args.ts'
import { configArgument, configProject } from '../inputs.ts'
import { EXIT, UsageError, type CliCommand } from '../io.ts'
import { usageLines } from '../help-text.ts'

const HELP = `${usageLines('serve', [
  '[--config <feature_store.yaml>]', '[--permissions <permissions.yaml>]', '[--registry <registry.yaml|registry.db>]',
  '[--host <host>]', '[--port <port>]', '[--log-level <level>]',
  '[--online-store-max-bytes <bytes>]', '[--max-answered-values <values>]', '[--health-route <path>]'
])}

Runs the reference feature server (Feast's online routes, in-memory store) with the
authentication of the config's auth section.
--registry takes the server's registry YAML (.yaml/.yml) or a Feast registry file (any
other name, e.g. registry.db): its feature views are served (values absent) and, unless
--permissions is given, its permissions enforced, following the file as it changes.
Without --registry, the config's "registry" is used (a .yaml file, or a Feast registry).
Without --permissions and without a Feast registry, every authenticated caller is allowed
(a warning is logged).
--online-store-max-bytes bounds each project's in-memory online store, as it counts
its rows (a write past it is a 507; the registry's sample rows must fit);
--max-answered-values bounds the values (rows x columns) of one get-online-features
answer (a 422 past it).
GET /health answers the registry's state, as Feast's does (503 while the registry file
cannot be read). --health-route adds a public GET route at <path> (e.g. /ready) answering
whether the identity source is ready: 200, or 503 while the OIDC keys or the RoleBinding
informer are not loaded (a readiness or startup probe; never a liveness probe).
Defaults: --config FEATURE_STORE_YAML_BASE64, then ./feature_store.yaml; --host 127.0.0.1,
--port 6566, --log-level info, --online-store-max-bytes ${DEFAULT_MAX_BYTES} (64 MiB),
--max-answered-values ${DEFAULT_MAX_ANSWERED_VALUES}. Stops on Ctrl-C / SIGTERM.
Exit codes: 0 after a clean stop, 1 when the port cannot be listened on, 2 usage or
configuration error.
`

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export const run: CliCommand = async (argv, io) => {
  let values: Record<string, string | boolean | undefined>
  let port: number
  let config: string | undefined
  let limits: { onlineStoreMaxBytes?: number, maxAnsweredValues?: number }
  let healthRoute: { healthRoute?: string }
  try {
    ({ values } = parseCommandArgs(argv, {
      config: { type: 'string' },
      permissions: { type: 'string' },
      registry: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '6566' },
      'log-level': { type: 'string', default: 'info' },
      'online-store-max-bytes': { type: 'string' },
      'max-answered-values': { type: 'string' },
      'health-route': { type: 'string' },
      help: { type: 'boolean', short: 'h' }
    }))
    if (values.help === true) { io.stdout(HELP); return EXIT.ok }
    const given = portNumber(String(values.port))
    if (given === undefined) throw new UsageError(`--port must be a number from 0 to 65535, got ${quotedUnlessCredential(String(values.port))}`)
    port = given
    if (!LEVELS.includes(String(values['log-level']))) throw new UsageError(`--log-level must be one of ${LEVELS.join(', ')}`)
    limits = {
      ...bound(values['online-store-max-bytes'], 'online-store-max-bytes', 'bytes', DEFAULT_MAX_BYTES, 'onlineStoreMaxBytes'),
      ...bound(values['max-answered-values'], 'max-answered-values', 'values', DEFAULT_MAX_ANSWERED_VALUES, 'maxAnsweredValues')
    }
    healthRoute = healthRouteFlag(values['health-route'])
    config = configArgument(values.config as string | undefined, io.env)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return reportUsage(io, 'serve', error)
  }

  const logger = createLogger({ level: String(values['log-level']) })
  let app
  let feast: FeastRegistry | undefined
  try {
    const registry = loadRegistry(config, values.registry as string | undefined, logger, io.env)
    if (registry !== undefined && 'permissionsFor' in registry) feast = registry
    app = await buildReferenceServer({
      config,
      pinoLogger: logger,
      ...(registry === undefined ? {} : { registry }),
      ...(values.permissions === undefined ? {} : { permissions: values.permissions as string }),
      ...limits,
      ...healthRoute
    })
  } catch (error) {
    feast?.close()
    if (error instanceof ConfigError || error instanceof PermissionError) {
      io.stderr(`feast-authz serve: ${error.message}\n`)
      return EXIT.usage
    }
    if (error instanceof SampleRowsOverBound) {
      io.stderr(`feast-authz serve: ${sampleRowsOverBound(error.facts, '--online-store-max-bytes')}\n`)
      return EXIT.usage
    }
    throw error
  }

  let address: string
  try {
    address = await app.listen({ host: values.host as string, port })
  } catch (error) {
    io.stderr(`feast-authz serve: ${cannotListen(String(values.host), port, error as Error)}\n`)
    await app.close()
    feast?.close()
    return EXIT.rejected
  }
  io.stderr(`feast-authz serve: listening on ${address} (Ctrl-C to stop)\n`)

  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      app.close().finally(() => { feast?.close() }).then(resolve, resolve)
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  return EXIT.ok
}

/**
 * Why serve cannot listen, naming the host unless shaped like a token (a token pasted after
 * --host would be printed twice: Node's reason names the host too).
 */
function cannotListen (host: string, port: number, error: Error): string {
  if (!mayBeCredential(host)) return `cannot listen on ${host}:${port}: ${error.message}`
  return `cannot listen on a --host of ${host.length} characters (not shown: it may be a token), port ${port}: ${error.message.replaceAll(host, '<host>')}`
}

/** A bound's flag as the server's option (none when not given, the server's default); anything but a positive whole number is a usage error. */
function bound (text: string | boolean | undefined, flag: string, unit: string, fallback: number, option: string): Record<string, number> {
  if (text === undefined) return {}
  const value = positiveWholeNumber(String(text))
  if (value === undefined) throw new UsageError(`--${flag} must be a positive whole number of ${unit} (default ${fallback}), got ${quotedUnlessCredential(String(text))}`)
  return { [option]: value }
}

/** `--health-route` as the plugin's `healthRoute`: a path, and not one of the server's own GET routes. */
function healthRouteFlag (text: string | boolean | undefined): { healthRoute?: string } {
  if (text === undefined) return {}
  const path = String(text)
  if (!HEALTH_ROUTE_PATH.test(path)) throw new UsageError(`--health-route must be ${HEALTH_ROUTE_EXPECTED}, such as /ready, got ${quotedUnlessCredential(path)}`)
  if (SERVER_GET_ROUTES.includes(path)) {
    throw new UsageError(`--health-route ${JSON.stringify(path)} is a route of the server (GET /health says the registry's state); give the identity source's readiness another path, such as /ready`)
  }
  return { healthRoute: path }
}

/**
 * `--registry`: the server's YAML registry for `.yaml`/`.yml`, else a Feast registry file (for the
 * config's `project`, watched for changes). Without it, the config's `registry` when it is a YAML
 * file (relative to the config); a Feast registry named there is opened by the server itself.
 */
function loadRegistry (
  configPath: string | undefined, registryPath: string | undefined, logger: AuthLogger, env: NodeJS.ProcessEnv
): FeatureCatalog | FeastRegistry | undefined {
  if (registryPath !== undefined) {
    if (isCatalogYamlPath(registryPath)) return loadYamlCatalogFile(registryPath)
    return openFeastRegistry({ path: resolve(registryPath), project: configProject(configPath, env), logger })
  }
  const named = readFeatureStoreFile(configPath, env).data.registry
  if (typeof named !== 'string' || !isCatalogYamlPath(named)) return undefined
  // Relative to the config file; to the working directory for FEATURE_STORE_YAML_BASE64.
  return loadYamlCatalogFile(isAbsolute(named) ? named : resolve(configPath === undefined ? '.' : dirname(configPath), named))
}
