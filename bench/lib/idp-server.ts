/**
 * A static OpenID discovery document and key set on 127.0.0.1, counting what it serves.
 * It runs in the harness process: it is hit only when a server (re)loads its keys, and the
 * counts are what the unknown-`kid` flood target is about.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface IdpServer {
  readonly baseUrl: string
  readonly discoveryUrl: string
  readonly jwksUrl: string
  /** Requests served so far, per path kind. */
  readonly counts: { discovery: number, jwks: number, other: number }
  close (): Promise<void>
}

/** `jwksDelayMs`: the key set answers that late (the refresh scenario's slow provider). */
export async function startIdpServer (jwks: unknown, issuer: string, options: { jwksDelayMs?: number } = {}): Promise<IdpServer> {
  const counts = { discovery: 0, jwks: 0, other: 0 }
  let baseUrl = ''
  const jwksBody = JSON.stringify(jwks)
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    if (path === '/.well-known/openid-configuration') {
      counts.discovery++
      const body = JSON.stringify({
        issuer,
        jwks_uri: `${baseUrl}/jwks.json`,
        token_endpoint: `${baseUrl}/token`,
        id_token_signing_alg_values_supported: ['RS256', 'ES256']
      })
      response.writeHead(200, { 'content-type': 'application/json' }).end(body)
      return
    }
    if (path === '/jwks.json') {
      counts.jwks++
      const answer = (): void => { response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(jwksBody) }
      if (options.jwksDelayMs === undefined) answer()
      else setTimeout(answer, options.jwksDelayMs)
      return
    }
    counts.other++
    response.writeHead(404).end()
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    baseUrl,
    discoveryUrl: `${baseUrl}/.well-known/openid-configuration`,
    jwksUrl: `${baseUrl}/jwks.json`,
    counts,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
