import { readFileSync } from 'node:fs'
import type { User } from '@kubernetes/client-node'
import { decodeSegment } from '../../base/jwt-segments.ts'
import type { ClusterConnection } from './cluster-connection.ts'

// `system:serviceaccount:<namespace>:<name>`, both DNS names: nothing else is ever worded from a token.
const SERVICE_ACCOUNT_SUBJECT = /^system:serviceaccount:([a-z0-9][a-z0-9.-]{0,252}):([a-z0-9][a-z0-9.-]{0,252})$/

/**
 * Who the API server sees making our calls, in words for a message: `the service account
 * feast/feast-server` in a pod (`the pod's service account` when its name cannot be read),
 * `the kubeconfig user alice (context dev)` with a kubeconfig. Names only, never a credential.
 */
export function describeCaller (connection: Pick<ClusterConnection, 'kubeConfig' | 'source'>): string {
  const { kubeConfig } = connection
  const user = kubeConfig.getCurrentUser()
  if (connection.source === 'in-cluster') {
    const account = serviceAccountOf(user)
    return account === undefined ? 'the pod\'s service account' : `the service account ${account}`
  }
  const context = kubeConfig.getCurrentContext()
  return user === null ? `the kubeconfig context ${context}, which names no user` : `the kubeconfig user ${user.name} (context ${context})`
}

/**
 * `<namespace>/<name>` of the service account whose token `user` presents: the `sub` claim of the
 * token, read without verification (it only words a message) from the file client-node's
 * in-cluster configuration names, or from the user itself when given in code.
 */
function serviceAccountOf (user: User | null): string | undefined {
  const tokenFile: unknown = (user?.authProvider as { config?: { tokenFile?: unknown } } | undefined)?.config?.tokenFile
  let token = user?.token
  if (typeof tokenFile === 'string') {
    try {
      token = readFileSync(tokenFile, 'utf8')
    } catch {
      return undefined
    }
  }
  const subject = token === undefined ? undefined : decodeSegment(token.trim(), 1)?.sub
  const match = typeof subject === 'string' ? SERVICE_ACCOUNT_SUBJECT.exec(subject) : null
  return match === null ? undefined : `${match[1]}/${match[2]}`
}
