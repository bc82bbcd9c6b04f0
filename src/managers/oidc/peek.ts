import { decodeJsonSegment } from '../../base/jwt-segments.ts'

/**
 * The base64url of `kubernetes.io` at each of the three byte alignments it can have in a
 * payload, keeping only the characters that do not depend on the neighbouring bytes.
 * A payload without one of them cannot carry the claim under that name. (A claim name
 * written with JSON escapes slips past; such a token then takes the JWKS path, where an
 * actual service-account token fails: routing can only make it stricter.)
 */
const CLAIM_MARKERS: readonly string[] = [0, 1, 2].map((offset) => {
  const bytes = Buffer.concat([Buffer.alloc(offset), Buffer.from('kubernetes.io')])
  const firstGroup = Math.ceil(offset / 3)
  const lastGroup = Math.floor(bytes.length / 3)
  return bytes.toString('base64url').slice(firstGroup * 4, lastGroup * 4)
})

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
  // Most tokens are provider tokens: skip the decode and parse unless the encoded payload can hold the claim.
  if (!CLAIM_MARKERS.some((marker) => segment.includes(marker))) return false
  const payload = decodeJsonSegment(segment)
  return payload !== undefined && carriesServiceAccountClaim(payload)
}

/** Whether a decoded payload carries a `kubernetes.io` object (the same rule, on claims already parsed). */
export function carriesServiceAccountClaim (payload: Readonly<Record<string, unknown>>): boolean {
  const claim = Object.hasOwn(payload, 'kubernetes.io') ? payload['kubernetes.io'] : undefined
  return typeof claim === 'object' && claim !== null && !Array.isArray(claim)
}
