import { AuthError } from '../../base/errors.ts'
import { createPrincipal, type Principal } from '../../base/principal.ts'

/** Claims tried for the username, in Feast's order: user tokens first, then app-only tokens. */
export const USERNAME_CLAIMS = ['preferred_username', 'upn', 'azp', 'appid', 'sub'] as const

/**
 * Builds the principal from a *verified* payload. Values of the wrong type are
 * ignored rather than trusted or fatal: a null `preferred_username` does not hide `sub`.
 * The payload must have been parsed for this principal alone: its lists may become the
 * principal's, frozen.
 */
export function principalFromClaims (payload: Readonly<Record<string, unknown>>, clientId: string | undefined): Principal {
  const username = readUsername(payload)
  if (username === undefined) {
    throw new AuthError('missing_username', `the token has no username claim: expected one of ${USERNAME_CLAIMS.join(', ')}`)
  }
  let clientRoles: unknown
  if (clientId !== undefined) {
    const access = own(payload, 'resource_access')
    if (isRecord(access)) {
      const client = own(access, clientId)
      if (isRecord(client)) clientRoles = own(client, 'roles')
    }
  }
  const roles = strings(clientRoles, own(payload, 'roles'))
  return createPrincipal({ username, roles, groups: strings(own(payload, 'groups'), undefined), source: 'oidc' }, true)
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

// The non-empty strings of the lists among `first` and `second`, in order; anything else adds
// nothing. A claim's own list is taken as it is when it is the only one and holds nothing else:
// the payload was parsed for this principal alone, which owns its lists (createPrincipal).
function strings (first: unknown, second: unknown): readonly string[] {
  const one = onlyStrings(first)
  const two = onlyStrings(second)
  if (one === true && two === undefined) return first as string[]
  if (two === true && one === undefined) return second as string[]
  const into: string[] = []
  addStrings(into, first)
  addStrings(into, second)
  return into
}

// undefined: no list, or an empty one; true: a list of non-empty strings only; false: a list with anything else.
function onlyStrings (value: unknown): boolean | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined
  for (const item of value as unknown[]) if (typeof item !== 'string' || item === '') return false
  return true
}

function addStrings (into: string[], value: unknown): void {
  if (!Array.isArray(value)) return
  for (const item of value as unknown[]) if (typeof item === 'string' && item !== '') into.push(item)
}
