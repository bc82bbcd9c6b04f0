import { FeastAuthzError } from '../registry/index.ts'

/** A request the server understood but refuses: Fastify answers with its status and message. */
export class HttpError extends FeastAuthzError {
  override readonly name = 'HttpError'
  readonly statusCode: 404 | 415 | 422 | 507

  constructor (statusCode: 404 | 415 | 422 | 507, code: string, message: string) {
    super(code, message)
    this.statusCode = statusCode
  }
}

export const notFound = (message: string): HttpError => new HttpError(404, 'not_found', message)
export const unprocessable = (message: string): HttpError => new HttpError(422, 'invalid_request', message)
export const unsupportedMediaType = (message: string): HttpError => new HttpError(415, 'unsupported_media_type', message)
export const insufficientStorage = (message: string): HttpError => new HttpError(507, 'insufficient_storage', message)
