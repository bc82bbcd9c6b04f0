/**
 * Limits a recurring log line to one per `intervalMs` per key. During an outage every
 * request fails the same way: the log gets one line per kind of failure and period, and
 * that line says how many were `suppressed` since the previous one. Keys are few (kinds
 * of failure, never per-caller values), so the map stays small.
 */
export function createLogThrottle (options: { intervalMs?: number, now?: () => number } = {}): (key: string) => { log: boolean, suppressed: number } {
  const intervalMs = options.intervalMs ?? 10_000
  const now = options.now ?? Date.now
  const last = new Map<string, { at: number, suppressed: number }>()
  return (key) => {
    const seen = last.get(key)
    const at = now()
    if (seen !== undefined && at - seen.at < intervalMs) {
      seen.suppressed++
      return { log: false, suppressed: seen.suppressed }
    }
    last.set(key, { at, suppressed: 0 })
    return { log: true, suppressed: seen?.suppressed ?? 0 }
  }
}
