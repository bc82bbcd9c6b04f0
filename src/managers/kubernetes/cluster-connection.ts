import { accessSync } from 'node:fs'
import { isIPv6 } from 'node:net'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'
import type { KubeConfig } from '@kubernetes/client-node'
import { kubernetesClient } from './client-library.ts'
import { ConfigError } from '../../config/errors.ts'
import { yamlReason } from '../../config/yaml-reason.ts'
import { urlForLog } from '../../base/observability/log-safe-url.ts'
import { describeReadError } from '../../base/regular-file.ts'

/** Where a pod's service-account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'

/** How this process reaches the Kubernetes API server. */
export interface ClusterConnection {
  readonly kubeConfig: KubeConfig
  /** `in-cluster`: the pod's service account; `kubeconfig`: a kubeconfig file. */
  readonly source: 'in-cluster' | 'kubeconfig'
  /** For startup logs: which file or which in-cluster endpoint (never a credential). */
  readonly description: string
}

export interface DetectOptions {
  readonly env?: NodeJS.ProcessEnv | undefined
  /** The pod's service-account directory. Default {@link SERVICE_ACCOUNT_DIR}. */
  readonly serviceAccountDir?: string | undefined
  /** Home directory holding `.kube/config`. Default: `os.homedir()`. */
  readonly homeDir?: string | undefined
  /** Whether `~/.kube/config` counts when `KUBECONFIG` is unset. Default true. */
  readonly useHomeConfig?: boolean | undefined
}

/**
 * Finds the cluster connection, in the order client tools use: the in-cluster service
 * account (`KUBERNETES_SERVICE_HOST` set and the token file mounted), else the files named
 * by `KUBECONFIG`, else `~/.kube/config`. Returns `undefined` when none exists: unlike
 * client-node's `loadFromDefault`, we never fall back to an unauthenticated `localhost:8080`.
 * Throws {@link ConfigError} for a kubeconfig that cannot be read or has no current cluster.
 */
export function detectClusterConnection (options: DetectOptions = {}): ClusterConnection | undefined {
  const env = options.env ?? process.env
  const saDir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR
  const host = env.KUBERNETES_SERVICE_HOST
  if (host !== undefined && host !== '' && exists(join(saDir, 'token'))) {
    if (!saDir.endsWith(SERVICE_ACCOUNT_DIR)) throw new ConfigError(`the service-account directory must end with ${SERVICE_ACCOUNT_DIR}, got ${saDir}`)
    const kubeConfig = new (kubernetesClient().KubeConfig)()
    kubeConfig.loadFromCluster(saDir.slice(0, saDir.length - SERVICE_ACCOUNT_DIR.length))
    // loadFromCluster reads process.env; the server address must come from the env we were given.
    const cluster = kubeConfig.getCurrentCluster()
    if (cluster !== null) {
      kubeConfig.loadFromOptions({
        clusters: [{ ...cluster, server: inClusterServer(host, env.KUBERNETES_SERVICE_PORT ?? '443') }],
        users: kubeConfig.getUsers(),
        contexts: kubeConfig.getContexts(),
        currentContext: kubeConfig.getCurrentContext()
      })
    }
    return { kubeConfig, source: 'in-cluster', description: `in-cluster service account (${urlForLog(kubeConfig.getCurrentCluster()?.server ?? `https://${host}`)})` }
  }
  const files = (env.KUBECONFIG ?? '').split(delimiter).filter((file) => file !== '')
  if (files.length === 0 && options.useHomeConfig !== false) {
    const home = options.homeDir ?? env.HOME ?? homedir()
    const file = join(home, '.kube', 'config')
    if (home !== '' && exists(file)) files.push(file)
  }
  if (files.length === 0) return undefined
  return { kubeConfig: loadKubeconfigFiles(files), source: 'kubeconfig', description: `kubeconfig ${files.join(delimiter)}` }
}

/** Loads kubeconfig files as kubectl merges them: the first file's current context wins. */
export function loadKubeconfigFiles (files: readonly string[]): KubeConfig {
  const kubeConfig = new (kubernetesClient().KubeConfig)()
  files.forEach((file, index) => {
    const next = index === 0 ? kubeConfig : new (kubernetesClient().KubeConfig)()
    try {
      next.loadFromFile(file)
    } catch (error) {
      throw kubeconfigError(error, file)
    }
    if (next !== kubeConfig) kubeConfig.mergeConfig(next, true)
  })
  if (kubeConfig.getCurrentCluster() === null) {
    throw new ConfigError(`the kubeconfig has no current context with a cluster (current-context: ${kubeConfig.getCurrentContext() ?? 'unset'})`, { source: files[0] })
  }
  return kubeConfig
}

/**
 * Why a kubeconfig could not be loaded, without its text: the YAML parser's message quotes the
 * lines around the fault, and a kubeconfig's lines hold tokens and client keys. A parse fault is
 * told by its position and its reason, without the tag or alias the reason may quote
 * (`yamlReason`); a read fault in the words every file read uses.
 */
function kubeconfigError (error: unknown, file: string): ConfigError {
  const { code, reason, mark } = error as { code?: unknown, reason?: unknown, mark?: { line?: unknown, column?: unknown } }
  if (typeof reason === 'string' && typeof mark?.line === 'number' && typeof mark.column === 'number') {
    return new ConfigError(`cannot parse the kubeconfig: ${yamlReason(reason)}`, { source: file, line: mark.line + 1, column: mark.column + 1 })
  }
  if (typeof code === 'string') {
    // client-node reads a user's `token-file` while loading: name that file, not the kubeconfig.
    const path = (error as { path?: unknown }).path
    const what = typeof path === 'string' && path !== file ? `${path}, which the kubeconfig names` : 'the kubeconfig'
    return new ConfigError(`cannot read ${what}: ${describeReadError(error)}`, { source: file })
  }
  // client-node's own checks (`clusters[0].name is missing`) name fields, not values; one line of it.
  return new ConfigError(`cannot load the kubeconfig: ${((error as Error).message ?? String(error)).split('\n')[0]!}`, { source: file })
}

function exists (path: string): boolean {
  try {
    accessSync(path)
    return true
  } catch {
    return false
  }
}

/** The API server URL a pod uses, as client-node's `loadFromCluster` builds it. */
function inClusterServer (host: string, port: string): string {
  const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https'
  return `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`
}
