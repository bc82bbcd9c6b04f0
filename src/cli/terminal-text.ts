/**
 * Text from tokens, registries and configuration files reaches the operator's terminal: a claim,
 * a project or a permission name holding `ESC ]` or `ESC [` sequences could retitle the window,
 * clear the screen, move the cursor over earlier lines or, in some terminals, write to the
 * clipboard; a carriage return or a right-to-left override could make a line read otherwise.
 * Such characters are shown as `\uXXXX` instead: what the command writes still says exactly what
 * it means (and stays valid JSON, where `\uXXXX` is the same character), but is inert.
 */
import { escapeCharacters, isTerminalControl, LINE_FEED, LINE_SEPARATORS, TAB } from '../base/control-characters.ts'

/** Everything a command writes to stdout or stderr: control characters escaped, line breaks kept. */
export function terminalSafe (text: string): string {
  return escapeCharacters(text, isTerminalControl)
}

// In one cell or heading, line breaks and tabs would move what follows: escaped too.
const breaksALine = (code: number): boolean => isTerminalControl(code) || code === TAB || code === LINE_FEED || LINE_SEPARATORS.has(code)

/** One value on one line (a table cell, a name in a heading): line breaks and tabs escaped too. */
export function oneLine (text: string): string {
  return escapeCharacters(text, breaksALine)
}
