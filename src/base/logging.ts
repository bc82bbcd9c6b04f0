import { destination, pino, type LogFn, type Logger, type LoggerOptions } from 'pino'
import { redactRequestUrlsIn, requestUrlForLog } from './observability/log-safe-url.ts'
import { methods, type OptionRule } from './option-rules.ts'

/** The logging calls feast-authz makes; a pino or Fastify logger fits. */
export type AuthLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'> & {
  /** When present, lets hot paths skip building log objects nobody will see. */
  isLevelEnabled?: (level: string) => boolean
}

/** The option rule of a logger given in code: the four methods feast-authz calls. */
export const LOGGER_OPTION: OptionRule = methods('debug', 'info', 'warn', 'error')

/**
 * Paths pino must censor in anything it logs: credentials in request headers and the
 * secret fields of an `auth` section. Part of {@link feastAuthzLoggerOptions}, which also
 * redacts credentials in request URLs: prefer that.
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

/**
 * Serializers for request logs: `req` logs method, URL, host and remote address like Fastify's
 * default, with credential-bearing query parameters (`access_token`, `code`, `client_secret`,
 * any JWT, ...) redacted. It takes a Fastify request or a Node/Express `IncomingMessage`.
 */
export const feastAuthzLogSerializers = {
  req (req: RequestLike): Record<string, unknown> {
    return {
      method: req.method,
      url: requestUrlForLog(req.originalUrl ?? req.url ?? ''),
      host: req.host ?? req.headers?.host,
      remoteAddress: req.ip ?? req.socket?.remoteAddress,
      remotePort: req.socket?.remotePort
    }
  }
}

/**
 * Everything a pino logger needs so that feast-authz's deployments never log a credential:
 * {@link feastAuthzRedactPaths} (headers, secret fields), {@link feastAuthzLogSerializers}
 * (request URLs), and a hook that redacts request URLs inside messages (Fastify's
 * `Route GET:/x?access_token=... not found`). Spread it into Fastify's logger options:
 *
 * @example
 * ```ts
 * import Fastify from 'fastify'
 * import { feastAuthzLoggerOptions } from 'feast-authz'
 * const app = Fastify({ logger: { level: 'info', ...feastAuthzLoggerOptions } })
 * ```
 */
export const feastAuthzLoggerOptions = {
  redact: { paths: feastAuthzRedactPaths, censor: '[redacted]' },
  serializers: feastAuthzLogSerializers,
  hooks: {
    logMethod (this: Logger, args: Parameters<LogFn>, method: LogFn): void {
      method.apply(this, args.map((arg: unknown) => typeof arg === 'string' ? redactRequestUrlsIn(arg) : arg) as Parameters<LogFn>)
    }
  }
} satisfies LoggerOptions

/** The parts of a request {@link feastAuthzLogSerializers} reads (Fastify, Express and Node requests alike). */
interface RequestLike {
  readonly method?: string | undefined
  readonly url?: string | undefined
  readonly originalUrl?: string | undefined
  readonly host?: string | undefined
  readonly ip?: string | undefined
  readonly headers?: { readonly host?: string | undefined } | undefined
  readonly socket?: { readonly remoteAddress?: string | undefined, readonly remotePort?: number | undefined } | undefined
}

export const silentLogger: AuthLogger = pino({ level: 'silent' })

/** A pino logger with feast-authz's redaction ({@link feastAuthzLoggerOptions}), to stdout (1) or stderr (2). */
export function createLogger (options: LoggerOptions = {}, fd: 1 | 2 = 1): Logger {
  return pino({ name: 'feast-authz', ...feastAuthzLoggerOptions, ...options }, destination({ fd, sync: true }))
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

/**
 * Whether `log` may write a line at `level`. A logger that cannot say is asked anyway, except
 * when that level's method is a function named `noop`: what pino installs for a disabled level
 * and what Fastify's logger is made of when logging is off (abstract-logging). A rejected token
 * then costs no log event, and so no token fingerprint, on a server that logs nothing.
 */
export function levelEnabled (log: AuthLogger, level: 'info' | 'warn' | 'error'): boolean {
  if (typeof log.isLevelEnabled === 'function') return log.isLevelEnabled(level)
  return log[level].name !== 'noop'
}
