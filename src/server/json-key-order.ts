/**
 * The order in which a JSON text writes an object's keys. `JSON.parse` (and so every JSON body
 * parser on Node) builds objects whose integer-like keys (`"7"`, `"42"`) come first, in ascending
 * order, whatever order the text gave them in; Python's `json` keeps the text's order, and Feast
 * answers with it. Where that order matters, it is read back from the text itself.
 */
import { memberValue, members } from './json-text.ts'

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
 * failing, and what it answers is to be checked against the parsed object.
 */
export function keysAsWritten (text: string, member: string): string[] | undefined {
  const found = memberValue(text, member)
  if (found === undefined || text[found] !== '{') return undefined
  const keys = new Set<string>()
  for (const { key } of members(text, found)) keys.add(key)
  return [...keys]
}
