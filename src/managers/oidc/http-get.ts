import { readFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'

/** TLS settings from `verify_ssl` / `ca_cert_path`, applied to every request to the provider. */
export interface TlsSettings {
  readonly verify: boolean
  readonly ca?: string | undefined
}

export interface HttpResponse {
  readonly status: number
  readonly body: Buffer
}

/** A failure to talk to the identity provider at all (network, TLS, timeout, oversized answer). */
export class ProviderRequestError extends Error {
  override readonly name = 'ProviderRequestError'
}

const MAX_BODY_BYTES = 1024 * 1024

/**
 * Agents shared by every request of one manager: keep-alive to the provider, and TLS
 * settings decided once. Redirects are not followed: a key set must come from where
 * discovery said.
 */
export function createAgents (tls: TlsSettings): { http: http.Agent, https: https.Agent } {
  const ca = tls.ca === undefined ? undefined : readFileSync(tls.ca, 'utf8')
  return {
    http: new http.Agent({ keepAlive: true, maxSockets: 4 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 4, rejectUnauthorized: tls.verify, ...(ca === undefined ? {} : { ca }) })
  }
}

export function httpGet (
  url: string,
  options: { agents: { http: http.Agent, https: https.Agent }, signal: AbortSignal, headers?: Record<string, string> }
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const secure = target.protocol === 'https:'
    const request = (secure ? https : http).get(target, {
      agent: secure ? options.agents.https : options.agents.http,
      headers: { accept: 'application/json', ...options.headers },
      signal: options.signal
    }, (response) => {
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BODY_BYTES) {
          response.destroy()
          reject(new ProviderRequestError(`${target.origin}${target.pathname} answered more than ${MAX_BODY_BYTES} bytes`))
          return
        }
        chunks.push(chunk)
      })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }))
      response.on('error', (error) => reject(describe(error, target)))
    })
    request.on('error', (error) => reject(describe(error, target)))
  })
}

function describe (error: Error & { code?: string }, target: URL): Error {
  const where = `${target.origin}${target.pathname}`
  if (error.name === 'AbortError' || error.name === 'TimeoutError') {
    const timeout = new ProviderRequestError(`request to ${where} timed out`, { cause: error })
    return timeout
  }
  const tls = error.code !== undefined && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(error.code)
  const hint = tls ? ' (TLS certificate not trusted: set ca_cert_path to the provider\'s CA, or verify_ssl: false for development only)' : ''
  return new ProviderRequestError(`request to ${where} failed: ${error.code ?? error.message}${hint}`, { cause: error })
}
