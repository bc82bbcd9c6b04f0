/**
 * A scripted OAuth token endpoint for the cases a real provider will not produce
 * (opaque tokens, missing expiry, odd error bodies). Answers discovery at
 * `/.well-known/openid-configuration` and `POST /token` with `next()`'s reply.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface StubReply {
  status: number
  body: unknown
  /** Sent as is instead of `body` as JSON: for what JSON.stringify cannot write (`1e400`, read back as Infinity). */
  rawBody?: string
  /** Headers of the answer beside its content type (`retry-after`, say). */
  headers?: Record<string, string>
}

export interface TokenEndpointStub {
  readonly discoveryUrl: string
  /** Form bodies received by /token, in order. */
  readonly forms: URLSearchParams[]
  /** What the next /token requests answer (the last entry repeats). */
  replies: StubReply[]
  close (): Promise<void>
}

export async function startTokenEndpointStub (replies: StubReply[]): Promise<TokenEndpointStub> {
  const forms: URLSearchParams[] = []
  let served = 0
  const stub = { replies }
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const { port } = server.address() as AddressInfo
      const send = (status: number, body: unknown, rawBody?: string, headers: Record<string, string> = {}): void => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(rawBody ?? JSON.stringify(body))
      }
      if (request.url === '/.well-known/openid-configuration') {
        send(200, { issuer: `http://127.0.0.1:${port}`, jwks_uri: `http://127.0.0.1:${port}/jwks`, token_endpoint: `http://127.0.0.1:${port}/token` })
        return
      }
      if (request.url === '/token' && request.method === 'POST') {
        forms.push(new URLSearchParams(Buffer.concat(chunks).toString('utf8')))
        const reply = stub.replies[Math.min(served++, stub.replies.length - 1)] ?? { status: 500, body: {} }
        send(reply.status, reply.body, reply.rawBody, reply.headers)
        return
      }
      send(404, {})
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    discoveryUrl: `http://127.0.0.1:${port}/.well-known/openid-configuration`,
    forms,
    get replies () { return stub.replies },
    set replies (value) { stub.replies = value; served = 0 },
    close: async () => { server.closeAllConnections(); await new Promise<void>((resolve) => server.close(() => resolve())) }
  }
}
