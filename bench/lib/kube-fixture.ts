/**
 * The fake Kubernetes API server for scenario 5, in the harness process so that its calls
 * can be counted. Loaded lazily: the scenario is skipped (and says why) when the fake or
 * the kubernetes manager is not in the tree.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export interface KubeFixture {
  readonly kubeconfigPath: string
  /** A service-account token the fake API server authenticates, bound to Role `reader`. */
  readonly token: string
  /** TokenReviews and RoleBinding lists served so far (what a request could cost). */
  calls (): { readonly tokenReviews: number, readonly roleBindingLists: number }
  close (): Promise<void>
}

const ROOT = new URL('../../', import.meta.url)
const FAKE_API = new URL('test/helpers/fake-kube-api.ts', ROOT)
const MANAGER = new URL('src/managers/kubernetes/kubernetes-manager.ts', ROOT)

/** Why the scenario cannot run, or undefined when it can. */
export function kubernetesUnavailable (): string | undefined {
  const missing = [FAKE_API, MANAGER].filter((url) => !existsSync(fileURLToPath(url)))
  return missing.length === 0 ? undefined : `missing ${missing.map((url) => url.pathname.slice(ROOT.pathname.length)).join(', ')}`
}

export async function startKubeFixture (): Promise<KubeFixture> {
  const fake = await import(FAKE_API.href) as typeof import('../../test/helpers/fake-kube-api.ts')
  const api = await fake.startFakeKubeApi({ namespace: 'feast' })
  const token = fake.serviceAccountJwt('apps', 'bench-client', { exp: Math.floor(Date.now() / 1000) + 7200 })
  api.addToken(token, fake.serviceAccountIdentity('apps', 'bench-client'))
  api.putRoleBinding(fake.roleBinding('feast', 'bench-reader', 'reader', [{ kind: 'ServiceAccount', name: 'bench-client', namespace: 'apps' }]))
  return {
    kubeconfigPath: api.kubeconfigPath,
    token,
    calls: () => ({ tokenReviews: api.calls.tokenReviews, roleBindingLists: api.calls.roleBindingLists }),
    close: () => api.close()
  }
}
