/**
 * Compile-time assertions for the type tests (`*.test-d.ts`): they do nothing at run time,
 * and a wrong type makes `tsc` fail on the line that asserts it.
 */

/** `true` when `A` and `B` are the same type (`any` equals only `any`). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false

/** `true` when `T` is `any`. */
export type IsAny<T> = 0 extends 1 & T ? true : false

/** Compiles only when `Condition` is `true`: `expectTrue<Equal<typeof x, string>>()`. */
export function expectTrue<Condition extends true> (): void {}

/** Compiles only when `Condition` is `false`. */
export function expectFalse<Condition extends false> (): void {}
