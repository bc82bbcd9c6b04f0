import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { KubernetesAuthConfig } from '../../src/config/auth-config.ts'
import { createKubernetesManager, type KubernetesManagerOptions } from '../../src/managers/kubernetes/kubernetes-manager.ts'
import type { AuthManager } from '../../src/managers/types.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi } from './fake-kube-api.ts'
import type { AuthLogger } from '../../src/base/logging.ts'
import { captureLogs } from './logs.ts'

/** A directory that is never a pod's service-account mount, so namespace discovery goes past it. */
export const NO_POD = join(tmpdir(), 'feast-authz-no-pod')

/** The `auth` section of the tests' kubernetes servers. */
export const KUBERNETES_CONFIG: KubernetesAuthConfig = { type: 'kubernetes', token_review_cache_ttl_seconds: 60 }

/** A kubernetes manager connected to the fake API server, outside any pod, with an empty environment. */
export function managerFor (
  api: FakeKubeApi,
  options: { config?: KubernetesAuthConfig, logger?: AuthLogger } & Partial<KubernetesManagerOptions> = {}
): AuthManager {
  const { config = KUBERNETES_CONFIG, logger = captureLogs().logger, ...extra } = options
  return createKubernetesManager(config, {
    logger,
    connection: { kubeConfig: api.kubeConfig(), source: 'kubeconfig', description: 'fake API server' },
    serviceAccountDir: NO_POD,
    env: {},
    ...extra
  })
}

/**
 * A fake API server for namespace `feast` where the service account `apps/alice`, whose token is
 * `jwsToken('alice-token')`, is bound to the Feast Role `reader`.
 */
export async function startClusterWithAliceReader (): Promise<FakeKubeApi> {
  const api = await startFakeKubeApi({ namespace: 'feast' })
  api.addToken(jwsToken('alice-token'), serviceAccountIdentity('apps', 'alice'))
  api.putRole(feastRole('feast', 'reader'))
  api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
  return api
}
