import { urlForLog } from '../observability/log-safe-url.ts'
import { ProviderRequestError } from './provider-response.ts'

/** The parts of a provider's discovery document the server (`jwks_uri`) and the client (`token_endpoint`) use. */
export interface DiscoveryDocument {
  readonly jwks_uri?: string
  readonly issuer?: string
  readonly token_endpoint?: string
  /**
   * Why the URL the caller needs is unsafe though allowed, for a warning: a discovery document on
   * this machine (which the startup warning leaves alone) naming a plain-http URL on another host.
   */
  readonly warning?: string
}

/** A discovery document that cannot be used: not a JSON object, a needed URL missing, or a scheme downgrade. */
export class DiscoveryDocumentError extends ProviderRequestError {
  override readonly name: string = 'DiscoveryDocumentError'
}

/**
 * Something answered at the discovery URL, but no discovery document: an HTTP status below 500,
 * a body that is not a JSON object, or no URL the caller needs. The provider's host was reached,
 * so the URL itself is the usual suspect (the issuer's URL without
 * `/.well-known/openid-configuration`, another realm's path, a login page in front of it), not the
 * network: the command line's hint says so.
 */
export class NotADiscoveryDocumentError extends DiscoveryDocumentError {
  override readonly name: string = 'NotADiscoveryDocumentError'
}

type DiscoveredUrlField = 'jwks_uri' | 'token_endpoint'

// What travels over each URL: the consequence of reaching it in clear text.
const AT_STAKE: Record<DiscoveredUrlField, string> = {
  jwks_uri: 'the signing keys would be fetched in clear text, so anyone on the network path could substitute keys and sign any identity',
  token_endpoint: 'the client secret (and password) would be sent in clear text'
}

/**
 * Parses the discovery document fetched from `url` and checks the URLs it hands us: `needs`
 * must be an http(s) URL, and once discovery itself is `https`, every URL it names
 * (`jwks_uri`, `token_endpoint`) must be `https` too: a provider behind a TLS-terminating
 * proxy that publishes `http:` URLs would otherwise downgrade us to clear text. Used by the
 * server (key set) and the client (token endpoint) alike. Throws {@link DiscoveryDocumentError}.
 */
export function parseDiscoveryDocument<K extends DiscoveredUrlField> (body: Buffer, url: string, needs: K): DiscoveryDocument & { readonly [P in K]: string } {
  const where = `discovery document ${urlForLog(url)}`
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch {
    throw new NotADiscoveryDocumentError(`${where} is not JSON`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new NotADiscoveryDocumentError(`${where} is not a JSON object`)
  const doc = value as Record<string, unknown>
  const discovery = new URL(url)
  const secure = discovery.protocol === 'https:'
  const urls: Partial<Record<DiscoveredUrlField, string>> = {}
  let warning: string | undefined
  for (const field of ['jwks_uri', 'token_endpoint'] as const) {
    const named = doc[field]
    const parsed = typeof named === 'string' ? httpUrl(named) : undefined
    if (parsed === undefined) {
      if (field === needs) throw new NotADiscoveryDocumentError(`${where} has no http(s) ${field}`)
      continue
    }
    if (secure && parsed.protocol !== 'https:') {
      throw new DiscoveryDocumentError(`${where} is https but names the plain-http ${field} ${urlForLog(parsed)}: ${AT_STAKE[field]}. Make the provider publish https URLs (behind a TLS-terminating proxy: set its external https URL or trust X-Forwarded-Proto); refused until then`)
    }
    // Loopback discovery (a port-forward, a local proxy) goes without a warning, but what this URL carries crosses the network.
    if (field === needs && !secure && parsed.protocol === 'http:' && isLoopbackHost(discovery.hostname) && !isLoopbackHost(parsed.hostname)) {
      warning = `${where} is on this machine but names the plain-http ${field} ${urlForLog(parsed)} on another host: ${AT_STAKE[field]} ` +
        '(acceptable only inside a trusted network; use https otherwise)'
    }
    urls[field] = named as string
  }
  return {
    ...urls,
    ...(warning === undefined ? {} : { warning }),
    ...(typeof doc.issuer === 'string' ? { issuer: doc.issuer } : {})
  } as DiscoveryDocument & { readonly [P in K]: string }
}

/**
 * The startup warning for a plain-http discovery URL (allowed: in-cluster providers), or
 * undefined for https and for loopback hosts.
 */
export function unencryptedDiscoveryWarning (url: string): string | undefined {
  const parsed = httpUrl(url)
  // Loopback traffic never crosses a network (a provider on the developer's machine, a local
  // port-forward): warning about it on every local run would teach people to ignore the warning.
  if (parsed?.protocol !== 'http:' || isLoopbackHost(parsed.hostname)) return undefined
  return `auth_discovery_url ${urlForLog(url)} is plain http: discovery, signing keys and tokens travel unencrypted, so anyone on the network path can read or replace them (acceptable only inside a trusted network, e.g. an in-cluster provider; use https otherwise)`
}

function httpUrl (value: string): URL | undefined {
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url : undefined
  } catch {
    return undefined
  }
}

function isLoopbackHost (hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}
