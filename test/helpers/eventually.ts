/**
 * Polling for what happens asynchronously (informer events, registry reloads, recovery after
 * the failure back-off): one helper, failing with a message that names what never happened.
 */
import { setTimeout as sleep } from 'node:timers/promises'

/** Options of {@link eventually}. */
export interface EventuallyOptions {
  /** How long to keep trying. Default 10 s. */
  readonly timeoutMs?: number
  /** Pause between tries. Default 20 ms. */
  readonly intervalMs?: number
}

/**
 * Calls `check` until it gives true; throws `timed out waiting for: <what>` once `timeoutMs`
 * (a number, or {@link EventuallyOptions}) has passed without it.
 */
export async function eventually (check: () => boolean | Promise<boolean>, what: string, timeoutMs: number | EventuallyOptions = {}): Promise<void> {
  const { timeoutMs: limit = 10_000, intervalMs = 20 } = typeof timeoutMs === 'number' ? { timeoutMs } : timeoutMs
  const deadline = Date.now() + limit
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`)
    await sleep(intervalMs)
  }
}

/** An HTTP answer with a status, as the test apps give it. */
interface WithStatus { readonly status: number }

/**
 * Calls `call` until its answer has `status` and returns that answer; after `timeoutMs`
 * (default 5 s) returns the last answer, so that the caller's assertion shows what came instead.
 */
export async function eventuallyStatus<R extends WithStatus> (call: () => Promise<R>, status: number, timeoutMs = 5_000): Promise<R> {
  const deadline = Date.now() + timeoutMs
  let response = await call()
  while (response.status !== status && Date.now() < deadline) {
    await sleep(50)
    response = await call()
  }
  return response
}
