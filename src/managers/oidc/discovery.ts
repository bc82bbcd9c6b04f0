import type http from 'node:http'
import type https from 'node:https'
import { httpGet, ProviderRequestError } from '../../base/http/http-get.ts'

/** The part of the provider's discovery document the server needs. */
export interface DiscoveryDocument {
  readonly jwks_uri: string
  readonly issuer?: string
  readonly token_endpoint?: string
}

/**
 * Fetches the discovery document once and keeps it for the life of the process.
 * Concurrent callers share one request; a failure is remembered for a short
 * back-off so that a down provider is not hit by every incoming request.
 */
export function createDiscovery (
  url: string,
  options: { agents: { http: http.Agent, https: https.Agent }, timeoutMs: number, failureBackoffMs: number }
): { get: () => Promise<DiscoveryDocument>, loaded: () => boolean } {
  let document: DiscoveryDocument | undefined
  let pending: Promise<DiscoveryDocument> | undefined
  let lastFailure: { at: number, error: Error } | undefined

  const fetchOnce = async (): Promise<DiscoveryDocument> => {
    const response = await httpGet(url, { agents: options.agents, signal: AbortSignal.timeout(options.timeoutMs) })
    if (response.status !== 200) throw new ProviderRequestError(`discovery document ${url} answered HTTP ${response.status}`)
    let parsed: unknown
    try {
      parsed = JSON.parse(response.body.toString('utf8'))
    } catch {
      throw new ProviderRequestError(`discovery document ${url} is not JSON`)
    }
    return validate(parsed, url)
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

function validate (value: unknown, url: string): DiscoveryDocument {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProviderRequestError(`discovery document ${url} is not a JSON object`)
  }
  const doc = value as Record<string, unknown>
  const jwksUri = doc.jwks_uri
  if (typeof jwksUri !== 'string' || !isHttpUrl(jwksUri)) {
    throw new ProviderRequestError(`discovery document ${url} has no http(s) jwks_uri`)
  }
  return {
    jwks_uri: jwksUri,
    ...(typeof doc.issuer === 'string' ? { issuer: doc.issuer } : {}),
    ...(typeof doc.token_endpoint === 'string' ? { token_endpoint: doc.token_endpoint } : {})
  }
}

function isHttpUrl (value: string): boolean {
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}
