import type { AuthConfig } from '../config/auth-config.ts'
import { decodeSegment } from '../base/jwt-segments.ts'
import { urlForLog } from '../base/observability/log-safe-url.ts'
import { USERNAME_CLAIMS } from '../managers/oidc/claims.ts'
import { oneLine } from './terminal-text.ts'

/**
 * What `feast-authz inspect --explain` prints: the token's header and the claims that decide
 * authentication and roles, read WITHOUT verification, next to what the configuration expects,
 * with hints for the usual mistakes. For a person at a terminal: nothing here grants anything.
 */
export function explainToken (token: string, config: AuthConfig, now = Date.now()): string {
  const header = decodeSegment(token, 0)
  const payload = decodeSegment(token, 1)
  const lines = ['Token (decoded WITHOUT verification, to compare with the configuration):']
  if (header === undefined || payload === undefined) {
    lines.push('  not a JWT: expected three base64url segments, the first two JSON objects (header.payload.signature)')
    const hint = notJwtHint(token)
    if (hint !== undefined) lines.push('', 'Hints:', `  - ${hint}`)
    return `${lines.join('\n')}\n`
  }
  const clientId = config.type === 'oidc' ? config.client_id : undefined
  const row = (name: string, value: string): void => { lines.push(`  ${name.padEnd(32)} ${value}`) }
  row('header.alg', show(header.alg))
  row('header.kid', show(header.kid))
  row('iss', show(payload.iss))
  row('aud', show(payload.aud))
  row('exp', expiry(payload.exp, now))
  const username = USERNAME_CLAIMS.find((claim) => typeof payload[claim] === 'string' && payload[claim] !== '')
  row('username', username === undefined ? `none of ${USERNAME_CLAIMS.join(', ')}` : `${show(payload[username])} (from ${username})`)
  const roleClaims = rolesByClaim(payload)
  for (const [claim, roles] of roleClaims) row(claim, show(roles))
  if (roleClaims.length === 0) row('roles', 'no roles claim (resource_access.<client_id>.roles, roles)')
  row('groups', show(payload.groups))

  lines.push('', 'Configuration expects:')
  lines.push(`  auth.type                        ${config.type}`)
  if (config.type === 'oidc') {
    lines.push(`  auth.client_id                   ${show(clientId)} (roles are read from resource_access.${clientId ?? '<client_id>'}.roles and roles)`)
    lines.push(`  auth.audience                    ${config.audience === undefined ? 'not set: any aud is accepted' : show(config.audience)}`)
    lines.push(`  auth.issuer                      ${config.issuer === undefined ? 'not set: any iss is accepted' : show(config.issuer)}`)
    // Origin and path only: userinfo and query may carry credentials, and this text is for pasting into bug reports.
    lines.push(`  auth.auth_discovery_url          ${show(config.auth_discovery_url === undefined ? undefined : urlForLog(config.auth_discovery_url))}`)
  }
  const hints = [notJwtHint(token), ...oidcHints(header, payload, config, roleClaims, now)].filter((hint) => hint !== undefined)
  if (hints.length > 0) lines.push('', 'Hints:', ...hints.map((hint) => `  - ${hint}`))
  // Claim names and values are the token's, whoever made it: one line each, and no control characters.
  return `${lines.map(oneLine).join('\n')}\n`
}

/** The usual ways a pasted token is not the token itself (the decoding above tolerates some of them; the server does not). */
function notJwtHint (token: string): string | undefined {
  if (/^bearer\s/i.test(token)) return 'give the token alone: drop the "Bearer " in front of it (that belongs to the Authorization header)'
  if (/^authorization:/i.test(token)) return 'give the token alone, not the whole Authorization header'
  if (/\s/.test(token.trim())) return 'the token has spaces or line breaks inside it: it was probably wrapped when copied; give it on one line'
  return undefined
}

