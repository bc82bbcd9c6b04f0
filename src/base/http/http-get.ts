import { http, https } from './node-http.ts'
import type { Agent as HttpAgent } from 'node:http'
import type { Agent as HttpsAgent } from 'node:https'
import { urlForLog } from '../observability/log-safe-url.ts'
import { readRegularFile } from '../regular-file.ts'
import { collectResponse, type HttpResponse } from './provider-response.ts'

export { ProviderRequestError, type HttpResponse } from './provider-response.ts'

/** TLS settings from `verify_ssl` / `ca_cert_path`, applied to every request to the provider. */
export interface TlsSettings {
  readonly verify: boolean
  readonly ca?: string | undefined
}

const MAX_BODY_BYTES = 1024 * 1024
/** Largest CA bundle read: the whole Mozilla set is about 220 KB. */
const MAX_CA_BYTES = 4 * 1024 * 1024

/**
 * Agents shared by every request of one manager: keep-alive to the provider, and TLS
 * settings decided once. Redirects are not followed: a key set must come from where
 * discovery said. The CA bundle must be a regular file (`readRegularFile`): throws its errors.
 */
export function createAgents (tls: TlsSettings): { http: HttpAgent, https: HttpsAgent } {
  const ca = tls.ca === undefined ? undefined : readRegularFile(tls.ca, MAX_CA_BYTES).toString('utf8')
  return {
    http: new http.Agent({ keepAlive: true, maxSockets: 4 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 4, rejectUnauthorized: tls.verify, ...(ca === undefined ? {} : { ca }) })
  }
}

/** GETs `url` (JSON accepted), read whole; errors are {@link ProviderRequestError}s. */
export function httpGet (
  url: string,
  options: { agents: { http: HttpAgent, https: HttpsAgent }, signal: AbortSignal, headers?: Record<string, string> }
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const secure = target.protocol === 'https:'
    const request = (secure ? https : http).get(target, {
      agent: secure ? options.agents.https : options.agents.http,
      headers: { accept: 'application/json', ...options.headers },
      signal: options.signal
    })
    collectResponse(request, urlForLog(target), MAX_BODY_BYTES, resolve, reject)
  })
}
