/** What a terminal would act on in a command's output, for tests that check nothing reaches it raw. */

const BIDI_CONTROLS = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069])

/**
 * The characters in `text` that a terminal acts on, as `U+XXXX`: C0 controls but tab and line
 * feed, DEL, C1 controls and bidirectional controls. Empty when the text is safe to print.
 */
export function terminalControls (text: string): string[] {
  const found: string[] = []
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0
    const control = code < 0x20 ? code !== 0x09 && code !== 0x0a : (code >= 0x7f && code <= 0x9f) || BIDI_CONTROLS.has(code)
    if (control) found.push(`U+${code.toString(16).toUpperCase().padStart(4, '0')}`)
  }
  return found
}
