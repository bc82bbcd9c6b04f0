import { http, https } from './node-http.ts'
import type { Agent as HttpAgent } from 'node:http'
import type { Agent as HttpsAgent } from 'node:https'
import { urlForLog } from '../observability/log-safe-url.ts'
import { collectResponse, type HttpResponse } from './provider-response.ts'

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
  options: { agents: { http: HttpAgent, https: HttpsAgent }, signal: AbortSignal }
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const secure = target.protocol === 'https:'
    const body = Buffer.from(form.toString(), 'utf8')
    const request = (secure ? https : http).request(target, {
      method: 'POST',
      agent: secure ? options.agents.https : options.agents.http,
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) },
      signal: options.signal
    })
    collectResponse(request, urlForLog(target), MAX_BODY_BYTES, resolve, reject)
    request.end(body)
  })
}
