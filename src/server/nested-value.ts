/** Finding a value nested in lists and maps, for checks that judge every value a body or file holds. */

/** A value found within another, and where: `''` for the value itself, `[2].a` within it. */
export interface Found { readonly value: unknown, readonly path: string }

interface Pending { readonly value: unknown, readonly depth: number, readonly key?: string | number, readonly parent?: Pending }

/**
 * The first value nested in `value` (itself at depth 1, the items of a list or map at the next
 * depth), in the order written, that `test` holds for, or undefined; walked without recursion,
 * and not below a value `test` holds for, so a depth test bounds the walk. Only the value found
 * has its path written out.
 */
export function findNested (value: unknown, test: (inner: unknown, depth: number) => boolean): Found | undefined {
  const pending: Pending[] = [{ value, depth: 1 }]
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (test(item.value, item.depth)) return { value: item.value, path: pathOf(item) }
    if (!isContainer(item.value)) continue
    const isList = Array.isArray(item.value)
    const entries = Object.entries(item.value)
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, inner] = entries[i]!
      pending.push({ value: inner, depth: item.depth + 1, key: isList ? Number(key) : key, parent: item })
    }
  }
  return undefined
}

export function isContainer (value: unknown): value is object {
  return value !== null && typeof value === 'object'
}

function pathOf (item: Pending): string {
  let path = ''
  for (let at: Pending | undefined = item; at?.parent !== undefined; at = at.parent) {
    path = (typeof at.key === 'number' ? `[${at.key}]` : `.${String(at.key)}`) + path
  }
  return path
}
