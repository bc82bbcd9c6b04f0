/**
 * Why a YAML parser refused a text, in words that quote none of the text. Both parsers we meet,
 * `yaml` (our files) and `js-yaml` (inside client-node, for kubeconfigs), put the offending token in
 * some of their reasons: a tag (`!x`), an alias (`*x`), a directive (`%x`), a block scalar header
 * (`|x`, `>x`), an escape sequence, a stray scalar. An unquoted password or token that starts with
 * one of those characters is that token, so such a reason would print the secret. Those reasons
 * are replaced by our own words (with the fix: quote the value); the caller gives line and column.
 */

const QUOTE_IT = 'put the value in quotes if it is not meant as one'

/** Reasons that may quote the text, by their fixed beginning, and what is said instead. */
const QUOTING: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(Unresolved tag|Could not resolve tag|Not a valid tag|The .* tag has no suffix|Verbatim tags|unknown tag|undeclared tag handle|tag name|tag prefix|cannot resolve a node with|unacceptable node kind for|there is a previously declared suffix)/,
    `unknown or invalid tag (a value starting with ! is a tag: ${QUOTE_IT})`],
  [/^(Unresolved alias|unidentified alias)/, `unresolved alias (a value starting with * is an alias: ${QUOTE_IT})`],
  [/^Block scalar header includes extra characters/, `characters after a block scalar header (a value starting with | or > is a block scalar: ${QUOTE_IT})`],
  [/^(Unknown directive|unknown document directive)/, `unknown directive (a line starting with % is a directive: ${QUOTE_IT})`],
  [/^Unsupported YAML version/, 'unsupported YAML version in the %YAML directive'],
  [/^Invalid escape sequence/, 'invalid escape sequence in a double-quoted string (write \\\\ for a backslash, or use single quotes)']
]

/** The first line of a YAML parser's `message`, with anything it quotes of the text left out. */
export function yamlReason (message: string): string {
  const reason = message.split('\n')[0] ?? ''
  const replaced = QUOTING.find(([pattern]) => pattern.test(reason))
  if (replaced !== undefined) return replaced[1]
  // Anything else that quotes: `yaml` appends a stray token as `: "<token>"`, js-yaml a tag as `!<tag>`.
  return reason.replace(/: ".*$/, '').replace(/\s*!<.*>/, '').replace(/\s*".*"/, '')
}
