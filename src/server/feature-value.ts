/**
 * Whether a feature value can be stored and answered as Feast stores and answers it. One rule
 * for the rows written through the routes and the sample rows of a registry YAML, worded by each
 * (a 422 naming the body's place, a ConfigError naming the file's).
 */
import { isInt64 } from './exact-integers.ts'

/** Where a fault is within the value: `''` for the value itself, `[2].a` within it. */
export type ValuePath = string

export type FeatureValueFault =
  /** A number that is not finite (`1e400` in JSON, `.inf`/`.nan` in YAML): no JSON answer can carry it. */
  | { readonly kind: 'not-finite', readonly value: number, readonly path: ValuePath }
  /** An integer beyond int64 (read exactly, a BigInt): Feast cannot store it. */
  | { readonly kind: 'beyond-int64', readonly path: ValuePath }

/** The first fault of a feature's value, alone or within a list or map (in the order written), or undefined. */
export function featureValueFault (value: unknown): FeatureValueFault | undefined {
  return firstFault(value, true)
}

/**
 * The first integer beyond int64 in `value`, or undefined: what a column the view does not store
 * is still judged by, since Feast's write refuses the whole frame.
 */
export function beyondInt64Fault (value: unknown): FeatureValueFault | undefined {
  return firstFault(value, false)
}

/** Walks without recursion (a body's depth is bounded elsewhere, a file's is not), in document order. */
function firstFault (value: unknown, judgeFinite: boolean): FeatureValueFault | undefined {
  const pending: Array<{ readonly value: unknown, readonly path: ValuePath }> = [{ value, path: '' }]
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { value: each, path } = item
    if (typeof each === 'bigint' && !isInt64(each)) return { kind: 'beyond-int64', path }
    if (judgeFinite && typeof each === 'number' && !Number.isFinite(each)) return { kind: 'not-finite', value: each, path }
    if (each === null || typeof each !== 'object') continue
    const isList = Array.isArray(each)
    for (const [key, inner] of Object.entries(each).reverse()) pending.push({ value: inner, path: path + (isList ? `[${key}]` : `.${key}`) })
  }
  return undefined
}
