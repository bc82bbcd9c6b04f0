import { authenticateRequest } from '../adapters/authenticate-request.ts'
import { setUpAuthz, type AuthzSetup } from '../adapters/setup.ts'
import { AuthError } from '../base/errors.ts'
import type { Principal } from '../base/principal.ts'
import type { AuthConfig } from '../config/auth-config.ts'
import { ConfigError } from '../config/errors.ts'
import { createCliLogger } from './cli-logger.ts'
import { reportUndecided } from './undecided.ts'
import { EXIT, type CliIo } from './io.ts'

/** How the token's authentication was decided: its principal, or the refusal (a 401). */
export type TokenOutcome = { readonly principal: Principal } | { readonly rejected: AuthError }

export interface OneTokenInput {
  /** feature_store.yaml, as `configArgument` resolves it. */
  readonly config: string | undefined
  readonly token: string
  /** `--verbose`/`--debug`: every log line at once, with details. */
  readonly verbose: boolean
}

/**
 * The sequence of `inspect` and `check`: sets up authentication from feature_store.yaml as the
 * server would (one-shot: the roles are listed once, no informer), authenticates the token, hands
 * a decided outcome to `report` with the configuration and its project (a refusal already said
 * on stderr) and then releases everything (the held error lines, the manager).
 * What ends the command by itself is reported here: a configuration error (exit 2), and an
 * outage, a 503 (exit 3: "could not decide", the manager's error lines dropped, since the verdict
 * says the same once).
 */
export async function authenticateOnce<T> (
  io: CliIo,
  command: string,
  input: OneTokenInput,
  report: (outcome: TokenOutcome, config: AuthConfig, project: AuthzSetup['project']) => T
): Promise<T | typeof EXIT.usage | typeof EXIT.undecided> {
  const logs = createCliLogger(io, command, input.verbose)
  let authz
  try {
    authz = setUpAuthz({ config: input.config }, logs.logger, { oneShot: true })
  } catch (error) {
    if (error instanceof ConfigError) { io.stderr(`feast-authz ${command}: ${error.message}\n`); return EXIT.usage }
    throw error
  }
  try {
    let outcome: TokenOutcome
    try {
      outcome = { principal: await authenticateRequest(authz, { authorization: `Bearer ${input.token}` }, undefined) }
    } catch (error) {
      if (!(error instanceof AuthError)) throw error
      if (error.status === 503) {
        logs.discard()
        return reportUndecided(io, command, error, authz.config)
      }
      io.stderr(`feast-authz ${command}: token rejected: ${refusal(error)}\n`)
      outcome = { rejected: error }
    }
    return report(outcome, authz.config, authz.project)
  } finally {
    logs.release()
    await authz.manager.close()
  }
}

/** `<code>: <message>`, as the commands print a refusal. */
export function refusal (error: AuthError): string {
  return `${error.code}: ${error.message}`
}
