/**
 * Remembers the last failure of a fetch for `backoffMs`: meanwhile every caller gets that
 * failure at once instead of sending one more request to a provider that is down. A success
 * forgets it.
 */
export function createFailureBackoff (backoffMs: number, now: () => number = Date.now): FailureBackoff {
  let last: { at: number, error: Error } | undefined
  const waiting = (): boolean => last !== undefined && withinPause(now(), last.at, backoffMs)
  return {
    check: () => { if (waiting()) throw (last as { error: Error }).error },
    waiting,
    failed: (error) => { last = { at: now(), error } },
    succeeded: () => { last = undefined }
  }
}

/**
 * Whether `time` falls in the pause of `pauseMs` that began `at`. A clock set back past `at` (NTP
 * stepping it, a VM resumed) ends the pause: measured on that clock, it would last until the clock
 * caught up, an hour for an hour's step, and every caller would get the old failure meanwhile.
 */
export function withinPause (time: number, at: number, pauseMs: number): boolean {
  return time >= at && time < at + pauseMs
}

/** See {@link createFailureBackoff}. */
export interface FailureBackoff {
  /** Throws the remembered failure while the back-off lasts. */
  check (): void
  /** Whether the back-off lasts now (for callers that must not throw, e.g. a background refresh). */
  waiting (): boolean
  /** Remembers `error`: callers get it for the next `backoffMs`. */
  failed (error: Error): void
  /** Forgets the failure. */
  succeeded (): void
}
