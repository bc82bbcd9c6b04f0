/**
 * One log capture for every test: a real pino logger (so it is an `AuthLogger`, a Fastify
 * `loggerInstance` and a Fastify `logger.stream` alike) that keeps each line it writes, parsed.
 */
import { Writable } from 'node:stream'
import { pino, type Logger } from 'pino'

/** pino's numeric levels, for assertions on `line.level`. */
export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const

/** One parsed log line: pino's `level` and `msg`, and the fields of the logged object. */
export interface LogLine { level: number, msg: string, [field: string]: unknown }

/** What {@link captureLogs} gives. */
export interface CapturedLogs {
  /** A pino logger at debug level writing into {@link CapturedLogs.lines}. */
  readonly logger: Logger
  /** A stream for `Fastify({ logger: { stream } })`: what Fastify writes lands in `lines` too. */
  readonly stream: Writable
  /** Every line written so far, in order. */
  readonly lines: LogLine[]
  /** The lines at one level. */
  at (level: keyof typeof LEVEL): LogLine[]
  /** Every line as the JSON text it was written as: for "never logged X" assertions. */
  readonly raw: string[]
}

/** A logger that keeps every line, to assert what an operator would read. */
export function captureLogs (): CapturedLogs {
  const lines: LogLine[] = []
  const raw: string[] = []
  const stream = new Writable({
    write (chunk: Buffer | string, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line === '') continue
        raw.push(line)
        lines.push(JSON.parse(line) as LogLine)
      }
      done()
    }
  })
  return {
    logger: pino({ level: 'debug' }, stream),
    stream,
    lines,
    raw,
    at: (level) => lines.filter((line) => line.level === LEVEL[level])
  }
}
