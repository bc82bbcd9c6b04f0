import type { AuthError } from '../base/errors.ts'
import type { Principal } from '../base/principal.ts'
import type { AuthManager } from './types.ts'

/**
 * A manager's `authenticate` that returns, instead of throwing, the refusals it decides without
 * I/O (a bad signature, an unknown key, a malformed token).
 */
export type RefusingAuthenticate = (token: string) => Principal | AuthError | Promise<Principal>

/**
 * Why this exists: a `throw` costs V8 a message object located at the thrower's source
 * position (about 10,000 instructions per refused request in `npm run bench:instructions`,
 * several times the rest of the refusal), and a flood of bad tokens pays it on every request.
 * The adapters take this path when a manager offers it; `AuthManager.authenticate` keeps its
 * public contract (it throws). A WeakMap rather than a property, so that a wrapper spreading
 * a manager (`withIntraIdentity`) never inherits a path that bypasses its own checks.
 */
const offered = new WeakMap<AuthManager, RefusingAuthenticate>()

/** Registers `refusing` as `manager`'s returning variant of `authenticate` (same verdicts). */
export function offerReturnedRefusals<M extends AuthManager> (manager: M, refusing: RefusingAuthenticate): M {
  offered.set(manager, refusing)
  return manager
}

/** `manager`'s returning variant of `authenticate`, when it offers one. */
export function returnedRefusalsOf (manager: AuthManager): RefusingAuthenticate | undefined {
  return offered.get(manager)
}
