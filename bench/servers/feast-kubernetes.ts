/**
 * Scenario 5: the feast-authz plugin in kubernetes mode against the fake API server. The
 * harness sets KUBECONFIG to the fake's kubeconfig; the plugin finds the cluster from it as it
 * would in production outside a pod.
 */
import Fastify from 'fastify'
import feastAuthz from '../../src/index.ts'
import { announce, PAYLOAD, REVIEW_TTL_SECONDS, ROUTE } from './common.ts'

const app = Fastify({ logger: false })
await app.register(feastAuthz, { config: { project: 'bench', auth: { type: 'kubernetes', namespace: 'feast', token_review_cache_ttl_seconds: REVIEW_TTL_SECONDS } } })
app.get(ROUTE, async () => PAYLOAD)
await app.listen({ port: 0, host: '127.0.0.1' })
// The RoleBinding informer syncs in the background at onReady; measure the steady state only.
for (let i = 0; i < 200 && !app.feastAuthz.health().ready; i++) await new Promise((resolve) => setTimeout(resolve, 25))
if (!app.feastAuthz.health().ready) throw new Error('feast-authz did not sync the RoleBindings within 5 s')
announce((app.server.address() as { port: number }).port, () => app.close())
