/**
 * The characters a terminal acts on rather than shows, and the one way they are written out
 * instead (`\uXXXX`): for the CLI's output and for YAML it renders (src/cli/terminal-text.ts,
 * src/operator/yaml-text.ts), so both agree on what is unsafe.
 */

/** The invisible marks and overrides of bidirectional text. */
const BIDI_CONTROLS: ReadonlySet<number> = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069])
export const TAB = 0x09
export const LINE_FEED = 0x0a
/** U+2028 and U+2029: line breaks to some readers (libyaml, PyYAML, JavaScript before ES2019), not to others. */
export const LINE_SEPARATORS: ReadonlySet<number> = new Set([0x2028, 0x2029])

/** C0 controls but tab and line feed, DEL, C1 controls (8-bit CSI, OSC...) and bidi controls. */
export function isTerminalControl (code: number): boolean {
  if (code < 0x20) return code !== TAB && code !== LINE_FEED
  if (code >= 0x7f && code <= 0x9f) return true
  return BIDI_CONTROLS.has(code)
}

// Every character but printable ASCII: the candidates, judged one by one.
const NOT_PRINTABLE_ASCII = /[^ -~]/g

/** Whether `text` holds a character `unsafe` picks. */
export function holdsCharacter (text: string, unsafe: (code: number) => boolean): boolean {
  for (let i = 0; i < text.length; i++) if (unsafe(text.charCodeAt(i))) return true
  return false
}

/** `text` with every character `unsafe` picks written as `\uXXXX`. */
export function escapeCharacters (text: string, unsafe: (code: number) => boolean): string {
  return text.replace(NOT_PRINTABLE_ASCII, (char) => {
    const code = char.charCodeAt(0)
    return unsafe(code) ? `\\u${code.toString(16).padStart(4, '0')}` : char
  })
}
