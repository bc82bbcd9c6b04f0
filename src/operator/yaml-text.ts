import { Document, visit } from 'yaml'
import { escapeCharacters, holdsCharacter, isTerminalControl, LINE_SEPARATORS } from '../base/control-characters.ts'

/**
 * Characters a YAML reader may not give back as they were written in a plain scalar: what a
 * terminal acts on (which the CLI writes as `\uXXXX`, so that a mark in a plain scalar would read
 * as six characters) and the line and paragraph separators (which libyaml, behind kubectl, and
 * PyYAML, behind Feast, read as line breaks).
 */
const needsEscape = (code: number): boolean => isTerminalControl(code) || LINE_SEPARATORS.has(code)

/**
 * `value` as YAML text in which every string holding such a character is double-quoted with the
 * character written as an escape: Feast, kubectl and this package's own reader then all read
 * the very string rendered, and the text holds nothing a terminal would act on. A rendered
 * Secret value may hold anything.
 */
export function yamlText (value: unknown): string {
  const document = new Document(value)
  visit(document, {
    Scalar (_key, node) {
      if (typeof node.value === 'string' && holdsCharacter(node.value, needsEscape)) node.type = 'QUOTE_DOUBLE'
    }
  })
  // Every such character now sits in a double-quoted scalar, where \uXXXX means the character itself.
  return escapeCharacters(document.toString(), needsEscape)
}
