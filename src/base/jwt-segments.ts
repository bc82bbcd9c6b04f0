/**
 * Reading a JWT's segments WITHOUT verifying anything: for routing (which verifier runs) and
 * scheduling (when to refresh a token we hold), and the shape every verifier checks first.
 * Nothing read here grants access by itself.
 */

const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]*$/

/**
 * Three unpadded base64url segments, as RFC 7515 compact serialization writes them.
 * jose's decoder (on Node 20) also takes padding and the standard alphabet, which makes
 * one signature spellable several ways; we accept only the canonical spelling.
 */
export function isCompactJws (token: string): boolean {
  return COMPACT_JWS.test(token)
}

/**
 * The JSON object one base64url segment encodes; undefined when it is not base64url JSON or
 * not an object (arrays and null included). With `refuseReplacement`, text holding U+FFFD
 * (bytes that were not UTF-8, which jose refuses) is undefined too.
 */
export function decodeJsonSegment (segment: string, refuseReplacement = false): Record<string, unknown> | undefined {
  const text = Buffer.from(segment, 'base64url').toString('utf8')
  if (refuseReplacement && text.includes('\uFFFD')) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined
}

/**
 * The JSON object in segment `index` (0: protected header, 1: payload) of a dot-separated
 * token, decoded with {@link decodeJsonSegment}; undefined when the segment is missing or empty.
 *
 * It does not check the number of segments: a caller that needs a compact JWS checks that
 * itself ({@link isCompactJws}), since an intra-token header is routed on the header alone.
 */
export function decodeSegment (token: string, index: number): Record<string, unknown> | undefined {
  const segment = segmentAt(token, index)
  if (segment === undefined || segment === '') return undefined
  return decodeJsonSegment(segment)
}

// Scans instead of split('.'): tokens arrive from anyone, and may be long.
function segmentAt (token: string, index: number): string | undefined {
  if (!Number.isInteger(index) || index < 0) return undefined
  let start = 0
  for (let i = 0; i < index; i++) {
    const dot = token.indexOf('.', start)
    if (dot === -1) return undefined
    start = dot + 1
  }
  const end = token.indexOf('.', start)
  return token.slice(start, end === -1 ? token.length : end)
}
