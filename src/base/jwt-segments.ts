/**
 * Reading a JWT's segments WITHOUT verifying anything: for routing (which verifier runs) and
 * scheduling (when to refresh a token we hold), and the shape every verifier checks first.
 * Nothing read here grants access by itself.
 */

const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]*$/
let lastCompact: string | undefined

/**
 * Three unpadded base64url segments, as RFC 7515 compact serialization writes them, each in
 * its one canonical spelling. jose's decoder (on Node 20) also takes padding, the standard
 * alphabet and set "unused" low bits in a segment's last character, which makes one token
 * spellable several ways (16 for an RS256 token): each spelling would be its own cache entry
 * and its own log fingerprint. We accept only the canonical spelling: the one a decode and
 * re-encode gives back.
 *
 * One regular expression and constant-time checks of the segment ends: this runs on every
 * token that is not already cached. The last token found canonical is remembered, because one
 * request asks twice (the bearer header check, then the verifier).
 */
export function isCompactJws (token: string): boolean {
  if (token === lastCompact) return true
  if (!COMPACT_JWS.test(token)) return false
  const first = token.indexOf('.')
  const second = token.indexOf('.', first + 1)
  const canonical = canonicalEnd(token, first, first) &&
    canonicalEnd(token, second, second - first - 1) &&
    canonicalEnd(token, token.length, token.length - second - 1)
  if (canonical) lastCompact = token
  return canonical
}

/**
 * Whether the base64url segment of `length` characters ending at `end` is canonical: a length
 * base64 can have, and a last character whose bits beyond the encoded bytes are zero (the
 * last of 2 characters carries 4 unused bits, the last of 3 carries 2).
 */
function canonicalEnd (token: string, end: number, length: number): boolean {
  const tail = length & 3
  if (tail === 0) return true
  if (tail === 1) return false
  return (sextet(token.charCodeAt(end - 1)) & (tail === 2 ? 0x0f : 0x03)) === 0
}

// The 6-bit value of a base64url character (the regex has already checked the alphabet).
function sextet (code: number): number {
  if (code >= 0x61) return code - 0x61 + 26 // a-z
  if (code >= 0x41) return code === 0x5f ? 63 : code - 0x41 // A-Z, _
  return code === 0x2d ? 62 : code - 0x30 + 52 // -, 0-9
}

/**
 * The JSON object one base64url segment encodes; undefined when it is not base64url JSON or
 * not an object (arrays and null included). With `refuseReplacement`, text holding U+FFFD
 * (bytes that were not UTF-8, which jose refuses) is undefined too.
 */
export function decodeJsonSegment (segment: string, refuseReplacement = false): Record<string, unknown> | undefined {
  return parseJsonObject(Buffer.from(segment, 'base64url').toString('utf8'), refuseReplacement)
}

/** The JSON object `text` holds, with the rules of {@link decodeJsonSegment}: undefined for anything else. */
export function parseJsonObject (text: string, refuseReplacement = false): Record<string, unknown> | undefined {
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
