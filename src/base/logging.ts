import { destination, pino, type Logger, type LoggerOptions } from 'pino'

/** The logging calls feast-authz makes; a pino or Fastify logger fits. */
export type AuthLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'> & {
  /** When present, lets hot paths skip building log objects nobody will see. */
  isLevelEnabled?: (level: string) => boolean
}

/**
 * Paths pino must censor in anything it logs: credentials in request headers and the
 * secret fields of an `auth` section. Pass them to Fastify's logger:
 * `Fastify({ logger: { redact: feastAuthzRedactPaths } })`.
 */
export const feastAuthzRedactPaths: string[] = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'token',
  '*.token',
  'client_secret',
  '*.client_secret',
  'password',
  '*.password',
  'user_token',
  '*.user_token'
]

export const silentLogger: AuthLogger = pino({ level: 'silent' })

/** A pino logger with feast-authz's redaction, to stdout (1) or stderr (2). */
export function createLogger (options: LoggerOptions = {}, fd: 1 | 2 = 1): Logger {
  return pino({ name: 'feast-authz', redact: { paths: feastAuthzRedactPaths, censor: '[redacted]' }, ...options }, destination({ fd, sync: true }))
}

/**
 * Whether `log` will write a debug line. Hot paths build debug events only on a positive
 * answer: a logger that cannot say (Fastify's no-op logger has neither `isLevelEnabled` nor
 * `level`) gets no debug events rather than paying for them on every request.
 */
export function debugEnabled (log: AuthLogger): boolean {
  if (typeof log.isLevelEnabled === 'function') return log.isLevelEnabled('debug')
  const level = (log as { level?: unknown }).level
  return level === 'debug' || level === 'trace'
}
