import { parseArgs } from 'node:util'
import { TokenSourceError } from '../../client/errors.ts'
import { createTokenProvider } from '../../client/token-provider.ts'
import { loadClientAuthConfig } from '../../client/validate.ts'
import { ConfigError } from '../../config/errors.ts'
import { createLogger } from '../../base/logging.ts'
import { EXIT, UsageError, type CliCommand } from '../io.ts'

const HELP = `usage: feast-authz token --config <client feature_store.yaml> [--service-account-token-file <path>]

Prints the bearer token the client would send right now, and nothing else, so that
  curl -H "Authorization: Bearer $(feast-authz token --config feature_store.yaml)" ...
works. Sources are tried in the client's order (see docs/client.md).
Exit 0 with the token on stdout, 1 when no source yields a token (reason on
stderr), 2 on a configuration or usage error.

options:
  --config <path>                       the client's feature_store.yaml
  --service-account-token-file <path>   where the pod's service-account token is
                                        (default /var/run/secrets/kubernetes.io/serviceaccount/token)
`

export const run: CliCommand = async (argv, io) => {
  let values: { config?: string | undefined, 'service-account-token-file'?: string | undefined, help?: boolean | undefined }
  try {
    ({ values } = parseArgs({ args: [...argv], options: { config: { type: 'string' }, 'service-account-token-file': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }))
    if (values.help === true) { io.stdout(HELP); return EXIT.ok }
    if (values.config === undefined) throw new UsageError('--config is required')
  } catch (error) {
    io.stderr(`feast-authz token: ${(error as Error).message}\n\n${HELP}`)
    return EXIT.usage
  }

  let provider
  try {
    const config = loadClientAuthConfig(values.config, { env: io.env })
    provider = createTokenProvider(config, {
      env: io.env,
      serviceAccountTokenPath: values['service-account-token-file'],
      // Warnings (verify_ssl: false) go to stderr: stdout carries the token only.
      logger: createLogger({ level: 'warn' }, 2)
    })
  } catch (error) {
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
    if (error instanceof TokenSourceError) { io.stderr(`feast-authz token: ${error.code}: ${error.message}\n`); return EXIT.rejected }
    throw error
  } finally {
    provider.close()
  }
}
