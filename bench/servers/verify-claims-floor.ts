/**
 * Reference, not a verifier: `verify-floor` plus the least a correct verifier must add per
 * distinct token: decode the payload (base64url, UTF-8, `JSON.parse`) and check `exp`, `iss` and
 * `aud`, then hand the claims to the route. No header parsing (one key), no `kid` lookup, no
 * cache, no principal, no log. It tells which part of a verifier's cost above `verify-floor` is
 * the claims every verifier reads, and which is its own.
 */
import { createPublicKey, verify } from 'node:crypto'
import Fastify from 'fastify'
import { announce, PAYLOAD, readServerConfig, ROUTE } from './common.ts'

const config = readServerConfig()
const key = createPublicKey(config.rsaPublicKeyPem)
const app = Fastify({ logger: false })
app.decorateRequest('claims', null)
app.addHook('onRequest', (request, reply, done) => {
  const token = (request.headers.authorization ?? '').slice(7)
  const first = token.indexOf('.')
  const dot = token.lastIndexOf('.')
  if (first > 0 && dot > first && verify('sha256', Buffer.from(token.slice(0, dot), 'latin1'), key, Buffer.from(token.slice(dot + 1), 'base64url'))) {
    const claims = JSON.parse(Buffer.from(token.slice(first + 1, dot), 'base64url').toString('utf8')) as { exp?: unknown, iss?: unknown, aud?: unknown }
    if (typeof claims.exp === 'number' && claims.exp > Date.now() / 1000 && claims.iss === config.issuer && claims.aud === config.audience) {
      (request as unknown as { claims: unknown }).claims = claims
      done()
      return
    }
  }
  void reply.code(401).send()
})
app.get(ROUTE, async () => PAYLOAD)
await app.listen({ port: 0, host: '127.0.0.1' })
announce((app.server.address() as { port: number }).port, () => app.close())
