/** Finding a value nested in lists and maps, for checks that judge every value a body or file holds. */

export const NOT_FOUND = Symbol('not found')

/**
 * The first value nested in `value` (itself at depth 1, the items of a list or map at the next
 * depth) that `test` holds for, or NOT_FOUND; walked without recursion, and not below a value
 * `test` holds for, so a depth test bounds the walk.
 */
export function findNested (value: unknown, test: (inner: unknown, depth: number) => boolean): unknown {
  const pending: Array<{ value: unknown, depth: number }> = [{ value, depth: 1 }]
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (test(item.value, item.depth)) return item.value
    if (isContainer(item.value)) for (const inner of Object.values(item.value)) pending.push({ value: inner, depth: item.depth + 1 })
  }
  return NOT_FOUND
}

export function isContainer (value: unknown): value is object {
  return value !== null && typeof value === 'object'
}
