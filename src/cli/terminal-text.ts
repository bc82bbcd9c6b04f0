/**
 * Text from tokens, registries and configuration files reaches the operator's terminal: a claim,
 * a project or a permission name holding `ESC ]` or `ESC [` sequences could retitle the window,
 * clear the screen, move the cursor over earlier lines or, in some terminals, write to the
 * clipboard; a carriage return or a right-to-left override could make a line read otherwise.
 * Such characters are shown as `\uXXXX` instead: what the command writes still says exactly what
 * it means (and stays valid JSON, where `\uXXXX` is the same character), but is inert.
 */

// The invisible marks and overrides of bidirectional text.
const BIDI_CONTROLS: ReadonlySet<number> = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069])
const TAB = 0x09
const LINE_FEED = 0x0a
const LINE_SEPARATORS: ReadonlySet<number> = new Set([0x2028, 0x2029])
// Every character but printable ASCII: the candidates, judged one by one below.
const NOT_PRINTABLE_ASCII = /[^ -~]/g

/** C0 controls (but tab and line feed unless `inLine`), DEL, C1 controls (8-bit CSI, OSC...), bidi controls. */
function unsafe (code: number, inLine: boolean): boolean {
  if (code < 0x20) return inLine || (code !== TAB && code !== LINE_FEED)
  if (code >= 0x7f && code <= 0x9f) return true
  return BIDI_CONTROLS.has(code) || (inLine && LINE_SEPARATORS.has(code))
}

function escaped (text: string, inLine: boolean): string {
  return text.replace(NOT_PRINTABLE_ASCII, (char) => {
    const code = char.charCodeAt(0)
    return unsafe(code, inLine) ? `\\u${code.toString(16).padStart(4, '0')}` : char
  })
}

/** Everything a command writes to stdout or stderr: control characters escaped, line breaks kept. */
export function terminalSafe (text: string): string {
  return escaped(text, false)
}

/** One value on one line (a table cell, a name in a heading): line breaks and tabs escaped too. */
export function oneLine (text: string): string {
  return escaped(text, true)
}
