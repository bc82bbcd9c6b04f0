/**
 * Whether a feature value can be stored and answered as Feast stores and answers it. One rule
 * for the rows written through the routes and the sample rows of a registry YAML, worded by each
 * (a 422 naming the body's place, a ConfigError naming the file's).
 */
import { isInt64 } from './exact-integers.ts'
import { findNested } from './nested-value.ts'

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

function firstFault (value: unknown, judgeFinite: boolean): FeatureValueFault | undefined {
  const found = findNested(value, (inner) => (typeof inner === 'bigint' && !isInt64(inner)) || (judgeFinite && typeof inner === 'number' && !Number.isFinite(inner)))
  if (found === undefined) return undefined
  return typeof found.value === 'bigint' ? { kind: 'beyond-int64', path: found.path } : { kind: 'not-finite', value: found.value as number, path: found.path }
}
