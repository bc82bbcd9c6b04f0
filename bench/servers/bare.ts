/** Scenario 1: bare Fastify, no authentication: the ceiling. */
import Fastify from 'fastify'
import { announce, PAYLOAD, ROUTE } from './common.ts'

const app = Fastify({ logger: false })
app.get(ROUTE, async () => PAYLOAD)
await app.listen({ port: 0, host: '127.0.0.1' })
announce((app.server.address() as { port: number }).port, () => app.close())
