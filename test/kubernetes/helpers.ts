import { pino } from 'pino'
import type { AuthLogger } from '../../src/logging.ts'

export interface LogLine { level: number, msg: string, [key: string]: unknown }

/** A logger that keeps every line, to assert what an operator would read. */
export function captureLogger (): { logger: AuthLogger, lines: LogLine[] } {
  const lines: LogLine[] = []
  const logger = pino({ level: 'debug' }, { write: (line: string) => { lines.push(JSON.parse(line) as LogLine) } })
  return { logger, lines }
}

/** Polls until `check` is true (informer events arrive asynchronously). */
export async function eventually (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
