import { TokenSourceError } from '../../client/errors.ts'
import { DEFAULT_IDP_TIMEOUT_MS } from '../../client/idp-token.ts'
import { createTokenProvider } from '../../client/token-provider.ts'
import { loadClientAuthFile } from '../../client/validate.ts'
import { ConfigError } from '../../config/errors.ts'
import { placeConfigError, type FeatureStoreFile } from '../../config/feature-store-file.ts'
import { warnOfUnsetReferences } from '../../config/unset-references.ts'
import { parseCommandArgs, reportUsage } from '../args.ts'
import { createCliLogger } from '../cli-logger.ts'
import { configArgument } from '../inputs.ts'
import { CHECK_DISCOVERY_URL, CHECK_PROVIDER, PROVIDER_LIMITING } from '../undecided.ts'
import { EXIT, UsageError, type CliCommand } from '../io.ts'
import { usageLines } from '../help-text.ts'

const HELP = `${usageLines('token', ['[--config <client feature_store.yaml>]', '[--service-account-token-file <path>]', '[--verbose]'])}

Prints the bearer token the client would send right now, and nothing else, so that
  curl -H "Authorization: Bearer $(feast-authz token --config feature_store.yaml)" ...
works. Sources are tried in the client's order (see docs/client.md).
Exit codes: 0 with the token on stdout, 1 when no source yields a token (reason on
stderr), 2 usage or configuration error, 3 when the token endpoint could not be reached.

options:
  --config <path>     the client's feature_store.yaml (default: FEATURE_STORE_YAML_BASE64,
                      then ./feature_store.yaml)
  --verbose           log details and stack traces (--debug is the same)
  --service-account-token-file <path>
                      where the pod's service-account token is
                      (default /var/run/secrets/kubernetes.io/serviceaccount/token)
`

const OPTIONS = {
  config: { type: 'string' },
  'service-account-token-file': { type: 'string' },
  verbose: { type: 'boolean' },
  debug: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' }
} as const

export const run: CliCommand = async (argv, io) => {
  let config: string | undefined
  let serviceAccountTokenPath: string | undefined
  let verbose: boolean
  try {
    const { values } = parseCommandArgs(argv, OPTIONS)
    if (values.help === true) { io.stdout(HELP); return EXIT.ok }
    config = configArgument(values.config, io.env)
    serviceAccountTokenPath = values['service-account-token-file']
    if (serviceAccountTokenPath === '') throw new UsageError('--service-account-token-file: expected the path of a file, got an empty string')
    verbose = values.verbose === true || values.debug === true
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return reportUsage(io, 'token', error)
  }

  let provider
  let file: FeatureStoreFile | undefined
  // Warnings (an unset variable, verify_ssl: false) go to stderr: stdout carries the token only.
  const { logger } = createCliLogger(io, 'token', verbose)
  try {
    const loaded = loadClientAuthFile(config, { env: io.env })
    file = loaded.file
    warnOfUnsetReferences(file, logger)
    provider = createTokenProvider(loaded.auth, { env: io.env, serviceAccountTokenPath, logger })
  } catch (caught) {
    // A field the provider could not use (a missing CA bundle) is named where the file sets it.
    const error = file === undefined ? caught : placeConfigError(caught, file)
    if (error instanceof ConfigError) { io.stderr(`feast-authz token: ${error.message}\n`); return EXIT.usage }
    throw error
  }
  try {
    const resolved = await provider.resolve()
    if (resolved === undefined) {
      io.stderr('feast-authz token: auth type is no_auth: the client sends no token\n')
      return EXIT.rejected
    }
    io.stdout(`${resolved.token}\n`)
    return EXIT.ok
  } catch (error) {
    if (error instanceof ConfigError) { io.stderr(`feast-authz token: ${error.message}\n`); return EXIT.usage }
    if (error instanceof TokenSourceError) {
      if (error.code !== 'provider_unavailable') { io.stderr(`feast-authz token: ${error.code}: ${error.message}\n`); return EXIT.rejected }
      // An answer below 500 but a 429 is the discovery URL's (the token endpoint's are provider_rejected): the URL, not the network, is wrong.
      const hint = error.status === 429 ? PROVIDER_LIMITING : error.status !== undefined && error.status < 500 ? CHECK_DISCOVERY_URL : CHECK_PROVIDER
      io.stderr(`feast-authz token: ${error.code}: ${error.message}\n  ${hint}; requests time out after ${DEFAULT_IDP_TIMEOUT_MS / 1000} s\n`)
      return EXIT.undecided
    }
    throw error
  } finally {
    provider.close()
  }
}
