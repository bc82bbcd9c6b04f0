import { createRequire } from 'node:module'
import type * as KubernetesClient from '@kubernetes/client-node'

const requireModule = createRequire(import.meta.url)
let library: typeof KubernetesClient | undefined

/**
 * `@kubernetes/client-node`, loaded on first use: it is most of feast-authz's import cost
 * (about 60 MiB and 300 ms), and an OIDC-only server never needs it. Synchronous
 * (`require` of an ES module, Node >= 20.19) so that startup errors stay synchronous.
 */
export function kubernetesClient (): typeof KubernetesClient {
  library ??= requireModule('@kubernetes/client-node') as typeof KubernetesClient
  return library
}
