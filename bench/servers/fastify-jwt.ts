/** Peer: @fastify/jwt with the RS256 public key (no JWKS fetching at all). */
import fastifyJwt from '@fastify/jwt'
import Fastify from 'fastify'
import { announce, PAYLOAD, readServerConfig, ROUTE } from './common.ts'

const config = readServerConfig()
const app = Fastify({ logger: false })
await app.register(fastifyJwt, {
  secret: { public: config.rsaPublicKeyPem },
  verify: { algorithms: ['RS256'], allowedIss: config.issuer, allowedAud: config.audience, requiredClaims: ['exp'] }
})
app.addHook('onRequest', async (request) => { await request.jwtVerify() })
app.get(ROUTE, async () => PAYLOAD)
await app.listen({ port: 0, host: '127.0.0.1' })
announce((app.server.address() as { port: number }).port, () => app.close())
