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
  const roles: string[] = []
  if (clientId !== undefined) {
    const access = own(payload, 'resource_access')
    if (isRecord(access)) {
      const client = own(access, clientId)
      if (isRecord(client)) addStrings(roles, own(client, 'roles'))
    }
  }
  addStrings(roles, own(payload, 'roles'))
  const groups: string[] = []
  addStrings(groups, own(payload, 'groups'))
  return createPrincipal({ username, roles, groups, source: 'oidc' })
}

function readUsername (payload: Readonly<Record<string, unknown>>): string | undefined {
  for (const claim of USERNAME_CLAIMS) {
    const value = own(payload, claim)
    if (typeof value === 'string' && value !== '') return value
  }
  return undefined
}

// Claims are attacker-shaped JSON: never follow the prototype chain.
function own (record: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

// Appends the non-empty strings of `value` when it is a list; anything else adds nothing.
function addStrings (into: string[], value: unknown): void {
  if (!Array.isArray(value)) return
  for (const item of value as unknown[]) if (typeof item === 'string' && item !== '') into.push(item)
}
