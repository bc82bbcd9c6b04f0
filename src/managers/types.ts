import type { AuthType } from '../config/auth-config.ts'
import type { Principal } from '../base/principal.ts'

/** Readiness of a manager's dependencies, for health endpoints. */
export interface ManagerHealth {
  readonly ready: boolean
  readonly detail: Readonly<Record<string, unknown>>
}

/**
 * Turns a bearer token into a {@link Principal}. One instance per server, built at startup.
 * `authenticate` rejects with an `AuthError`: 401 for a bad credential, 503 when the
 * identity source could not be reached or would not answer (it refused our own credentials).
 */
export interface AuthManager {
  readonly type: AuthType
  /**
   * The principal of `token`: directly when no I/O was needed (a cached or locally verifiable
   * token), else a promise. Failures throw (or reject with) an AuthError.
   */
  authenticate (token: string): Principal | Promise<Principal>
  /**
   * The principal of a token this manager verified before and still vouches for, found
   * without I/O; `undefined` means "call authenticate". Lets adapters skip a promise on
   * the hot path of a repeated token.
   */
  authenticateCached? (token: string): Principal | undefined
  /** Fetches what the first request would need (keys, caches). Never rejects. */
  warmUp (): Promise<void>
  health (): ManagerHealth
  close (): Promise<void>
}
