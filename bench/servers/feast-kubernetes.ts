/**
 * Scenario 5: the feast-authz plugin in kubernetes mode against the fake API server
 * (the harness sets KUBECONFIG to the fake's kubeconfig). The manager is built here and
 * handed to the plugin, so the scenario does not depend on how create-manager wires it.
 */
import Fastify from 'fastify'
import feastAuthz from '../../src/index.ts'
import { silentLogger } from '../../src/logging.ts'
import { createKubernetesManager } from '../../src/managers/kubernetes/kubernetes-manager.ts'
import { announce, PAYLOAD, ROUTE } from './common.ts'

const auth = { type: 'kubernetes' as const, namespace: 'feast', token_review_cache_ttl_seconds: 60 }
const app = Fastify({ logger: false })
await app.register(feastAuthz, {
  config: { project: 'bench', auth: { type: 'kubernetes', namespace: 'feast' } },
  manager: createKubernetesManager(auth, { logger: silentLogger })
})
app.get(ROUTE, async () => PAYLOAD)
await app.listen({ port: 0, host: '127.0.0.1' })
for (let i = 0; i < 200 && !app.feastAuthz.health().ready; i++) await new Promise((resolve) => setTimeout(resolve, 25))
if (!app.feastAuthz.health().ready) throw new Error('feast-authz did not sync the RoleBindings within 5 s')
announce((app.server.address() as { port: number }).port, () => app.close())
