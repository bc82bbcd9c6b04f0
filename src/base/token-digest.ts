import { hash } from 'node:crypto'

/**
 * The cache key of a bearer token: the one-shot SHA-256 of the whole token (never a prefix or
 * a decoded field, so two tokens share a key only by colliding SHA-256; raw tokens are never
 * map keys, nor in heap dumps of the map).
 *
 * The digest function remembers the last token it hashed: the adapters look a token up, then
 * authenticate it, in one tick, and a repeated token arrives as an equal string, so the steady
 * state of one caller costs a string comparison instead of a hash.
 */
export function createTokenDigest (): (token: string) => string {
  let lastToken: string | undefined
  let lastKey = ''
  return (token) => {
    if (token !== lastToken) {
      lastKey = hash('sha256', token, 'base64url')
      lastToken = token
    }
    return lastKey
  }
}
