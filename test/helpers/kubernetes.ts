import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SERVICE_ACCOUNT_DIR } from '../../src/managers/kubernetes/cluster-connection.ts'
import type { KubernetesAuthConfig } from '../../src/config/auth-config.ts'
import { createKubernetesManager, type KubernetesManagerOptions } from '../../src/managers/kubernetes/kubernetes-manager.ts'
import type { AuthManager } from '../../src/managers/types.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi } from './fake-kube-api.ts'
import type { AuthLogger } from '../../src/base/logging.ts'
import { captureLogs } from './logs.ts'

/** A directory that is never a pod's service-account mount, so namespace discovery goes past it. */
export const NO_POD = join(tmpdir(), 'feast-authz-no-pod')

/**
 * A fake pod filesystem under `root`: `<new dir>/var/run/secrets/kubernetes.io/serviceaccount/` with
 * `token` (default `pod-token`), `ca.crt` (default not a real CA) and `namespace` (none when undefined).
 * Returns the service-account directory.
 */
export function fakePodDir (root: string, namespace: string | undefined, files: { token?: string, caPem?: string } = {}): string {
  const dir = join(mkdtempSync(join(root, 'pod-')), SERVICE_ACCOUNT_DIR)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'token'), files.token ?? 'pod-token')
  writeFileSync(join(dir, 'ca.crt'), files.caPem ?? 'not really a ca')
  if (namespace !== undefined) writeFileSync(join(dir, 'namespace'), `${namespace}\n`)
  return dir
}

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
