import type { AuthLogger } from '../../base/logging.ts'
import type { AuthManager } from '../types.ts'
import { offerReturnedRefusals, returnedRefusalsOf } from '../returned-refusals.ts'
import { createPrincipal, type Principal } from '../../base/principal.ts'
import { INTRA_ENV, readIntraSecret } from '../../config/intra-secret.ts'
import { INTRA_USERNAME, looksLikeIntraToken, verifyIntraToken } from '../../base/intra-token.ts'

/**
 * The identity servers of one deployment use to call each other. Permission checks
 * recognise it by `source === 'intra'` and let it through every check.
 */
export const INTRA_PRINCIPAL: Principal = createPrincipal({ username: INTRA_USERNAME, source: 'intra' })

/** True for the intra-server principal; the permission layer grants it everything. */
export function isIntraPrincipal (principal: Principal | null | undefined): boolean {
  return principal?.source === 'intra'
}

/**
 * Wraps a server's manager so that, when `INTRA_COMMUNICATION_BASE64` is set, a token
 * marked as intra (`typ: feast-intra+jwt`) is verified with the shared secret (HS256,
 * expiry) and yields {@link INTRA_PRINCIPAL}; any other token goes to `manager` as before.
 * A token marked intra that fails verification is a 401: it never falls through.
 *
 * Unset or empty variable → `manager` is returned unchanged. A set but unusable secret
 * (short, not base64, Feast's public chart default) throws a ConfigError: refuse to start.
 */
export function withIntraIdentity (manager: AuthManager, options: { logger: AuthLogger, env?: NodeJS.ProcessEnv | undefined }): AuthManager {
  if (manager.type === 'no_auth') return manager
  const secret = readIntraSecret(options.env ?? process.env)
  if (secret === undefined) return manager
  options.logger.info(`${INTRA_ENV} is set: signed intra-server tokens are accepted and pass every permission check`)
  const intra = async (token: string): Promise<Principal> => await verifyIntraToken(token, secret).then(() => INTRA_PRINCIPAL)
  const refusing = returnedRefusalsOf(manager)
  // Spread keeps whatever else the manager exposes (e.g. the OIDC key set for health details).
  const wrapped: AuthManager = {
    ...manager,
    authenticate (token: string): Principal | Promise<Principal> {
      return looksLikeIntraToken(token) ? intra(token) : manager.authenticate(token)
    }
  }
  return refusing === undefined ? wrapped : offerReturnedRefusals(wrapped, (token) => looksLikeIntraToken(token) ? intra(token) : refusing(token))
}
