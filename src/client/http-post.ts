import http from 'node:http'
import https from 'node:https'
import { ProviderRequestError, type HttpResponse } from '../managers/oidc/http-get.ts'

const MAX_BODY_BYTES = 256 * 1024

/**
 * POSTs an `application/x-www-form-urlencoded` body (RFC 6749 token requests) over the
 * agents of `createAgents`, so `verify_ssl`/`ca_cert_path` apply exactly as for discovery.
 * Redirects are not followed: credentials go only where discovery said.
 * Errors never contain the body that was sent.
 */
export function httpPostForm (
  url: string,
  form: URLSearchParams,
  options: { agents: { http: http.Agent, https: https.Agent }, signal: AbortSignal }
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const where = `${target.origin}${target.pathname}`
    const secure = target.protocol === 'https:'
    const body = Buffer.from(form.toString(), 'utf8')
    const request = (secure ? https : http).request(target, {
      method: 'POST',
      agent: secure ? options.agents.https : options.agents.http,
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) },
      signal: options.signal
    }, (response) => {
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BODY_BYTES) {
          response.destroy()
          reject(new ProviderRequestError(`${where} answered more than ${MAX_BODY_BYTES} bytes`))
          return
        }
        chunks.push(chunk)
      })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }))
      response.on('error', (error) => reject(describe(error, where)))
    })
    request.on('error', (error) => reject(describe(error, where)))
    request.end(body)
  })
}

function describe (error: Error & { code?: string }, where: string): Error {
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return new ProviderRequestError(`request to ${where} timed out`, { cause: error })
  const tls = error.code !== undefined && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(error.code)
  const hint = tls ? ' (TLS certificate not trusted: set ca_cert_path to the provider\'s CA, or verify_ssl: false for development only)' : ''
  return new ProviderRequestError(`request to ${where} failed: ${error.code ?? error.message}${hint}`, { cause: error })
}
