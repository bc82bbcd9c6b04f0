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

/**
 * A configured location as it may be shown, when it may not be a valid URL at all (a value being
 * refused, a registry path): text that starts with a scheme (`https:`, `postgresql:`) loses the
 * userinfo (`user:pass@`), query and fragment {@link urlForLog} would drop; any other text (a
 * file path) is returned as it is. Works on the text, so an invalid URL loses them too.
 */
export function urlTextForLog (text: string): string {
  // Two letters at least: `C:` starts a Windows path, not a URL.
  if (!/^[a-z][a-z0-9+.-]+:/i.test(text)) return text
  // The last `@` before the path ends the userinfo, as URL parsers read it (slashes counted leniently, as they do).
  return text.replace(/[?#][^]*$/, '').replace(/^([a-z][a-z0-9+.-]*:[\\/]*)[^/]*@/i, '$1')
}

// Query parameters that carry credentials, by name (RFC 6750 `access_token`, OAuth `code`,
// `id_token`, `refresh_token`, `client_secret`, passwords, API keys, signed-URL signatures, ...).
const CREDENTIAL_NAME = /token|secret|passw|pwd|code|key|sig|auth|credential|session|assertion|jwt|ticket|cookie/i
// A JWS/JWT under any name: its header always starts with `{"` (base64url `eyJ`).
const JWT_VALUE = /^eyJ[\w%-]*\.[\w%-]+\./

/**
 * A request target (`/path?query`) as it may be logged: the path and the names of all query
 * parameters are kept (they are what one debugs with); the value of every parameter whose name
 * suggests a credential, and of any parameter holding a JWT, becomes `[redacted]`.
 */
export function requestUrlForLog (target: string): string {
  const start = target.indexOf('?')
  if (start < 0) return target
  const query = target.slice(start + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=')
    if (equals < 0) return JWT_VALUE.test(pair) ? '[redacted]' : pair
    const value = pair.slice(equals + 1)
    return CREDENTIAL_NAME.test(decoded(pair.slice(0, equals))) || JWT_VALUE.test(value) ? `${pair.slice(0, equals)}=[redacted]` : pair
  })
  return `${target.slice(0, start)}?${query.join('&')}`
}

/** `text` with every request target in it (`/path?query`) passed through {@link requestUrlForLog}. */
export function redactRequestUrlsIn (text: string): string {
  return text.includes('?') ? text.replace(/\/[^\s?]*\?\S*/g, requestUrlForLog) : text
}

/** A JWS/JWT anywhere in a text: a header starting `{"` (base64url `eyJ`), a payload and a signature. */
const JWT_ANYWHERE = /eyJ[\w-]*\.[\w-]+\.[\w-]*/g

/**
 * `text` with every JWT in it replaced by `[a JWT]`: for text another server wrote (the reason
 * an API server gives for a rejected token), which may quote a token it was handed.
 */
export function redactJwtsIn (text: string): string {
  return text.replace(JWT_ANYWHERE, '[a JWT]')
}

function decoded (name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '))
  } catch {
    return name
  }
}
