import { FeastAuthzError } from '../base/errors.ts'

/** Where a CLI command writes; tests pass their own to capture output. */
export interface CliIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly env: NodeJS.ProcessEnv
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, rejected: 1, usage: 2 } as const

/** A command's entry point: arguments after the command name; resolves to the exit code. */
export type CliCommand = (argv: readonly string[], io: CliIo) => Promise<number>

/** The command line itself is wrong (unknown flag, missing value): exit code {@link EXIT}.usage. */
export class UsageError extends FeastAuthzError {
  override readonly name = 'UsageError'
  declare readonly code: 'FEAST_AUTHZ_USAGE'

  constructor (message: string) {
    super('FEAST_AUTHZ_USAGE', message)
  }
}
