import { Document, visit } from 'yaml'

/**
 * Characters a YAML reader may not give back as they were written in a plain scalar: controls
 * (C0 but tab and line feed, DEL, C1), line and paragraph separators (which libyaml, behind kubectl, and
 * PyYAML, behind Feast, read as line breaks) and bidirectional controls (which the CLI writes as
 * `\uXXXX` so that they cannot reorder the operator's terminal).
 */
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

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
      if (typeof node.value === 'string' && NEEDS_ESCAPE.test(node.value)) node.type = 'QUOTE_DOUBLE'
      NEEDS_ESCAPE.lastIndex = 0
    }
  })
  // Every such character now sits in a double-quoted scalar, where \uXXXX means the character itself.
  return document.toString().replace(NEEDS_ESCAPE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
