/**
 * A JWS carries an ECDSA signature as r ‖ s, each of the curve's byte size (IEEE P1363); OpenSSL
 * verifies the DER form, SEQUENCE { INTEGER r, INTEGER s }. Node converts when `crypto.verify` is
 * given `{ key, dsaEncoding: 'ieee-p1363' }`, but from Node 24 any options object there costs
 * 10–25 µs more than the bare key object (measured on 28 Nov 2026: an RS256 check of 20 µs took
 * 30–35), which is more than the whole conversion. So the fast path converts itself and passes the
 * bare key, as Node's own conversion does: big-endian integers, leading zero bytes dropped, one
 * zero byte put back where the top bit is set (DER integers are signed).
 */

// r ‖ s of P-521, the largest curve JOSE names: 2 × 66 bytes, plus at most 9 bytes of DER framing.
const scratch = Buffer.alloc(2 * 66 + 9)

/**
 * The DER form of the P1363 signature `signature`, whose halves are `half` bytes each; `undefined`
 * when its length is not `2 * half` (Node throws "malformed signature" then, and the caller leaves
 * the verdict to jose). The result is a view of one shared buffer, valid until the next call.
 */
export function derSignature (signature: Uint8Array, half: number): Uint8Array | undefined {
  if (signature.length !== 2 * half || half > 66) return undefined
  const rStart = firstSignificant(signature, 0, half)
  const sStart = firstSignificant(signature, half, 2 * half)
  const rLength = half - rStart + (signature[rStart]! >= 0x80 ? 1 : 0)
  const sLength = 2 * half - sStart + (signature[sStart]! >= 0x80 ? 1 : 0)
  const content = 2 + rLength + 2 + sLength
  let at = 0
  scratch[at++] = 0x30
  // At most 2 × (2 + 67) = 138 bytes of content: one length byte, or 0x81 and one.
  if (content >= 0x80) scratch[at++] = 0x81
  scratch[at++] = content
  at = writeInteger(signature, rStart, half, rLength, at)
  at = writeInteger(signature, sStart, 2 * half, sLength, at)
  return scratch.subarray(0, at)
}

// The first byte of [from, to) that is not zero, keeping the last one (zero is one byte, 0x00).
function firstSignificant (bytes: Uint8Array, from: number, to: number): number {
  let index = from
  while (index < to - 1 && bytes[index] === 0) index++
  return index
}

function writeInteger (bytes: Uint8Array, from: number, to: number, length: number, at: number): number {
  scratch[at++] = 0x02
  scratch[at++] = length
  if (length > to - from) scratch[at++] = 0x00
  scratch.set(bytes.subarray(from, to), at)
  return at + (to - from)
}
