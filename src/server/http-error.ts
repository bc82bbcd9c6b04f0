/** A request the server understood but refuses: Fastify answers with its status and message. */
export class HttpError extends Error {
  override readonly name = 'HttpError'
  readonly statusCode: 404 | 422
  readonly code: string

  constructor (statusCode: 404 | 422, code: string, message: string) {
    super(message)
    this.statusCode = statusCode
    this.code = code
  }
}

export const notFound = (message: string): HttpError => new HttpError(404, 'not_found', message)
export const unprocessable = (message: string): HttpError => new HttpError(422, 'invalid_request', message)
