import { AuthError, isSharedRefusal } from '../base/errors.ts'

/** What the framework adapters send when authentication fails: status, headers and a JSON body. */
export interface Rejection {
  readonly status: 401 | 403 | 500 | 503
  readonly headers: Readonly<Record<string, string>>
  readonly body: { readonly statusCode: number, readonly code: string, readonly error: string, readonly message: string }
}

const REASON: Readonly<Record<number, string>> = { 401: 'Unauthorized', 403: 'Forbidden', 500: 'Internal Server Error', 503: 'Service Unavailable' }

/**
 * RFC 6750 section 3: a 401 always carries a `Bearer` challenge; it names
 * `error="invalid_token"` only when a token was actually sent. A 503 carries
 * `Retry-After` and no challenge, since the credential was never judged.
 */
export function rejectionFor (error: unknown, realm: string): Rejection {
  if (!(error instanceof AuthError)) {
    return { status: 500, headers: {}, body: { statusCode: 500, code: 'internal_error', error: REASON[500]!, message: 'authentication failed unexpectedly' } }
  }
  // A flood of bad tokens is refused with a handful of distinct answers: each is built (and its
  // challenge quoted, four regular-expression passes) once, then shared. The answers are frozen.
  // Shared refusals (base/errors.ts) are found by identity; the rest by their text.
  const shared = isSharedRefusal(error)
  const known = shared ? byError.get(error) : undefined
  if (known !== undefined && known.realm === realm) return known.rejection
  const key = `${error.status} ${error.code} ${error.retryAfterSeconds ?? ''} ${realm} ${error.message}`
  let rejection = answers.get(key)
  if (rejection === undefined) {
    rejection = deepFreeze(buildRejection(error, realm))
    if (answers.size >= ANSWERS_KEPT) answers.clear()
    answers.set(key, rejection)
  }
  if (shared) byError.set(error, { realm, rejection })
  return rejection
}

/** Distinct refusal answers kept; messages are ours, but some carry a value (a claim name, a limit). */
const ANSWERS_KEPT = 256
const answers = new Map<string, Rejection>()
const byError = new WeakMap<AuthError, { readonly realm: string, readonly rejection: Rejection }>()

function buildRejection (error: AuthError, realm: string): Rejection {
  const body = { statusCode: error.status, code: error.code, error: REASON[error.status]!, message: error.message }
  if (error.status === 503) return { status: 503, headers: { 'retry-after': String(error.retryAfterSeconds ?? 5) }, body }
  const challenge = error.code === 'missing_token'
    ? `Bearer realm="${quote(realm)}"`
    : `Bearer realm="${quote(realm)}", error="invalid_token", error_description="${quote(error.message)}"`
  return { status: 401, headers: { 'www-authenticate': challenge }, body }
}

function deepFreeze (rejection: Rejection): Rejection {
  Object.freeze(rejection.headers)
  Object.freeze(rejection.body)
  return Object.freeze(rejection)
}

/**
 * A 403 for a denied permission: the short message only; the explanation goes to the log.
 * RFC 6750 3.1: the token was good but does not grant enough, `error="insufficient_scope"`.
 */
export function forbidden (message: string, realm: string): Rejection {
  const challenge = `Bearer realm="${quote(realm)}", error="insufficient_scope"`
  return { status: 403, headers: { 'www-authenticate': challenge }, body: { statusCode: 403, code: 'permission_denied', error: REASON[403]!, message } }
}

// RFC 6750 error_description: %x20-21 / %x23-5B / %x5D-7E, i.e. printable ASCII without `"` and `\`.
function quote (text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?')
}
