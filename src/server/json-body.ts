/**
 * The body types the reference server's routes take: JSON in UTF-8, recognised as Feast's
 * FastAPI routes recognise it — `application/json`, any `application/<name>+json`, or no
 * `Content-Type` at all (Python's `requests.post(url, data=json.dumps(body))` sends none).
 * Anything else is a 415. Fastify alone would read `text/plain` too (the routes then meet a string
 * and answer 422; FastAPI answers 422 as well) and ignores a `charset` parameter, so a body labelled
 * UTF-16 would be read as UTF-8: a proxy or a filter in front that honours the label inspects
 * another body than the one the routes act on. A charset other than UTF-8 is a 415 too. Each
 * body's text is kept with its request ({@link jsonTextOf}), for the order of its keys.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { unsupportedMediaType } from './http-error.ts'

type Done = (error: Error | null, body?: unknown) => void

// Each request's JSON text, for as long as the request lives.
const texts = new WeakMap<FastifyRequest, string>()

/**
 * The JSON text `request`'s body was parsed from: what tells the order of an object's
 * integer-like keys, which the parsed body has lost (json-key-order.ts). Undefined without a body.
 */
export function jsonTextOf (request: FastifyRequest): string | undefined {
  return texts.get(request)
}

/** Replaces Fastify's body parsers with JSON only, refusing any charset but UTF-8 (RFC 8259 8.1). */
export function acceptJsonBodiesOnly (app: FastifyInstance): void {
  // What Fastify's own JSON parser refuses stays refused (__proto__ and constructor.prototype keys).
  const parseJson = app.getDefaultJsonParser('error', 'error')
  const readJson = (request: FastifyRequest, body: string | Buffer, done: Done): void => {
    const charset = charsetOf(request.headers['content-type'])
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(unsupportedMediaType('a JSON body must be UTF-8 (RFC 8259); send it without a charset or with charset=utf-8'), undefined)
      return
    }
    parseJson(request, body as string, (error, parsed) => {
      if (error === null) texts.set(request, body as string)
      done(error, parsed)
    })
  }
  app.removeAllContentTypeParsers()
  // As strings, so that bodyLimit is enforced before any parsing.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, readJson)
  app.addContentTypeParser(/^application\/[^\s/;]+\+json(?:$|;)/, { parseAs: 'string' }, readJson)
  // The catch-all: Fastify hands it both a body without Content-Type and every type not matched above.
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    if (request.headers['content-type'] === undefined) {
      readJson(request, body, done)
      return
    }
    done(unsupportedMediaType('the body must be JSON: send it as application/json'), undefined)
  })
}

// The charset parameter, lower-cased and unquoted; undefined when the header names none.
function charsetOf (contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined
  for (const parameter of contentType.split(';').slice(1)) {
    const equals = parameter.indexOf('=')
    if (equals < 0 || parameter.slice(0, equals).trim().toLowerCase() !== 'charset') continue
    return parameter.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase()
  }
  return undefined
}
