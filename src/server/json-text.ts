/**
 * A flat reader of a JSON text, for what `JSON.parse` loses: the order of an object's
 * integer-like keys (json-key-order.ts) and integers beyond ±(2^53 − 1) (exact-integers.ts). It
 * walks the text in one pass, without recursion however deep it nests, and never fails: on a text
 * that is not JSON it ends early, and what its callers answer is to be checked against the parsed
 * object.
 */

/**
 * Where the value the root object of `text` holds under `member` starts. A repeated `member` is
 * read from its last occurrence, the value `JSON.parse` keeps. Undefined when the root is not an
 * object or has no `member`.
 */
export function memberValue (text: string, member: string): number | undefined {
  // JSON body parsers skip a byte order mark.
  const start = skipSpace(text, text.charCodeAt(0) === 0xFEFF ? 1 : 0)
  let found: number | undefined
  for (const { key, value } of members(text, start)) if (key === member) found = value
  return found
}

/** The members of the object starting at `start`: each key, decoded, and where its value starts. */
export function * members (text: string, start: number): Generator<{ key: string, value: number }> {
  if (text[start] !== '{') return
  let at = skipSpace(text, start + 1)
  for (let member = memberAt(text, at); member !== undefined; member = memberAt(text, at)) {
    yield member
    at = skipSpace(text, valueEnd(text, member.value))
    if (text[at] !== ',') return
    at = skipSpace(text, at + 1)
  }
}

/** The member whose key starts at `at`: its key, decoded, and where its value starts; undefined when none does. */
export function memberAt (text: string, at: number): { key: string, value: number } | undefined {
  if (text[at] !== '"') return undefined
  const keyEnd = stringEnd(text, at)
  const key = decodeKey(text.slice(at, keyEnd))
  const colon = skipSpace(text, keyEnd)
  if (key === undefined || text[colon] !== ':') return undefined
  return { key, value: skipSpace(text, colon + 1) }
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

export function skipSpace (text: string, at: number): number {
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

/** Just past the value starting at `at`: a string, an object or array (counted, not recursed into), or a literal (a number, true, false, null). */
export function valueEnd (text: string, at: number): number {
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
