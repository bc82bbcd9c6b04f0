import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { KubeConfig } from '@kubernetes/client-node'
import { ConfigError } from '../../config/errors.ts'
import { SERVICE_ACCOUNT_DIR } from './cluster-connection.ts'

/** The namespace whose RoleBindings give roles, and where it came from (for the startup log). */
export interface ServiceNamespace {
  readonly namespace: string
  readonly source: 'service-account file' | 'POD_NAMESPACE' | 'kubeconfig context' | 'auth.namespace'
}

export interface NamespaceSources {
  readonly serviceAccountDir?: string | undefined
  readonly env?: NodeJS.ProcessEnv | undefined
  readonly kubeConfig?: KubeConfig | undefined
  /** `auth.namespace` of the configuration. */
  readonly configured?: string | undefined
}

/**
 * The service's own namespace, first found of: the pod's service-account namespace file,
 * `POD_NAMESPACE`, the kubeconfig's current context, `auth.namespace`. Throws
 * {@link ConfigError} when none is set, since roles could not be read anywhere.
 */
export function resolveServiceNamespace (sources: NamespaceSources): ServiceNamespace {
  const file = join(sources.serviceAccountDir ?? SERVICE_ACCOUNT_DIR, 'namespace')
  const fromFile = readTrimmed(file)
  if (fromFile !== undefined) return { namespace: fromFile, source: 'service-account file' }
  const fromEnv = (sources.env ?? process.env).POD_NAMESPACE?.trim()
  if (fromEnv !== undefined && fromEnv !== '') return { namespace: fromEnv, source: 'POD_NAMESPACE' }
  const kc = sources.kubeConfig
  const fromContext = kc === undefined ? undefined : kc.getContextObject(kc.getCurrentContext())?.namespace?.trim()
  if (fromContext !== undefined && fromContext !== '') return { namespace: fromContext, source: 'kubeconfig context' }
  if (sources.configured !== undefined) return { namespace: sources.configured, source: 'auth.namespace' }
  throw new ConfigError(`cannot tell the service's namespace: no ${file}, no POD_NAMESPACE, no namespace in the kubeconfig context; expected the namespace whose RoleBindings grant Feast roles`, { field: 'auth.namespace' })
}

function readTrimmed (path: string): string | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim()
    return text === '' ? undefined : text
  } catch {
    return undefined
  }
}
