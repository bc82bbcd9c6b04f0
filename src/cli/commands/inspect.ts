import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { setUpAuthz } from '../../adapters/setup.ts'
import { authenticateRequest } from '../../adapters/authenticate-request.ts'
import { ConfigError } from '../../config/errors.ts'
import { createLogger } from '../../base/logging.ts'
import { AuthError } from '../../base/errors.ts'
import { principalToJSON } from '../../base/principal.ts'
import { EXIT, UsageError, type CliCommand } from '../io.ts'

const HELP = `usage: feast-authz inspect --config <feature_store.yaml> (--token <jwt> | --token-file <path>)

Authenticates the token exactly as the server would and prints the principal
(username, roles, groups, namespaces) as JSON. Exit 0 when accepted, 1 when
rejected (reason on stderr), 2 on a configuration or usage error.
`

export const run: CliCommand = async (argv, io) => {
  let values: { config?: string | undefined, token?: string | undefined, 'token-file'?: string | undefined, help?: boolean | undefined }
  try {
    ({ values } = parseArgs({ args: [...argv], options: { config: { type: 'string' }, token: { type: 'string' }, 'token-file': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }))
    if (values.help === true) { io.stdout(HELP); return EXIT.ok }
    if (values.config === undefined) throw new UsageError('--config is required')
    if ((values.token === undefined) === (values['token-file'] === undefined)) throw new UsageError('give exactly one of --token and --token-file')
  } catch (error) {
    io.stderr(`feast-authz inspect: ${(error as Error).message}\n\n${HELP}`)
    return EXIT.usage
  }

  let token: string
  try {
    token = values.token ?? readFileSync(values['token-file'] as string, 'utf8').trim()
  } catch (error) {
    io.stderr(`feast-authz inspect: cannot read --token-file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`)
    return EXIT.usage
  }

  // Warnings (verify_ssl: false, no_auth) go to stderr; stdout carries the JSON only.
  const logger = createLogger({ level: 'warn' }, 2)
  let authz
  try {
    authz = setUpAuthz({ config: values.config }, logger)
  } catch (error) {
    if (error instanceof ConfigError) { io.stderr(`feast-authz inspect: ${error.message}\n`); return EXIT.usage }
    throw error
  }
  try {
    const principal = await authenticateRequest(authz, { authorization: `Bearer ${token}` }, undefined)
    io.stdout(`${JSON.stringify(principalToJSON(principal), null, 2)}\n`)
    return EXIT.ok
  } catch (error) {
    if (!(error instanceof AuthError)) throw error
    const cause = error.status === 503 && error.cause instanceof Error ? ` (${error.cause.message})` : ''
    io.stderr(`feast-authz inspect: ${error.status === 503 ? 'could not authenticate' : 'token rejected'}: ${error.code}: ${error.message}${cause}\n`)
    return EXIT.rejected
  } finally {
    await authz.manager.close()
  }
}
