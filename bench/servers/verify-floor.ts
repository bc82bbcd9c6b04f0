/**
 * Reference, not a verifier: bare Fastify plus exactly one `node:crypto.verify` of the
 * token's RS256 signature per request, with the key prepared once and no parsing, claims
 * or caching. Nothing that checks a distinct token can cost less; it shows how far the
 * verifiers (feast-authz and the peers) are from the limit of this machine's HTTP path.
 */
import { createPublicKey, verify } from 'node:crypto'
import Fastify from 'fastify'
import { announce, PAYLOAD, readServerConfig, ROUTE } from './common.ts'

const config = readServerConfig()
const key = createPublicKey(config.rsaPublicKeyPem)
const app = Fastify({ logger: false })
app.addHook('onRequest', (request, reply, done) => {
  const token = (request.headers.authorization ?? '').slice(7)
  const dot = token.lastIndexOf('.')
  const valid = dot > 0 && verify('sha256', Buffer.from(token.slice(0, dot), 'latin1'), key, Buffer.from(token.slice(dot + 1), 'base64url'))
  if (valid) done()
  else void reply.code(401).send()
})
app.get(ROUTE, async () => PAYLOAD)
await app.listen({ port: 0, host: '127.0.0.1' })
announce((app.server.address() as { port: number }).port, () => app.close())
