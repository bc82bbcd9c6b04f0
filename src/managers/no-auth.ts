import type { AuthLogger } from '../base/logging.ts'
import { ANONYMOUS, type Principal } from '../base/principal.ts'
import type { AuthManager } from './types.ts'

/** `no_auth`: every request is the anonymous principal and every route is open. */
export function createNoAuthManager (logger: AuthLogger): AuthManager {
  logger.warn('auth.type is no_auth: the server is UNAUTHENTICATED and every endpoint is open (development only)')
  return {
    type: 'no_auth',
    authenticate: async (): Promise<Principal> => ANONYMOUS,
    warmUp: async () => {},
    health: () => ({ ready: true, detail: {} }),
    close: async () => {}
  }
}
