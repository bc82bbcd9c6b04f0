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

/** What {@link eventually} throws when the time is up: `timed out waiting for: <what>`. */
export class TimedOut extends Error {}

/**
 * Calls `check` until it gives true; throws `timed out waiting for: <what>` once `timeoutMs`
 * (a number, or {@link EventuallyOptions}) has passed without it.
 */
export async function eventually (check: () => boolean | Promise<boolean>, what: string, timeoutMs: number | EventuallyOptions = {}): Promise<void> {
  const { timeoutMs: limit = 10_000, intervalMs = 20 } = typeof timeoutMs === 'number' ? { timeoutMs } : timeoutMs
  const deadline = Date.now() + limit
  while (!(await check())) {
    if (Date.now() > deadline) throw new TimedOut(`timed out waiting for: ${what}`)
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
  let response = await call()
  try {
    await eventually(async () => response.status === status || (response = await call()).status === status, `status ${status}`, { timeoutMs, intervalMs: 50 })
  } catch (error) {
    // Out of time: the caller's assertion on the last answer says what came instead.
    if (!(error instanceof TimedOut)) throw error
  }
  return response
}
