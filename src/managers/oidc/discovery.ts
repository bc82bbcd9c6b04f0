import type http from 'node:http'
import type https from 'node:https'
import { parseDiscoveryDocument, type DiscoveryDocument } from '../../base/http/discovery-document.ts'
import { httpGet, ProviderRequestError } from '../../base/http/http-get.ts'
import { urlForLog } from '../../base/observability/log-safe-url.ts'

/**
 * Fetches the discovery document once and keeps it for the life of the process.
 * Concurrent callers share one request; a failure is remembered for a short
 * back-off so that a down provider is not hit by every incoming request.
 */
export function createDiscovery (
  url: string,
  options: { agents: { http: http.Agent, https: https.Agent }, timeoutMs: number, failureBackoffMs: number }
): { get: () => Promise<DiscoveryDocument & { readonly jwks_uri: string }>, loaded: () => boolean } {
  let document: (DiscoveryDocument & { readonly jwks_uri: string }) | undefined
  let pending: Promise<DiscoveryDocument & { readonly jwks_uri: string }> | undefined
  let lastFailure: { at: number, error: Error } | undefined

  const fetchOnce = async (): Promise<DiscoveryDocument & { readonly jwks_uri: string }> => {
    const response = await httpGet(url, { agents: options.agents, signal: AbortSignal.timeout(options.timeoutMs) })
    if (response.status !== 200) throw new ProviderRequestError(`discovery document ${urlForLog(url)} answered HTTP ${response.status}`)
    return parseDiscoveryDocument(response.body, url, 'jwks_uri')
  }

  return {
    loaded: () => document !== undefined,
    get: async () => {
      if (document !== undefined) return document
      if (lastFailure !== undefined && Date.now() - lastFailure.at < options.failureBackoffMs) throw lastFailure.error
      pending ??= fetchOnce().then(
        (result) => { document = result; lastFailure = undefined; return result },
        (error: Error) => { lastFailure = { at: Date.now(), error }; throw error }
      ).finally(() => { pending = undefined })
      return await pending
    }
  }
}
