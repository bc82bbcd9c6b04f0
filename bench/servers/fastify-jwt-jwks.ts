/** Peer: fastify-jwt-jwks (nearform) against the benchmark key set. */
import Fastify, { type FastifyPluginCallback } from 'fastify'
import fastifyJwtJwksModule, { type FastifyJwtJwksOptions } from 'fastify-jwt-jwks'
import { announce, PAYLOAD, readServerConfig, ROUTE } from './common.ts'

// module.exports is the fastify-plugin-wrapped plugin (decorators visible at the root);
// the named export is the bare function, whose `authenticate` would stay encapsulated.
const fastifyJwtJwks = fastifyJwtJwksModule as unknown as FastifyPluginCallback<FastifyJwtJwksOptions>

const config = readServerConfig()
const app = Fastify({ logger: false })
await app.register(fastifyJwtJwks, { jwksUrl: config.jwksUrl, issuer: config.issuer, audience: config.audience })
app.addHook('onRequest', app.authenticate)
app.get(ROUTE, async () => PAYLOAD)
await app.listen({ port: 0, host: '127.0.0.1' })
announce((app.server.address() as { port: number }).port, () => app.close())
