import { FeastAuthzError } from '../base/errors.ts'

/** Where a CLI command writes; tests pass their own to capture output. */
export interface CliIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly env: NodeJS.ProcessEnv
}

/**
 * Exit codes shared by every command (docs/troubleshooting.md#exit-codes): a script can tell
 * "no" (1) from "you asked wrongly" (2) from "ask again later" (3).
 */
export const EXIT = {
  /** Success: the token is accepted, the request allowed, the output printed. */
  ok: 0,
  /** The answer is no: token rejected, permission denied, no token to send. */
  rejected: 1,
  /** Bad arguments, or a configuration, permissions or registry file that cannot be used. */
  usage: 2,
  /** No answer: the identity provider, token endpoint or cluster API could not be reached. */
  undecided: 3
} as const

/** A command's entry point: arguments after the command name; resolves to the exit code. */
export type CliCommand = (argv: readonly string[], io: CliIo) => Promise<number>

/** Bad command-line arguments (unknown flag, missing value): reported on one line, with a pointer to `--help`; exit code {@link EXIT}.usage. */
export class UsageError extends FeastAuthzError {
  override readonly name = 'UsageError'
  declare readonly code: 'FEAST_AUTHZ_USAGE'

  constructor (message: string) {
    super('FEAST_AUTHZ_USAGE', message)
  }
}
