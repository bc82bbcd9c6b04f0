import { FeastAuthzError } from '../registry/index.ts'

/** A request the server understood but refuses: Fastify answers with its status and message. */
export class HttpError extends FeastAuthzError {
  override readonly name = 'HttpError'
  readonly statusCode: 404 | 415 | 422 | 507
  /**
   * Already in the server's log, where it arose: a refusal that answers many requests (one
   * cause, said once), which the error handler does not log again for each of them.
   */
  readonly logged: boolean

  constructor (statusCode: 404 | 415 | 422 | 507, code: string, message: string, { logged = false }: { readonly logged?: boolean } = {}) {
    super(code, message)
    this.statusCode = statusCode
    this.logged = logged
  }
}

export const notFound = (message: string): HttpError => new HttpError(404, 'not_found', message)
export const unprocessable = (message: string): HttpError => new HttpError(422, 'invalid_request', message)
export const unsupportedMediaType = (message: string): HttpError => new HttpError(415, 'unsupported_media_type', message)
export const insufficientStorage = (message: string, options?: { readonly logged?: boolean }): HttpError =>
  new HttpError(507, 'insufficient_storage', message, options)
