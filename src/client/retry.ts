/**
 * Sending a request again after a transient failure, as Feast's Python client does through
 * urllib3's `Retry` (docs/client.md, "Retries"): the same statuses, methods, count and backoff,
 * with `Retry-After` honoured up to a cap and the caller's AbortSignal obeyed during every wait.
 */
import { retryAfterMs } from '../base/http/retry-after.ts'
import { func, integer, milliseconds, type OptionRules } from '../base/option-rules.ts'

/** Feast's `status_forcelist`: rate limiting and failures of the server or a gateway in front of it, which may pass. */
const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504])

/** urllib3 also retries a 413 that carries `Retry-After`: the server says the refusal is temporary. */
const PAYLOAD_TOO_LARGE = 413

/** Feast's `allowed_methods`. Others (PATCH, HEAD, OPTIONS) are not retried, as in Feast; its servers serve none of them. */
const RETRIED_METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'DELETE'])

/**
 * The `cause.code` of fetch's `TypeError` when the connection failed or broke before an answer
 * came: a later attempt may succeed. Others (an invalid URL, a blocked port, a TLS certificate
 * refused, a closed dispatcher) would fail the same way again.
 */
const NETWORK_FAILURES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN',
  'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT'
])

/** Feast's `connection_retries` default. */
export const DEFAULT_RETRIES = 3
/** Feast's `backoff_factor` (0.5 s). */
export const DEFAULT_RETRY_BACKOFF_MS = 500
/** urllib3's `backoff_max`: no computed backoff is longer. */
export const MAX_BACKOFF_MS = 120_000
/** The longest `Retry-After` honoured by default; the same bound as the computed backoff. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 120_000

/** Waits `ms`; rejects with `signal.reason` as soon as the signal aborts. */
export type RetrySleep = (ms: number, signal: AbortSignal | undefined) => Promise<void>

/** How transient failures are retried. See docs/client.md. */
export interface RetryOptions {
  /** Retries after the first attempt (Feast's `connection_retries`). Default 3; `0` switches retrying off. */
  readonly retries?: number | undefined
  /**
   * Backoff factor in milliseconds (Feast's `backoff_factor`, 0.5 s): the first retry goes at once,
   * the n-th waits `retryBackoffMs * 2^(n-1)`, at most 120 s. Default 500.
   */
  readonly retryBackoffMs?: number | undefined
  /**
   * The longest wait a `Retry-After` header may ask for. A response asking for longer is returned
   * to the caller at once instead of holding it for hours. Default 120 000 ms.
   */
  readonly maxRetryAfterMs?: number | undefined
  /** Waits between attempts, for tests. Default a timer that the request's AbortSignal cancels. */
  readonly sleep?: RetrySleep | undefined
}

/** The rules of {@link RetryOptions}, checked by `checkOptions` (src/base/option-rules.ts). */
export const RETRY_OPTION_RULES: OptionRules = {
  retries: integer(0, 100),
  retryBackoffMs: milliseconds(0, MAX_BACKOFF_MS),
  maxRetryAfterMs: milliseconds(0),
  sleep: func()
}

/** What the retrier needs to know of a request besides how to send it. */
export interface RetriedRequest {
  /** The method as given; compared upper-cased, as urllib3 does. */
  readonly method: string
  /** The caller's signal (from `init` or the Request). */
  readonly signal: AbortSignal | undefined
  /** Whether the body can be sent again (not a one-shot stream). */
  readonly resendable: boolean
}

/** Sends with `send` and, after a transient failure, again, until it succeeds or the retries run out. */
export type Retrier = (send: () => Promise<Response>, request: RetriedRequest) => Promise<Response>

/**
 * A {@link Retrier} with `options`. When the retries run out, the last response is returned (or the
 * last network error thrown): a status is the caller's to read, as with `fetch`. `now` dates an
 * HTTP-date `Retry-After`.
 */
export function createRetrier (options: RetryOptions, now: () => number): Retrier {
  const retries = options.retries ?? DEFAULT_RETRIES
  const backoffMs = options.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS
  const sleep = options.sleep ?? abortableSleep
  // urllib3 starts at once, "most errors are resolved immediately by a second try", then doubles.
  const backoff = (retry: number): number => retry === 1 ? 0 : Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** (retry - 1))

  /** How long to wait before retry number `retry` after `response`, or `undefined` to return it. */
  const delayAfter = (response: Response, retry: number): number | undefined => {
    const asked = retryAfterMs(response.headers.get('retry-after'), now())
    if (!RETRIED_STATUSES.has(response.status) && !(response.status === PAYLOAD_TOO_LARGE && asked !== undefined)) return undefined
    // urllib3 falls back to the backoff for a Retry-After of 0 or a date already past.
    if (asked === undefined || asked === 0) return backoff(retry)
    return asked <= maxRetryAfterMs ? asked : undefined
  }

  return async (send, request) => {
    const { signal } = request
    const wait = async (ms: number): Promise<void> => {
      signal?.throwIfAborted()
      await sleep(ms, signal)
      // A sleep given in the options may not watch the signal: after an abort, no token is asked for and nothing is sent.
      signal?.throwIfAborted()
    }
    const eligible = request.resendable && RETRIED_METHODS.has(request.method.toUpperCase())
    for (let retry = 1; ; retry++) {
      const last = !eligible || retry > retries
      let response: Response
      try {
        response = await send()
      } catch (error) {
        if (last || !isNetworkFailure(error)) throw error
        await wait(backoff(retry))
        continue
      }
      const delay = last ? undefined : delayAfter(response, retry)
      if (delay === undefined) return response
      await discard(response)
      await wait(delay)
    }
  }
}

/** Cancels the body of a response the caller will not see, so its connection is released. */
export async function discard (response: Response): Promise<void> {
  await response.body?.cancel()
}

function isNetworkFailure (error: unknown): boolean {
  if (!(error instanceof TypeError)) return false
  const code = (error.cause as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && NETWORK_FAILURES.has(code)
}

async function abortableSleep (ms: number, signal: AbortSignal | undefined): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
