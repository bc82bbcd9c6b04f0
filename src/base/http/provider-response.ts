import type http from 'node:http'
import { FeastAuthzError } from '../errors.ts'
import { tlsFailureOf } from './tls-failure.ts'
import { BodyTooLarge, readBoundedBody } from './bounded-body.ts'

/** A whole answer of the identity provider: status and body bytes. */
export interface HttpResponse {
  readonly status: number
  readonly body: Buffer
  /** The `Retry-After` header as sent (one of a 429 or a 503 says how long to wait), when there is one. */
  readonly retryAfter?: string
}

/** A failure to talk to the identity provider at all (network, TLS, timeout, oversized answer). */
export class ProviderRequestError extends FeastAuthzError {
  override readonly name: string = 'ProviderRequestError'
  declare readonly code: 'provider_request_failed'

  constructor (message: string, options: { cause?: unknown } = {}) {
    super('provider_request_failed', message, options)
  }
}

/**
 * Settles `resolve`/`reject` with the answer to `request`, read whole, or with a
 * {@link ProviderRequestError} naming `where` (origin and path only: never a query, which
 * may carry credentials). An answer over `maxBytes` is cut off and refused, so a hostile or
 * broken provider cannot make us buffer without bound. Used for GETs (discovery, key sets)
 * and POSTs (token requests) alike.
 */
export function collectResponse (
  request: http.ClientRequest,
  where: string,
  maxBytes: number,
  resolve: (response: HttpResponse) => void,
  reject: (error: Error) => void
): void {
  request.on('response', (response: http.IncomingMessage) => {
    readBoundedBody(response, maxBytes).then(
      (body) => {
        const retryAfter = response.headers['retry-after']
        resolve({ status: response.statusCode ?? 0, body, ...(typeof retryAfter === 'string' ? { retryAfter } : {}) })
      },
      (error: Error) => { reject(error instanceof BodyTooLarge ? new ProviderRequestError(`${where} answered more than ${maxBytes} bytes`) : describeRequestError(error, where)) }
    )
  })
  request.on('error', (error) => reject(describeRequestError(error, where)))
}

/** `where`: origin and path of the request. Timeouts and untrusted TLS certificates get their own wording. */
export function describeRequestError (error: Error & { code?: string }, where: string): ProviderRequestError {
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return new ProviderRequestError(`request to ${where} timed out`, { cause: error })
  const tls = tlsFailureOf(error.code) !== undefined
  const hint = tls ? ' (TLS certificate not trusted: set ca_cert_path to the provider\'s CA, or verify_ssl: false for development only)' : ''
  return new ProviderRequestError(`request to ${where} failed: ${error.code ?? error.message}${hint}`, { cause: error })
}
