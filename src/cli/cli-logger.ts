import { pino, type Logger } from 'pino'
import { feastAuthzRedactPaths } from '../base/logging.ts'
import type { CliIo } from './io.ts'

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warning', 50: 'error', 60: 'fatal' }
const ERROR = 50

/** The logger of a one-shot command, and the error lines it holds back until the outcome is known. */
export interface CliLogger {
  readonly logger: Logger
  /** Writes the error lines held back: the command's own output does not report their failure. */
  release: () => void
  /** Drops them: the command's verdict reports the same failure (could not decide). */
  discard: () => void
}

/**
 * The logger of the one-shot commands: short human lines on stderr
 * (`feast-authz inspect: warning: ...`), warnings and errors only. A manager logs an outage at
 * error level for a server's operators; a command that then says "could not decide" has said it
 * already, so errors wait for {@link CliLogger.release} or {@link CliLogger.discard}. `verbose`
 * writes every line at once, with debug lines and the fields and stack traces of each entry,
 * for a bug report.
 */
export function createCliLogger (io: CliIo, command: string, verbose = false): CliLogger {
  let held: string[] = []
  const logger = pino({
    name: 'feast-authz',
    level: verbose ? 'debug' : 'warn',
    redact: { paths: feastAuthzRedactPaths, censor: '[redacted]' }
  }, {
    write (line: string): void {
      const entry = JSON.parse(line) as Record<string, unknown>
      const text = humanLine(command, entry, verbose)
      if (!verbose && (entry.level as number) >= ERROR) held.push(text)
      else io.stderr(text)
    }
  })
  return {
    logger,
    release: () => { for (const text of held) io.stderr(text); held = [] },
    discard: () => { held = [] }
  }
}

function humanLine (command: string, entry: Record<string, unknown>, verbose: boolean): string {
  const { level, msg, err, time: _time, pid: _pid, hostname: _hostname, name: _name, ...fields } = entry
  const message = String(msg ?? '').replace(/^feast-authz: /, '')
  const error = err as { message?: string, stack?: string } | undefined
  // The reason is worth its one line; where it was thrown only when asked.
  const reason = error?.message === undefined || message.includes(error.message) ? '' : ` (${error.message})`
  const head = `feast-authz ${command}: ${LEVEL_NAMES[level as number] ?? 'log'}: ${message}${reason}\n`
  if (!verbose) return head
  const detail = Object.keys(fields).length === 0 ? '' : `  ${JSON.stringify(fields)}\n`
  const stack = error?.stack === undefined ? '' : `${error.stack.split('\n').map((line) => `  ${line}`).join('\n')}\n`
  return `${head}${detail}${stack}`
}
