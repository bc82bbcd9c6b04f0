/**
 * What every benchmark server shares: its configuration (from the harness, in the
 * BENCH_CONFIG environment variable), the route's payload, and the start-up protocol:
 * listen on 127.0.0.1, print `{"port":N}` on stdout, then answer the harness over IPC
 * (memory reading after a full GC, clock for profile windows, orderly stop so that `--cpu-prof` is written).
 */
import type { IdpDescription } from '../lib/tokens.ts'

export interface ServerConfig extends IdpDescription {
  /** For the kubernetes scenario: the fake API server's URL. */
  readonly kubeApiUrl?: string
}

export function readServerConfig (): ServerConfig {
  const raw = process.env.BENCH_CONFIG
  if (raw === undefined) throw new Error('BENCH_CONFIG is not set: start benchmark servers through `npm run bench`')
  return JSON.parse(raw) as ServerConfig
}

/**
 * The Kubernetes scenario's `token_review_cache_ttl_seconds` (the default, stated): the report
 * allows its one token one review per lifespan its rounds span.
 */
export const REVIEW_TTL_SECONDS = 60

/** The route every scenario serves: `GET /features` with this small JSON body. */
export const ROUTE = '/features'
export const PAYLOAD = Object.freeze({
  entities: { driver_id: [1001] },
  features: { 'driver_hourly_stats:conv_rate': [0.73], 'driver_hourly_stats:acc_rate': [0.91], 'driver_hourly_stats:avg_daily_trips': [14] }
})

export interface HarnessMessage { readonly type: 'memory' | 'clock' | 'stop' }
export interface MemoryReport { readonly type: 'memory', readonly rss: number, readonly heapUsed: number, readonly external: number }
/** The monotonic clock in µs: the time base of `--cpu-prof` samples, to cut a profile to the measured window. */
export interface ClockReport { readonly type: 'clock', readonly micros: number }

/**
 * Announces the port and wires the IPC commands. `close` is the server's own shutdown.
 */
export function announce (port: number, close: () => Promise<void>): void {
  process.stdout.write(`${JSON.stringify({ port })}\n`)
  process.on('message', (message: HarnessMessage) => {
    if (message.type === 'memory') {
      // A full collection first (when --expose-gc), so the reading is live memory plus what the allocator keeps.
      const gc = (globalThis as { gc?: () => void }).gc
      gc?.()
      const usage = process.memoryUsage()
      process.send?.({ type: 'memory', rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external } satisfies MemoryReport)
    } else if (message.type === 'clock') {
      process.send?.({ type: 'clock', micros: Number(process.hrtime.bigint() / 1000n) } satisfies ClockReport)
    } else if (message.type === 'stop') {
      // process.exit (not a signal) so that --cpu-prof writes its profile.
      void close().finally(() => process.exit(0))
    }
  })
  process.on('disconnect', () => process.exit(0))
}
