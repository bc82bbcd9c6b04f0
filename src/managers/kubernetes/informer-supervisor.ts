import type { AuthLogger } from '../../base/logging.ts'
import { describeFailure, lacksPermission } from './api-failure.ts'

/** One attempt at syncing: started by the supervisor, stopped when it fails or goes quiet. */
export interface Attempt {
  /** Rejects when the attempt fails; the supervisor then restarts it after a backoff. */
  readonly done: Promise<void>
  /** Time of the attempt's last sign of life (ms, the supervisor's clock). */
  lastActivity (): number
  stop (): void
}

/** Hooks an attempt calls. */
export interface AttemptHooks {
  /** The attempt has listed everything (again): its view is current. */
  synced (): void
  /** Whether the attempt is still the current one (a stopped attempt's late events are ignored). */
  current (): boolean
}

export interface SupervisorOptions {
  readonly logger: AuthLogger
  /** What is supervised, for logs (e.g. `RoleBinding and Role informer`). */
  readonly what: string
  /** The permission the caller needs, named when the API server answers 403. */
  readonly permission: string
  /** Who the API server sees making the calls (`ApiTarget.caller`), named with the permission. */
  readonly caller: string
  readonly launch: (hooks: AttemptHooks) => Attempt
  /** No sign of life for this long → the attempt is presumed stalled and restarted. */
  readonly staleAfterMs: number
  /** Restart delays after a failure: doubling from `initial` up to `max`. */
  readonly backoff: { readonly initial: number, readonly max: number }
  readonly now: () => number
  /** After each first sync of an attempt. */
  readonly onSynced?: (() => void) | undefined
}

/** What a supervisor reports. */
export interface Supervisor {
  start (): void
  /** Resolves once the first attempt has synced or failed. Never rejects. */
  settled (): Promise<void>
  synced (): boolean
  /** When sync was lost (undefined while synced or before the first sync). */
  lostSyncAt (): number | undefined
  restarts (): number
  lastSyncAt (): number | undefined
  stop (): Promise<void>
}

/**
 * Keeps one attempt running: restarts it with backoff after a failure (a 403 names the
 * missing permission), and a watchdog restarts it when it shows no sign of life for
 * `staleAfterMs` (a silently stalled watch) or has not synced within that time.
 */
export function createSupervisor (options: SupervisorOptions): Supervisor {
  const { logger, now } = options
  let closed = false
  let started = false
  let attempts = 0
  let current: { id: number, attempt: Attempt, launchedAt: number, synced: boolean } | undefined
  let failures = 0
  let lastSyncAt: number | undefined
  let lostSyncAt: number | undefined
  let restartTimer: NodeJS.Timeout | undefined
  let watchdog: NodeJS.Timeout | undefined
  let settle: () => void = () => {}
  const settledPromise = new Promise<void>((resolve) => { settle = resolve })

  // `at`: when the API server was last heard from. A watch found silent was lost when it went
  // quiet, not when the watchdog noticed: the outage grace counts from then, or a silent stall
  // would add the whole watchdog period to how long a deleted RoleBinding keeps granting.
  const loseSync = (at = now()): void => {
    if (current?.synced === true || lostSyncAt === undefined) lostSyncAt = at
    if (current !== undefined) current.synced = false
  }

  const launch = (): void => {
    const id = ++attempts
    const isCurrent = (): boolean => !closed && current?.id === id
    const entry = { id, attempt: undefined as unknown as Attempt, launchedAt: now(), synced: false }
    current = entry
    entry.attempt = options.launch({
      current: isCurrent,
      synced () {
        if (!isCurrent()) return
        const first = !entry.synced
        entry.synced = true
        failures = 0
        lastSyncAt = now()
        lostSyncAt = undefined
        if (first) options.onSynced?.()
        settle()
      }
    })
    entry.attempt.done.then(() => {}, (error: unknown) => { if (isCurrent()) onFailure(error) })
  }

  const onFailure = (error: unknown): void => {
    loseSync()
    failures++
    const delay = Math.min(options.backoff.max, options.backoff.initial * 2 ** (failures - 1))
    const { status, text } = describeFailure(error)
    if (status === 403) {
      logger.error({ status, missingPermission: options.permission, retryInMs: delay }, `the ${options.what} was refused: ${lacksPermission(options.caller, options.permission)} (see docs/kubernetes.md)`)
    } else {
      logger.warn({ status, reason: text, retryInMs: delay }, `the ${options.what} failed; restarting it`)
    }
    settle()
    current?.attempt.stop()
    if (closed) return
    clearTimeout(restartTimer)
    restartTimer = setTimeout(() => {
      restartTimer = undefined
      if (!closed) launch()
    }, delay)
    restartTimer.unref()
  }

  const checkStaleness = (): void => {
    const entry = current
    if (closed || entry === undefined || restartTimer !== undefined) return
    const quietFor = now() - (entry.synced ? entry.attempt.lastActivity() : entry.launchedAt)
    if (quietFor <= options.staleAfterMs) return
    logger.warn({ quietForMs: quietFor, synced: entry.synced }, entry.synced
      ? `the ${options.what}'s watch showed no sign of life; restarting it`
      : `the ${options.what} did not sync in time; restarting it`)
    loseSync(entry.synced ? entry.attempt.lastActivity() : now())
    entry.attempt.stop()
    launch()
  }

  return {
    start () {
      if (started || closed) return
      started = true
      launch()
      watchdog = setInterval(checkStaleness, Math.max(50, Math.min(options.staleAfterMs / 2, 30_000)))
      watchdog.unref()
    },
    settled: async () => { await settledPromise },
    synced: () => current?.synced === true,
    lostSyncAt: () => lostSyncAt,
    restarts: () => Math.max(0, attempts - 1),
    lastSyncAt: () => lastSyncAt,
    async stop () {
      closed = true
      clearTimeout(restartTimer)
      clearInterval(watchdog)
      settle()
      const entry = current
      entry?.attempt.stop()
      await entry?.attempt.done.catch(() => {})
    }
  }
}
