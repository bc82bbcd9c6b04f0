/**
 * Remembers the last failure of a fetch for `backoffMs`: meanwhile every caller gets that
 * failure at once instead of sending one more request to a provider that is down. A success
 * forgets it.
 */
export function createFailureBackoff (backoffMs: number, now: () => number = Date.now): FailureBackoff {
  let last: { at: number, error: Error } | undefined
  return {
    check: () => { if (last !== undefined && now() - last.at < backoffMs) throw last.error },
    waiting: () => last !== undefined && now() - last.at < backoffMs,
    failed: (error) => { last = { at: now(), error } },
    succeeded: () => { last = undefined }
  }
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
