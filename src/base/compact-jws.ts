const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]*$/

/**
 * Three unpadded base64url segments, as RFC 7515 compact serialization writes them.
 * jose's decoder (on Node 20) also takes padding and the standard alphabet, which makes
 * one signature spellable several ways; we accept only the canonical spelling.
 */
export function isCompactJws (token: string): boolean {
  return COMPACT_JWS.test(token)
}
