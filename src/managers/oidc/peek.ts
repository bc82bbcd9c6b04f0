/**
 * Routing only: does the (unverified) payload carry a `kubernetes.io` object, as
 * cluster service-account tokens do? Nothing else is read from the unverified
 * payload, and the answer only chooses which verifier runs.
 */
export function looksLikeServiceAccountToken (token: string): boolean {
  const first = token.indexOf('.')
  const second = first === -1 ? -1 : token.indexOf('.', first + 1)
  if (second === -1 || token.indexOf('.', second + 1) !== -1) return false
  const segment = token.slice(first + 1, second)
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
  } catch {
    return false
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return false
  const claim = Object.hasOwn(payload, 'kubernetes.io') ? (payload as Record<string, unknown>)['kubernetes.io'] : undefined
  return typeof claim === 'object' && claim !== null && !Array.isArray(claim)
}
