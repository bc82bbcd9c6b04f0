/**
 * Reading a JWT's segments WITHOUT verifying anything: for routing (which verifier runs) and
 * scheduling (when to refresh a token we hold) only. Nothing read here may grant access.
 */

/**
 * The JSON object in segment `index` (0: protected header, 1: payload) of a dot-separated
 * token, decoded from base64url; undefined when the segment is missing, is not base64url
 * JSON, or is not an object (arrays and null included).
 *
 * It does not check the number of segments: a caller that needs a compact JWS checks that
 * itself (e.g. `isCompactJws`), since an intra-token header is routed on the header alone.
 */
export function decodeSegment (token: string, index: number): Record<string, unknown> | undefined {
  const segment = segmentAt(token, index)
  if (segment === undefined || segment === '') return undefined
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined
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
