/**
 * Origin and path of `url`: how every URL we were configured with or handed by a provider
 * (discovery, key set, token endpoint, API server) appears in log lines and error messages.
 * Userinfo (`https://user:pass@...`), query and fragment may carry credentials and never appear.
 */
export function urlForLog (url: string | URL): string {
  let parsed: URL
  try {
    parsed = typeof url === 'string' ? new URL(url) : url
  } catch {
    return '(not a valid URL)'
  }
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
}
