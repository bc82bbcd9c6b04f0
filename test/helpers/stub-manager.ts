/**
 * An AuthManager that knows a fixed set of tokens, for adapter tests that are about what
 * happens after authentication (permission checks), not about token validation.
 */
import { AuthError } from '../../src/base/errors.ts'
import type { AuthManager } from '../../src/managers/types.ts'
import type { Principal } from '../../src/base/principal.ts'

/** `tokens` maps a bearer token to its principal; `'outage'` makes authentication fail with 503. */
export function stubManager (tokens: ReadonlyMap<string, Principal> | Record<string, Principal>): AuthManager {
  const lookup = tokens instanceof Map ? tokens : new Map(Object.entries(tokens))
  return {
    type: 'oidc',
    authenticate: async (token) => {
      if (token === 'outage') throw new AuthError('provider_unavailable', 'the identity provider could not be reached')
      const principal = lookup.get(token)
      if (principal === undefined) throw new AuthError('invalid_signature', 'token signature is invalid')
      return principal
    },
    warmUp: async () => {},
    health: () => ({ ready: true, detail: {} }),
    close: async () => {}
  }
}
