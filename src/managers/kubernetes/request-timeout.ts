import type { ConfigurationOptions, ObservableMiddleware } from '@kubernetes/client-node'
import { kubernetesClient } from './client-library.ts'

/**
 * Per-call options that abort a client-node request after `timeoutMs`. The generated
 * clients have no timeout of their own, and an API server that accepts the connection but
 * never answers must not hold a request (or `close()`) forever.
 */
export function withTimeout (timeoutMs: number): ConfigurationOptions {
  const { Observable } = kubernetesClient()
  const middleware: ObservableMiddleware = {
    pre: (context) => {
      context.setSignal(AbortSignal.timeout(timeoutMs))
      return new Observable(Promise.resolve(context))
    },
    post: (response) => new Observable(Promise.resolve(response))
  }
  return { middleware: [middleware], middlewareMergeStrategy: 'append' }
}
