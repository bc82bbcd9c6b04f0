/**
 * Integers beyond ±(2^53 − 1) in a request body, read exactly. `JSON.parse` (every JSON body
 * parser on Node) reads each number as a double, which holds integers exactly up to 2^53 only:
 * `1234567890123456789` and `1234567890123456788` both read as 1234567890123456768. Python's `json`
 * reads integers exactly, so Feast keys, stores and answers a 64-bit id (a snowflake id) as sent;
 * read as a double, two entities would share one row, and a read could answer another entity's
 * features. Such an integer is read back from the body's text, as a BigInt, and only when the
 * parsed body holds a number that may have been rounded; what the text says is trusted only where
 * it matches what `JSON.parse` made of it.
 */
import { unprocessable } from './http-error.ts'
import { memberAt, memberValue, skipSpace, valueEnd } from './json-text.ts'

/** Where a value is within another: the keys and indexes leading to it. */
type JsonPath = ReadonlyArray<string | number>

/** The range of Feast's int64 values (and of its int64 entity keys), for messages. */
export const INT64_RANGE = '-9223372036854775808 to 9223372036854775807'

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** Whether `value` fits Feast's int64 (Python's protobuf refuses anything else: `ValueError`, a 500 from Feast's server). */
export function isInt64 (value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX
}

/** Whether `value` is a number a double may hold only approximately: an integer beyond ±(2^53 − 1). */
export function isUnsafeInteger (value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)
}

/**
 * `value`, what `JSON.parse` made of the root object's `member` in `text`, with each integer
 * beyond ±(2^53 − 1) as the BigInt the text writes: copied where it changes, the same object when
 * nothing does. A number written with a fraction or an exponent (`1e18`) stays the double it is,
 * as Python's `json` reads it as a float. Refuses (422, naming the place as `member.column[row]`)
 * a number that may have been rounded and cannot be read exactly: without `text`, or where `text`
 * does not show it (a text other than the one parsed).
 */
export function readExactly<T> (value: T, text: string | undefined, member: string): T {
  const unsafe = unsafeIntegersIn(value)
  if (unsafe.length === 0) return value
  const written = text === undefined ? undefined : integersAsWritten(text, member)
  const exact: Array<{ readonly path: JsonPath, readonly value: bigint }> = []
  for (const { path, value: read } of unsafe) {
    const literal = written?.get(pathKey(path))
    if (literal === undefined || Number(literal) !== read) {
      throw unprocessable(`${member}${pathText(path)} is a number beyond ±(2^53 − 1), which JSON.parse may have rounded (it read ${String(read)}), ` +
        `and the body's JSON text ${text === undefined ? 'was not given' : 'does not show it there'} to read it exactly`)
    }
    if (INTEGER.test(literal)) exact.push({ path, value: BigInt(literal) })
  }
  return replaced(value, exact)
}

/** A path as the server's messages write a place: `.column[row]`. */
function pathText (path: JsonPath): string {
  return path.map(step).join('')
}

function step (key: string | number): string {
  return typeof key === 'number' ? `[${key}]` : `.${key}`
}

/** A path as a map key: a key and an index of the same spelling differ (`"0"` is not `0`). */
function pathKey (path: JsonPath): string {
  return JSON.stringify(path)
}

/** A place in a value being walked: the key it is under, in the place of its container. */
interface Place { readonly container: Place | undefined, readonly key: string | number }

function pathOf (place: Place | undefined): JsonPath {
  const path: Array<string | number> = []
  for (let at = place; at !== undefined; at = at.container) path.unshift(at.key)
  return path
}