/** Every claim that carries roles in the shapes providers use, read by feast-authz or not. */
function rolesByClaim (payload: Record<string, unknown>): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = []
  const access = payload.resource_access
  if (isRecord(access)) {
    for (const [client, entry] of Object.entries(access)) {
      if (isRecord(entry) && entry.roles !== undefined) found.push([`resource_access.${client}.roles`, entry.roles])
    }
  }
  if (payload.roles !== undefined) found.push(['roles', payload.roles])
  const realm = payload.realm_access
  if (isRecord(realm) && realm.roles !== undefined) found.push(['realm_access.roles', realm.roles])
  return found
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function oidcHints (
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  config: AuthConfig,
  roleClaims: Array<[string, unknown]>,
  now: number
): string[] {
  const hints: string[] = []
  if (typeof header.alg === 'string' && (header.alg === 'none' || header.alg.startsWith('HS'))) {
    hints.push(`alg ${header.alg} is refused: only asymmetric algorithms (RS*, PS*, ES*, EdDSA) are verified against the provider's keys`)
  }
  if (typeof payload.exp === 'number' && payload.exp * 1000 <= now) hints.push('the token has expired: get a fresh one (feast-authz token, or your provider\'s login)')
  if (config.type !== 'oidc') return hints
  const audiences = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud.filter((aud): aud is string => typeof aud === 'string') : []
  if (config.audience !== undefined && !audiences.includes(config.audience)) {
    hints.push(`aud mismatch: the token is for ${show(payload.aud)} but auth.audience is ${show(config.audience)}: request the token for that audience, or set auth.audience to what the provider issues`)
  }
  if (typeof payload.iss === 'string') {
    if (config.issuer !== undefined && payload.iss !== config.issuer) {
      hints.push(`iss mismatch: the token's issuer is ${show(payload.iss)} but auth.issuer is ${show(config.issuer)} (compared exactly, trailing slash included)`)
    }
    const v1 = payload.iss.startsWith('https://sts.windows.net/')
    const v2Discovery = /login\.microsoftonline\.com\/.+\/v2\.0\//.test(config.auth_discovery_url ?? '')
    if (v1 && (v2Discovery || (config.issuer ?? '').includes('/v2.0'))) {
      hints.push('Entra ID: this is a v1 token (iss https://sts.windows.net/...) but the configuration is for v2.0: set "requestedAccessTokenVersion": 2 in the app registration\'s manifest, or use the v1 issuer')
    } else if (payload.iss.includes('login.microsoftonline.com') && payload.iss.endsWith('/v2.0') && (config.issuer ?? '').startsWith('https://sts.windows.net/')) {
      hints.push('Entra ID: this is a v2.0 token but auth.issuer is the v1 issuer (https://sts.windows.net/...): use https://login.microsoftonline.com/<tenant>/v2.0')
    }
  }
  const read = new Set([`resource_access.${config.client_id ?? ''}.roles`, 'roles'])
  const readRoles = roleClaims.filter(([claim]) => read.has(claim)).flatMap(([, roles]) => Array.isArray(roles) ? roles : [])
  for (const [claim, roles] of roleClaims) {
    if (read.has(claim) || !Array.isArray(roles) || roles.length === 0) continue
    hints.push(claim === 'realm_access.roles'
      ? `roles in realm_access.roles (Keycloak realm roles) are not read: give the users client roles of client ${show(config.client_id)}, or add a mapper that puts them in a top-level "roles" claim`
      : `roles in ${claim} are not read: auth.client_id is ${show(config.client_id)}; set client_id to the client that carries the roles`)
  }
  if (readRoles.some((role) => typeof role === 'string' && role !== role.toLowerCase())) {
    hints.push('roles are compared exactly, case included: a permission asking for "reader" does not match "Reader"')
  }
  const groups = Array.isArray(payload.groups) ? payload.groups : []
  if (groups.some((group) => typeof group === 'string' && GUID.test(group))) {
    hints.push('the groups are object IDs (GUIDs), as Entra ID sends them: write those IDs in group policies, or configure the provider to send group names')
  }
  return hints
}

function expiry (exp: unknown, now: number): string {
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return exp === undefined ? 'none (the token never expires: refused)' : `${show(exp)} (not a number)`
  const seconds = Math.round(exp - now / 1000)
  const date = new Date(exp * 1000)
  const when = Number.isNaN(date.getTime()) ? String(exp) : date.toISOString()
  return `${when} (${seconds <= 0 ? `expired ${duration(-seconds)} ago` : `expires in ${duration(seconds)}`})`
}

function duration (seconds: number): string {
  if (seconds < 120) return `${seconds} s`
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`
  if (seconds < 172800) return `${Math.round(seconds / 3600)} h`
  return `${Math.round(seconds / 86400)} days`
}

function show (value: unknown): string {
  if (value === undefined) return '(absent)'
  const text = JSON.stringify(value)
  return text.length > 200 ? `${text.slice(0, 197)}...` : text
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
