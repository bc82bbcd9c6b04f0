import { RE2JS, RE2JSException } from 're2js'
import { PermissionError } from './errors.ts'

/**
 * Longest resource name (in UTF-16 code units) a name pattern is matched against. A longer name
 * matches no pattern, so a permission with `name_patterns` never applies to it (permissions only
 * grant: the request is refused unless a permission without patterns grants it). Feast names are
 * identifiers far shorter than this; the bound keeps the cost of one match fixed.
 */
export const MAX_MATCHED_NAME_LENGTH = 256

/**
 * Largest compiled pattern (RE2 program instructions) accepted. With names capped at
 * {@link MAX_MATCHED_NAME_LENGTH}, a match visits each (instruction, position) pair at most once:
 * at most 256 × 257 steps, well under a millisecond. Real patterns compile to a few dozen.
 */
export const MAX_PATTERN_PROGRAM_SIZE = 256

/** A compiled name pattern: Python's `re.fullmatch`, in time linear in the name. */
export interface NamePattern {
  readonly source: string
  /** Whether the whole of `name` matches; always false for names over {@link MAX_MATCHED_NAME_LENGTH}. */
  matches (name: string): boolean
}

// Python features RE2 cannot run in linear time, with what to write instead.
const NEEDS_BACKTRACKING: ReadonlyArray<readonly [RegExp, string]> = [
  [/\\[1-9]|\(\?P=/, 'backreferences (\\1, (?P=name))'],
  [/\(\?<?[=!]/, 'lookahead and lookbehind assertions ((?=, (?!, (?<=, (?<!)'],
  [/\(\?>|[*+?}][+]/, 'atomic groups and possessive quantifiers'],
  [/\(\?[a-zA-Z]*x/, 'verbose mode (?x)']
]

/**
 * `source` rewritten where RE2 would read Python's syntax otherwise: Python's `\Z` is RE2's `\z`;
 * `\uXXXX` and `\UXXXXXXXX` are `\x{...}` and a comment `(?#...)` is dropped (RE2 refuses both); a
 * repetition without a lower bound, `{,n}` or `{,}`, which RE2 reads as literal text (so a Feast
 * permission would silently apply to no name), is `{0,n}` or `{0,}`; and a `[` inside a class is
 * escaped, which RE2 would read as the start of a POSIX class. Escapes and classes are copied
 * otherwise, so an escaped brace or a brace inside `[...]` stays literal, as in Python.
 */
function inRe2Syntax (source: string): string {
  let out = ''
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!
    if (char === '\\') {
      const next = source[i + 1] ?? ''
      const hex = next === 'u' ? 4 : next === 'U' ? 8 : 0
      const digits = source.slice(i + 2, i + 2 + hex)
      if (hex > 0 && digits.length === hex && /^[0-9a-fA-F]+$/.test(digits)) {
        out += `\\x{${digits}}`
        i += 1 + hex
      } else {
        out += next === 'Z' ? '\\z' : char + next
        i++
      }
    } else if (inClass) {
      // Python reads a `[` in a class as itself; RE2 would start a POSIX class (`[:alpha:]`) there.
      out += char === '[' ? '\\[' : char
      if (char === ']') inClass = false
    } else if (char === '(' && source.startsWith('(?#', i) && source.indexOf(')', i) > 0) {
      // A Python comment, which ends at the first `)`; RE2 has none.
      i = source.indexOf(')', i)
    } else if (char === '[') {
      // A `]` first in the class (after an optional `^`) is a literal, not its end.
      const first = source[i + 1] === '^' ? i + 2 : i + 1
      const literalEnd = source[first] === ']' ? 1 : 0
      out += source.slice(i, first + literalEnd)
      i = first + literalEnd - 1
      inClass = true
    } else {
      const unbounded = char === '{' ? /^\{,(\d*)\}/.exec(source.slice(i)) : null
      if (unbounded === null) {
        out += char
      } else {
        out += `{0,${unbounded[1] ?? ''}}`
        i += unbounded[0].length - 1
      }
    }
  }
  return out
}

/**
 * Compiles a Feast name pattern. Every pattern (YAML files, code, the Feast registry) goes
 * through here. Matching uses RE2 (the `re2js` package): no pattern can make a match backtrack,
 * so a permission file cannot stall the server. RE2's syntax is Python's for what name patterns
 * use (classes, `\d`, alternation, `(?P<name>...)`, `(?i)`, `\A`); where the two differ (`\Z`,
 * `\uXXXX`, `(?#...)`, `{,n}`, a `[` in a class) the pattern is rewritten first. What only a backtracking engine can run is
 * refused here, naming the construct.
 */
export function compileNamePattern (source: string, permission?: string, index?: number): NamePattern {
  const fail = (reason: string, cause?: unknown): never => {
    throw new PermissionError(`${JSON.stringify(source)} ${reason}`, {
      permission,
      field: index === undefined ? 'name_patterns' : `name_patterns[${index}]`
    }, cause)
  }
  let compiled: RE2JS
  try {
    compiled = RE2JS.compile(inRe2Syntax(source))
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error
    const construct = NEEDS_BACKTRACKING.find(([pattern]) => pattern.test(source))?.[1]
    // RE2 refuses counted repetitions whose nesting multiplies past 1000 (`((a){0,40}){0,40}`).
    if (/invalid repeat count/.test(error.message)) return fail('is too large: its nested counted repetitions expand past 1000 copies; simplify it', error)
    if (construct !== undefined) return fail(`uses ${construct}, which need a backtracking matcher: name patterns are matched in linear time (RE2 syntax), so a pattern cannot stall the server; rewrite it without them`, error)
    return fail(`is not a valid regular expression (${error.message.replace(/^error parsing regexp: /, '')})`, error)
  }
  if (compiled.programSize() > MAX_PATTERN_PROGRAM_SIZE) {
    fail(`is too large: it compiles to ${compiled.programSize()} instructions, more than ${MAX_PATTERN_PROGRAM_SIZE} (large counted repetitions such as {200} expand); simplify it`)
  }
  return Object.freeze({
    source,
    // `matcher().matches()` runs RE2's bounded backtracker (each instruction/position pair once),
    // whose cost is fixed by the two caps; RE2JS's DFA path can rebuild states on every character.
    matches: (name: string) => name.length <= MAX_MATCHED_NAME_LENGTH && compiled.matcher(name).matches()
  })
}