/** The numbers of `value` that {@link isUnsafeInteger}, with their paths, in the order JSON writes them. Walks without recursion. */
function unsafeIntegersIn (value: unknown): Array<{ readonly path: JsonPath, readonly value: number }> {
  const found: Array<{ path: JsonPath, value: number }> = []
  const pending: Array<{ readonly value: unknown, readonly place: Place | undefined }> = [{ value, place: undefined }]
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { value: each, place } = item
    if (isUnsafeInteger(each)) found.push({ path: pathOf(place), value: each })
    if (each === null || typeof each !== 'object') continue
    const keys: Array<string | number> = Array.isArray(each) ? each.map((_, i) => i) : Object.keys(each)
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string | number
      const inner = (each as Record<string | number, unknown>)[key]
      // Only what may hold such a number is walked: most values are scalars that cannot.
      if (isUnsafeInteger(inner) || (typeof inner === 'object' && inner !== null)) pending.push({ value: inner, place: { container: place, key } })
    }
  }
  return found
}

/** JSON's number grammar, and its integers (no fraction, no exponent). */
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/
const INTEGER = /^-?(?:0|[1-9]\d*)$/

/**
 * The numbers written within the value the root object of `text` holds under `member` (its last
 * occurrence, as JSON.parse keeps) that `JSON.parse` reads as an integer beyond ±(2^53 − 1),
 * each as written, by its path's {@link pathKey}. A place written more than once (a repeated key)
 * keeps the number written last, the one JSON.parse keeps when the last value there is a number;
 * where it is not, the parsed value is no such number and the entry is never asked for. Walks
 * the text in one flat pass; on a text that is not JSON it ends early.
 */
export function integersAsWritten (text: string, member: string): Map<string, string> {
  const found = new Map<string, string>()
  let at = memberValue(text, member)
  if (at === undefined) return found
  const path: Array<string | number> = []
  // For each array or object the walk is in: whether it is an array.
  const arrays: boolean[] = []
  for (;;) {
    // `at` is where a value starts.
    const first = text[at]
    if (first === '{' || first === '[') {
      const array = first === '['
      at = skipSpace(text, at + 1)
      if (text[at] === (array ? ']' : '}')) at++
      else {
        arrays.push(array)
        if (array) { path.push(0); continue }
        const member = memberAt(text, at)
        if (member === undefined) return found
        path.push(member.key)
        at = member.value
        continue
      }
    } else {
      const end = valueEnd(text, at)
      const literal = text.slice(at, end)
      if (NUMBER.test(literal) && isUnsafeInteger(Number(literal))) found.set(pathKey(path), literal)
      at = end
    }
    // After a value: the next one in the same container, or the container's end.
    for (;;) {
      const array = arrays.at(-1)
      if (array === undefined) return found
      at = skipSpace(text, at)
      if (text[at] === (array ? ']' : '}')) { at++; arrays.pop(); path.pop(); continue }
      if (text[at] !== ',') return found
      at = skipSpace(text, at + 1)
      if (array) { path[path.length - 1] = (path.at(-1) as number) + 1; break }
      const member = memberAt(text, at)
      if (member === undefined) return found
      path[path.length - 1] = member.key
      at = member.value
      break
    }
  }
}

/** `value` with each path given holding its new value, copying each array and object on the way (never writing into `value`). */
function replaced<T> (value: T, changes: ReadonlyArray<{ readonly path: JsonPath, readonly value: unknown }>): T {
  if (changes.length === 0) return value
  const whole = changes.find((change) => change.path.length === 0)
  if (whole !== undefined) return whole.value as T
  const copies = new Map<object, Record<string | number, unknown>>()
  const copyOf = (original: object): Record<string | number, unknown> => {
    let copy = copies.get(original)
    if (copy === undefined) {
      // Spread defines each key as the copy's own, __proto__ too (some body parsers keep one), so
      // assigning to a key below writes that key, never the copy's prototype.
      copy = (Array.isArray(original) ? [...original] : { ...original }) as Record<string | number, unknown>
      copies.set(original, copy)
    }
    return copy
  }
  const root = copyOf(value as object)
  for (const change of changes) {
    let original = value as Record<string | number, unknown>
    let copy = root
    change.path.forEach((key, i) => {
      if (i === change.path.length - 1) { copy[key] = change.value; return }
      const inner = original[key] as Record<string | number, unknown>
      const innerCopy = copyOf(inner)
      copy[key] = innerCopy
      original = inner
      copy = innerCopy
    })
  }
  return root as T
}
