/**
 * The order in which a JSON text writes an object's keys. `JSON.parse` (and so every JSON body
 * parser on Node) builds objects whose integer-like keys (`"7"`, `"42"`) come first, in ascending
 * order, whatever order the text gave them in; Python's `json` keeps the text's order, and Feast
 * answers with it. Where that order matters, it is read back from the text itself.
 */

/** Whether JavaScript orders `key` as an integer index (a canonical integer below 2^32 - 1). */
export function isIntegerLikeKey (key: string): boolean {
  if (key.length === 0 || key.length > 10) return false
  if (key !== '0' && !/^[1-9]\d*$/.test(key)) return false
  return Number(key) < 2 ** 32 - 1
}

/**
 * The keys of the object that the root object of `text` holds under `member`, in the order the
 * text first writes each (a repeated key keeps its first place, as both `JSON.parse` and a Python
 * dict keep it). A repeated `member` is read from its last occurrence, the value `JSON.parse`
 * keeps. Undefined when the root is not an object or `member` is not an object in it. `text` is
 * expected to be valid JSON (one that `JSON.parse` has read); on any other text this ends without
 * failing, and what it answers is to be checked against the parsed object. Walks the text in
 * one flat pass, without recursion, however deep it nests.
 */
export function keysAsWritten (text: string, member: string): string[] | undefined {
  // JSON body parsers skip a byte order mark.
  const start = skipSpace(text, text.charCodeAt(0) === 0xFEFF ? 1 : 0)
  let found: number | undefined
  for (const { key, value } of members(text, start)) if (key === member) found = value
  if (found === undefined || text[found] !== '{') return undefined
  const keys = new Set<string>()
  for (const { key } of members(text, found)) keys.add(key)
  return [...keys]
}

/** The members of the object starting at `start`: each key, decoded, and where its value starts. */
function * members (text: string, start: number): Generator<{ key: string, value: number }> {
  if (text[start] !== '{') return
  let at = skipSpace(text, start + 1)
  while (text[at] === '"') {
    const keyEnd = stringEnd(text, at)
    const key = decodeKey(text.slice(at, keyEnd))
    at = skipSpace(text, keyEnd)
    if (key === undefined || text[at] !== ':') return
    const value = skipSpace(text, at + 1)
    yield { key, value }
    at = skipSpace(text, valueEnd(text, value))
    if (text[at] !== ',') return
    at = skipSpace(text, at + 1)
  }
}

function decodeKey (quoted: string): string | undefined {
  try {
    const key: unknown = JSON.parse(quoted)
    return typeof key === 'string' ? key : undefined
  } catch {
    return undefined
  }
}

const SPACE = new Set([' ', '\t', '\n', '\r'])

function skipSpace (text: string, at: number): number {
  while (at < text.length && SPACE.has(text[at] as string)) at++
  return at
}

/** Just past the string starting at `at` (its opening quote). */
function stringEnd (text: string, at: number): number {
  let i = at + 1
  while (i < text.length) {
    const char = text[i]
    if (char === '\\') i += 2
    else if (char === '"') return i + 1
    else i++
  }
  return text.length
}

/** Just past the value starting at `at`: a string, an object or array (counted, not recursed into), or a literal. */
function valueEnd (text: string, at: number): number {
  const first = text[at]
  if (first === '"') return stringEnd(text, at)
  if (first === '{' || first === '[') {
    let depth = 0
    let i = at
    while (i < text.length) {
      const char = text[i]
      if (char === '"') { i = stringEnd(text, i); continue }
      if (char === '{' || char === '[') depth++
      else if (char === '}' || char === ']') depth--
      i++
      if (depth === 0) return i
    }
    return text.length
  }
  let i = at
  while (i < text.length && !SPACE.has(text[i] as string) && text[i] !== ',' && text[i] !== '}' && text[i] !== ']') i++
  return i
}
