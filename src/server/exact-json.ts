/**
 * JSON text in which a BigInt is a JSON integer, written exactly: how the reference server answers
 * integers beyond ±(2^53 − 1) that a request wrote (exact-integers.ts), as Feast's server, which
 * holds them as Python ints, answers them. `JSON.stringify` refuses a BigInt (or, where a program
 * gave BigInt a `toJSON`, writes what that returns, usually a string); Node 20 has no
 * `JSON.rawJSON` to emit one. Everything else is written exactly as `JSON.stringify` writes it.
 */

/** An array or object being written, and how far. */
interface Open {
  readonly container: object
  /** An object's keys; undefined for an array. */
  readonly keys: readonly string[] | undefined
  next: number
  /** Whether a member has been written yet (an object skips members whose value JSON has no text for). */
  wrote: boolean
}

/**
 * How deep a container may be and still be handed to `JSON.stringify` whole. An answer holds its
 * values four levels down (answer, results, a result, its values): a BigInt there costs a failed
 * try at each level above it, each cheaper than walking, and no more tries below.
 */
const NATIVE_DEPTH = 4

/**
 * `value` as JSON text, as `JSON.stringify(value)` writes it, except that a BigInt is written as
 * the integer it is. Walks without recursion; a cycle is a TypeError, as in `JSON.stringify`.
 * `value` itself must have a JSON text (not undefined, a function or a symbol).
 */
export function exactJson (value: unknown): string {
  // Walking is about ten times slower than `JSON.stringify`, which writes every value without a
  // BigInt (the common answer) byte for byte as the walk does; it throws on a BigInt, and then
  // the walk takes over. Not when a program gave BigInt a `toJSON`: that would write a string.
  return writeJson(value, typeof (BigInt.prototype as { toJSON?: unknown }).toJSON !== 'function')
}

/** exactJson without `JSON.stringify`'s help: the writer the fast path must agree with, byte for byte. */
export function exactJsonByWalking (value: unknown): string {
  return writeJson(value, false)
}

function writeJson (value: unknown, native: boolean): string {
  const open: Open[] = []
  let out = ''
  // Writes a scalar or opens a container; false when JSON has no text for the value (it is left out).
  const begin = (raw: unknown, key: string): boolean => {
    const hasToJson = typeof raw === 'object' && raw !== null && typeof (raw as { toJSON?: unknown }).toJSON === 'function'
    const resolved = hasToJson ? (raw as { toJSON: (key: string) => unknown }).toJSON(key) : raw
    if (typeof resolved === 'bigint') {
      out += resolved.toString()
      return true
    }
    // Scalars, boxed ones too, as JSON.stringify writes them.
    if (typeof resolved !== 'object' || resolved === null || resolved instanceof Number || resolved instanceof String || resolved instanceof Boolean) {
      const text = JSON.stringify(resolved) as string | undefined
      if (text === undefined) return false
      out += text
      return true
    }
    // Not for what a toJSON returned: JSON.stringify would call that value's own toJSON, which JSON's rules leave uncalled.
    if (native && !hasToJson && open.length <= NATIVE_DEPTH) {
      const text = nativeJson(resolved)
      if (text !== undefined) { out += text; return true }
    }
    if (open.some((each) => each.container === resolved)) throw new TypeError('exactJson: the value holds a cycle')
    const keys = Array.isArray(resolved) ? undefined : Object.keys(resolved)
    open.push({ container: resolved, keys, next: 0, wrote: false })
    out += keys === undefined ? '[' : '{'
    return true
  }
  if (!begin(value, '')) throw new TypeError('exactJson: the value has no JSON text')
  for (let top = open.at(-1); top !== undefined; top = open.at(-1)) {
    const { container, keys } = top
    if (keys === undefined) {
      const items = container as readonly unknown[]
      if (top.next === items.length) { out += ']'; open.pop(); continue }
      const index = top.next++
      if (index > 0) out += ','
      // As in JSON.stringify, an item without a JSON text is written null.
      if (!begin(items[index], String(index))) out += 'null'
      continue
    }
    if (top.next === keys.length) { out += '}'; open.pop(); continue }
    const key = keys[top.next++] as string
    const before = out
    out += `${top.wrote ? ',' : ''}${JSON.stringify(key)}:`
    if (begin((container as Record<string, unknown>)[key], key)) top.wrote = true
    else out = before
  }
  return out
}

/**
 * `JSON.stringify(container)`, or undefined where the walk must write it: a BigInt in it (a
 * TypeError), a cycle (the walk names it) or nesting too deep for its recursion (a RangeError).
 * A `toJSON` inside may then be called twice; stored values have none but a Date's, which is pure.
 */
function nativeJson (container: object): string | undefined {
  try {
    return JSON.stringify(container)
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError) return undefined
    throw error
  }
}
