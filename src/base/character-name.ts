/**
 * One character in words, for messages that must say which character is wrong without showing
 * the text around it (a token, or what may be one): `"-"` for visible ASCII, `a space`,
 * `a tab`, `a line break (U+000A)`, otherwise its code point (`U+00E9`), which no terminal acts on.
 */
export function characterName (code: number): string {
  const unicode = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
  if (code > 0x20 && code < 0x7f) return JSON.stringify(String.fromCharCode(code))
  if (code === 0x0a || code === 0x0d) return `a line break (${unicode})`
  if (code === 0x20) return 'a space'
  if (code === 0x09) return 'a tab'
  return unicode
}
