/** Plain HTTPS requests to the fake Kubernetes API server (fake-kube-api.ts), for tests of the double itself. */
import https from 'node:https'
import type { FakeKubeApi } from './fake-kube-api.ts'

export interface Answer { status: number, headers: Record<string, string | string[] | undefined>, body: any }

export interface RequestOptions {
  readonly method?: string
  /** The whole Authorization header (default: the service's bearer token); null: none. */
  readonly authorization?: string | null
  readonly contentType?: string
  /** A body sent as it is, not as JSON. */
  readonly raw?: string
}

/** One request to the double, as a client with the service's credential makes it (unless told otherwise). */
export async function request (api: FakeKubeApi, path: string, body?: unknown, options: RequestOptions = {}): Promise<Answer> {
  const authorization = options.authorization === undefined ? `Bearer ${api.serviceToken}` : options.authorization
  const payload = options.raw ?? (body === undefined ? undefined : JSON.stringify(body))
  return await new Promise((resolve, reject) => {
    const req = https.request(`${api.url}${path}`, {
      method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
      ca: api.caPem,
      headers: { ...(authorization === null ? {} : { authorization }), 'content-type': options.contentType ?? 'application/json' }
    }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      const json = String(res.headers['content-type'] ?? '').startsWith('application/json')
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === '' ? undefined : json ? JSON.parse(text) : text }) })
    })
    req.on('error', reject)
    req.end(payload)
  })
}
