import type http from 'node:http'
import type https from 'node:https'
import { createFailureBackoff } from '../../base/failure-backoff.ts'
import { NotADiscoveryDocumentError, parseDiscoveryDocument, type DiscoveryDocument } from '../../base/http/discovery-document.ts'
import { httpGet, ProviderRequestError } from '../../base/http/http-get.ts'
import { urlForLog } from '../../base/observability/log-safe-url.ts'

/**
 * Fetches the discovery document once and keeps it for the life of the process.
 * Concurrent callers share one request; a failure is remembered for a short
 * back-off so that a down provider is not hit by every incoming request.
 */
export function createDiscovery (
  url: string,
  options: {
    agents: { http: http.Agent, https: https.Agent }
    timeoutMs: number
    failureBackoffMs: number
    /** Told the document's warning (see DiscoveryDocument.warning), once: the document is kept. */
    onWarning?: (warning: string) => void
  }
): { get: () => Promise<DiscoveryDocument & { readonly jwks_uri: string }>, loaded: () => boolean } {
  let document: (DiscoveryDocument & { readonly jwks_uri: string }) | undefined
  let pending: Promise<DiscoveryDocument & { readonly jwks_uri: string }> | undefined
  const backoff = createFailureBackoff(options.failureBackoffMs)

  const fetchOnce = async (): Promise<DiscoveryDocument & { readonly jwks_uri: string }> => {
    const response = await httpGet(url, { agents: options.agents, signal: AbortSignal.timeout(options.timeoutMs) })
    if (response.status !== 200) {
      const message = `discovery document ${urlForLog(url)} answered HTTP ${response.status}`
      // Below 500 nothing is published there (a wrong path, a redirect, a login wall); from 500 the provider is in trouble.
      throw response.status < 500 ? new NotADiscoveryDocumentError(message) : new ProviderRequestError(message)
    }
    const parsed = parseDiscoveryDocument(response.body, url, 'jwks_uri')
    if (parsed.warning !== undefined) options.onWarning?.(parsed.warning)
    return parsed
  }

  return {
    loaded: () => document !== undefined,
    get: async () => {
      if (document !== undefined) return document
      backoff.check()
      pending ??= fetchOnce().then(
        (result) => { document = result; backoff.succeeded(); return result },
        (error: Error) => { backoff.failed(error); throw error }
      ).finally(() => { pending = undefined })
      return await pending
    }
  }
}
