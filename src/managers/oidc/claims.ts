import { AuthError } from '../../base/errors.ts'
import { createPrincipal, type Principal } from '../../base/principal.ts'

/** Claims tried for the username, in Feast's order: user tokens first, then app-only tokens. */
export const USERNAME_CLAIMS = ['preferred_username', 'upn', 'azp', 'appid', 'sub'] as const

/**
 * Builds the principal from a *verified* payload. Values of the wrong type are
 * ignored rather than trusted or fatal: a null `preferred_username` does not hide `sub`.
 */
export function principalFromClaims (payload: Readonly<Record<string, unknown>>, clientId: string | undefined): Principal {
  const username = readUsername(payload)
  if (username === undefined) {
    throw new AuthError('missing_username', `the token has no username claim: expected one of ${USERNAME_CLAIMS.join(', ')}`)
  }
  return createPrincipal({
    username,
    roles: [...clientRoles(payload, clientId), ...strings(own(payload, 'roles'))],
    groups: strings(own(payload, 'groups')),
    source: 'oidc'
  })
}

function readUsername (payload: Readonly<Record<string, unknown>>): string | undefined {
  for (const claim of USERNAME_CLAIMS) {
    const value = own(payload, claim)
    if (typeof value === 'string' && value !== '') return value
  }
  return undefined
}

function clientRoles (payload: Readonly<Record<string, unknown>>, clientId: string | undefined): string[] {
  if (clientId === undefined) return []
  const access = own(payload, 'resource_access')
  if (!isRecord(access)) return []
  const client = own(access, clientId)
  return isRecord(client) ? strings(own(client, 'roles')) : []
}

// Claims are attacker-shaped JSON: never follow the prototype chain.
function own (record: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function strings (value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item !== '') : []
}
