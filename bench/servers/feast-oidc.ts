/** Scenarios 2 and 3 (and the rejection, flood, refresh and memory runs): the feast-authz plugin in OIDC mode. */
import Fastify from 'fastify'
import feastAuthz from '../../src/index.ts'
import { announce, PAYLOAD, readServerConfig, ROUTE } from './common.ts'

const config = readServerConfig()
const app = Fastify({ logger: false })
await app.register(feastAuthz, {
  config: {
    project: 'bench',
    auth: {
      type: 'oidc',
      client_id: config.clientId,
      auth_discovery_url: config.discoveryUrl,
      audience: config.audience,
      issuer: config.issuer,
      // The refresh scenario shortens the key set's lifespan (BENCH_LIFESPAN_SECONDS).
      ...(process.env.BENCH_LIFESPAN_SECONDS === undefined ? {} : { jwks_cache_lifespan_seconds: Number(process.env.BENCH_LIFESPAN_SECONDS) })
    }
  }
})
app.get(ROUTE, async () => PAYLOAD)
await app.listen({ port: 0, host: '127.0.0.1' })
// The plugin loads the keys in the background at onReady; wait for them so the first
// measured requests do not pay for discovery.
for (let i = 0; i < 200 && !app.feastAuthz.health().ready; i++) await new Promise((resolve) => setTimeout(resolve, 25))
if (!app.feastAuthz.health().ready) throw new Error('feast-authz did not load the key set within 5 s')
announce((app.server.address() as { port: number }).port, () => app.close())
