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
