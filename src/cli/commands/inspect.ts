import { principalToJSON } from '../../base/principal.ts'
import { parseCommandArgs, reportUsage } from '../args.ts'
import { authenticateOnce } from '../authenticate-once.ts'
import { explainToken } from '../explain-token.ts'
import { configArgument, readTokenArgument, TOKEN_FILE_LIMITS } from '../inputs.ts'
import { EXIT, UsageError, type CliCommand } from '../io.ts'
import { usageLines } from '../help-text.ts'

const HELP = `${usageLines('inspect', ['[--config <feature_store.yaml>]', '(--token <jwt> | --token-file <path|->)', '[--explain]', '[--verbose]'])}

Authenticates the token exactly as the server would and prints the principal
(username, roles, groups, namespaces) as JSON on stdout.

  --config       the server's feature_store.yaml (default: FEATURE_STORE_YAML_BASE64,
                 then ./feature_store.yaml)
  --token        the token itself
  --token-file   a file holding the token; - reads standard input (at a terminal, one
                 line, not shown); pipes and <(command) too;
                 at most ${TOKEN_FILE_LIMITS}
  --explain      also print, on stderr, the token's header and claims (decoded without
                 verification) next to what the configuration expects, with hints; done
                 anyway when the token is rejected
  --verbose      also log what the server would log, with details and stack traces
                 (e.g. each failed request to the provider); --debug is the same

Exit codes: 0 accepted, 1 rejected, 2 usage or configuration error,
3 could not decide (the identity provider or the cluster could not be reached, or
refused feast-authz's own credentials).
`

const OPTIONS = {
  config: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  explain: { type: 'boolean' },
  verbose: { type: 'boolean' },
  debug: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' }
} as const

export const run: CliCommand = async (argv, io) => {
  let config: string | undefined
  let token: string
  let explain: boolean
  let verbose: boolean
  try {
    const { values } = parseCommandArgs(argv, OPTIONS)
    if (values.help === true) { io.stdout(HELP); return EXIT.ok }
    if (values.token !== undefined && values['token-file'] !== undefined) throw new UsageError('give one of --token and --token-file, not both')
    token = await readTokenArgument(values.token, values['token-file'], io.stderr)
    config = configArgument(values.config, io.env)
    explain = values.explain === true
    verbose = values.verbose === true || values.debug === true
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return reportUsage(io, 'inspect', error)
  }

  return await authenticateOnce(io, 'inspect', { config, token, verbose }, (outcome, authConfig) => {
    if ('rejected' in outcome) {
      io.stderr(`\n${explainToken(token, authConfig)}`)
      return EXIT.rejected
    }
    if (explain) io.stderr(explainToken(token, authConfig))
    io.stdout(`${JSON.stringify(principalToJSON(outcome.principal), null, 2)}\n`)
    return EXIT.ok
  })
}
