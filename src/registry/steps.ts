import { setImmediate as nextTurn } from 'node:timers/promises'

/*
 * Long computations (decoding and indexing a large registry) are written as generators that
 * yield now and then. Run at startup, they go straight through; run while a server is serving,
 * they give the event loop back every few milliseconds, so requests are not held up by a reload.
 */

/** Runs a stepped computation to its end, without pausing. */
export function runToEnd<T> (steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next()
    if (next.done === true) return next.value
  }
}

/**
 * Runs a stepped computation in slices of about `sliceMs` milliseconds, letting the event loop
 * run (timers, I/O, requests) between slices.
 */
export async function runSliced<T> (steps: Generator<void, T>, sliceMs: number): Promise<T> {
  for (;;) {
    const start = performance.now()
    do {
      const next = steps.next()
      if (next.done === true) return next.value
    } while (performance.now() - start < sliceMs)
    await nextTurn()
  }
}
