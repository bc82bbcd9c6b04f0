import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { detectClusterConnection, SERVICE_ACCOUNT_DIR, type ClusterConnection } from '../../src/managers/kubernetes/cluster-connection.ts'
import type { KubernetesAuthConfig } from '../../src/config/auth-config.ts'
import { createKubernetesManager, type KubernetesManagerOptions } from '../../src/managers/kubernetes/kubernetes-manager.ts'
import type { AuthManager } from '../../src/managers/types.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, serviceAccountJwt, startFakeKubeApi, type FakeKubeApi } from './fake-kube-api.ts'
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

/**
 * Why the real `kubectl` cannot run here, or undefined when it can: tests that drive it skip
 * with this reason. CI installs it (.ci/run), so under CI its absence throws instead.
 */
export function kubectlMissing (): string | undefined {
  try {
    execFileSync('kubectl', ['version', '--client', '--output=json'], { stdio: 'pipe', timeout: 20_000 })
    return undefined
  } catch (error) {
    const missing = `kubectl is not installed (${(error as NodeJS.ErrnoException).code ?? 'failed'}); install the Debian package kubectl to run these tests`
    if (process.env.CI !== undefined) throw new Error(`CI must run the kubectl tests: ${missing}`)
    return missing
  }
}

export interface KubectlRun { readonly code: number, readonly stdout: string, readonly stderr: string }

/**
 * The real `kubectl <args>` against the fake API server as the user of `kubeconfig` (default:
 * the service's own), with a home directory of its own. Resolves with its exit code and output;
 * never rejects on a failing command. Asynchronous: the fake answers from this process.
 */
export async function runKubectl (api: FakeKubeApi, args: readonly string[], kubeconfig = api.kubeconfigPath): Promise<KubectlRun> {
  return await new Promise((resolve) => {
    execFile('kubectl', args, { env: { PATH: process.env.PATH, HOME: api.dir, KUBECONFIG: kubeconfig }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr })
    })
  })
}

/**
 * A pod of the fake cluster running as the service account `namespace/name`: its token (a
 * service-account JWT the fake API server authenticates as that account, for `audiences` or the
 * API server's own), its service-account directory, and the in-cluster connection it gives.
 */
export function fakePod (api: FakeKubeApi, namespace: string, name: string): { token: string, serviceAccountDir: string, connection: ClusterConnection } {
  const token = serviceAccountJwt(namespace, name)
  api.addToken(token, serviceAccountIdentity(namespace, name))
  const serviceAccountDir = fakePodDir(mkdtempSync(join(api.dir, 'pod-')), namespace, { token, caPem: api.caPem })
  const connection = detectClusterConnection({ env: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: new URL(api.url).port }, serviceAccountDir })
  if (connection === undefined) throw new Error('the fake pod gives no in-cluster connection')
  return { token, serviceAccountDir, connection }
}
