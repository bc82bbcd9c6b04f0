import { ListWatch, RbacAuthorizationV1Api, Watch, type KubeConfig, type V1RoleBinding } from '@kubernetes/client-node'
import type { AuthLogger } from '../../base/logging.ts'
import { createFailureReporter, describeFailure } from './api-failure.ts'
import { buildRoleIndex, clusterRoleBindingNames, type RoleIndex } from './role-binding-index.ts'
import { withTimeout } from './request-timeout.ts'

export interface RoleBindingSourceOptions {
  readonly logger: AuthLogger
  /** The service namespace: only its RoleBindings are read. */
  readonly namespace: string
  /** Timeout of list calls. */
  readonly requestTimeoutMs: number
  /** Asked of the server on each watch; it ends the watch after that long and we resume from the last version. Default 300. */
  readonly watchTimeoutSeconds?: number
  /** No watch event, bookmark or reconnect for this long → the watch is presumed stalled and restarted. Default: watch timeout + 60 s. */
  readonly staleAfterMs?: number
  /** Restart delays after an informer failure: doubling from `initial` up to `max`. Default 1 s → 30 s. */
  readonly restartBackoffMs?: { readonly initial: number, readonly max: number }
  /** After losing sync, the last synced bindings keep serving this long; then direct lists. Default 60 s. */
  readonly staleGraceMs?: number
  /** Before the first sync, a direct list is reused this long. Default 1 s. */
  readonly directListTtlMs?: number
  readonly now?: () => number
}

export interface RoleBindingSourceStatus {
  readonly synced: boolean
  readonly bindings: number
  readonly restarts: number
  readonly lastSyncAt: string | undefined
}

/** The RoleBindings of the service namespace, kept current by an informer. */
export interface RoleBindingSource {
  /** Starts the informer (idempotent, returns at once). */
  start (): void
  /** Resolves once the first informer attempt has synced or failed. Never rejects. */
  settled (): Promise<void>
  /**
   * The bindings as they answer right now without I/O (informer synced, or within the grace
   * period after losing sync), else undefined (then {@link index} lists them). A new object
   * whenever the bindings change: its identity is the generation callers compare to know
   * whether roles they derived from it are still current.
   */
  indexNow (): RoleIndex | undefined
  /** The bindings, listing them directly when the informer cannot answer; rejects with a 503 AuthError when they cannot be read. */
  index (): Promise<RoleIndex>
  status (): RoleBindingSourceStatus
  stop (): Promise<void>
}

const RBAC_PERMISSION = (namespace: string): string => `get, list and watch rolebindings.rbac.authorization.k8s.io in namespace ${namespace}`

interface Attempt {
  readonly id: number
  readonly informer: ListWatch<V1RoleBinding>
  readonly watch: WatchWithActivity
  readonly launchedAt: number
  synced: boolean
  started: Promise<void> | undefined
}

/**
 * Watch that asks for bookmarks and a server-side timeout, reports every sign of life (for
 * the staleness watchdog), and can be cancelled so a watch opened after `stop()` (client-node
 * starts the watch even when stopped during the list) is closed at once. client-node
 * reconnects a watch that ended normally at once, with no delay: a server or proxy that ends
 * every watch immediately would be hammered, so repeated quick ends back off (0.4 s doubling
 * to 30 s).
 */
class WatchWithActivity extends Watch {
  private cancelled = false
  private lastStart = 0
  private quickEnds = 0
  private pauseTimer: NodeJS.Timeout | undefined
  private endPause: (() => void) | undefined

  constructor (config: KubeConfig, private readonly timeoutSeconds: number, private readonly onActivity: () => void) {
    super(config)
  }

  cancel (): void {
    this.cancelled = true
    clearTimeout(this.pauseTimer)
    this.endPause?.()
  }

  override async watch (path: string, queryParams: Record<string, string | number | boolean | undefined>, callback: (phase: string, apiObj: any, watchObj?: any) => void, done: (err: any) => void): Promise<AbortController> {
    this.quickEnds = Date.now() - this.lastStart < 1000 ? this.quickEnds + 1 : 0
    if (this.quickEnds > 2 && !this.cancelled) {
      await new Promise<void>((resolve) => {
        this.endPause = resolve
        this.pauseTimer = setTimeout(resolve, Math.min(30_000, 50 * 2 ** this.quickEnds))
      })
    }
    this.lastStart = Date.now()
    if (this.cancelled) {
      const controller = new AbortController()
      controller.abort()
      return controller
    }
    const controller = await super.watch(path, { ...queryParams, allowWatchBookmarks: true, timeoutSeconds: this.timeoutSeconds }, (phase, object, raw) => {
      this.onActivity()
      callback(phase, object, raw)
    }, done)
    if (this.cancelled) controller.abort()
    return controller
  }
}

/**
 * RoleBindings of one namespace through client-node's ListWatch, hardened where it is
 * weak: it stops for good after any non-410 error (we restart it with backoff), its watch
 * can stall silently (a watchdog restarts it), and it knows nothing until its first list
 * (until then, and when sync was lost for longer than the grace period, direct lists
 * answer, so a request never sees an empty or unbounded-stale view).
 */
export function createRoleBindingSource (kubeConfig: KubeConfig, options: RoleBindingSourceOptions): RoleBindingSource {
  const { logger, namespace } = options
  const now = options.now ?? Date.now
  const watchTimeoutSeconds = options.watchTimeoutSeconds ?? 300
  const staleAfterMs = options.staleAfterMs ?? (watchTimeoutSeconds + 60) * 1000
  const backoff = options.restartBackoffMs ?? { initial: 1000, max: 30_000 }
  const staleGraceMs = options.staleGraceMs ?? 60_000
  const directListTtlMs = options.directListTtlMs ?? 1000
  const api = kubeConfig.makeApiClient(RbacAuthorizationV1Api)
  const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/rolebindings`
  const permission = RBAC_PERMISSION(namespace)
  const report = createFailureReporter(logger)
  // client-node's Watch sets no timeout: bound the wait for the watch's response headers
  // (node-fetch clears this timeout once they arrive, so the stream itself is not cut).
  const watchConfig: KubeConfig = Object.create(kubeConfig)
  watchConfig.applyToFetchOptions = async (opts) => await kubeConfig.applyToFetchOptions({ ...opts, timeout: options.requestTimeoutMs })

  let closed = false
  let started = false
  let attempts = 0
  let current: Attempt | undefined
  let index: RoleIndex | undefined
  let indexDirty = false
  let lastSyncAt: number | undefined
  let lostSyncAt: number | undefined
  let lastActivity = now()
  let failures = 0
  let restartTimer: NodeJS.Timeout | undefined
  let watchdog: NodeJS.Timeout | undefined
  let direct: { index: RoleIndex, expiresAt: number } | undefined
  let directPending: Promise<RoleIndex> | undefined
  let settle: () => void = () => {}
  const settledPromise = new Promise<void>((resolve) => { settle = resolve })
  const explained = new Set<string>()

  const explainClusterRoles = (bindings: readonly V1RoleBinding[]): void => {
    for (const name of clusterRoleBindingNames(bindings)) {
      if (explained.has(name)) continue
      explained.add(name)
      logger.info({ binding: name }, 'a RoleBinding of the service namespace refers to a ClusterRole: it grants no Feast role (only Roles do; see docs/kubernetes.md)')
    }
  }

  const listBindings = async (): Promise<{ items: V1RoleBinding[], metadata?: { resourceVersion?: string } }> => {
    const list = await api.listNamespacedRoleBinding({ namespace }, withTimeout(options.requestTimeoutMs))
    return list as { items: V1RoleBinding[], metadata?: { resourceVersion?: string } }
  }

  const launch = (): void => {
    attempts++
    const id = attempts
    const isCurrent = (): boolean => !closed && current?.id === id
    const watch = new WatchWithActivity(watchConfig, watchTimeoutSeconds, () => { if (isCurrent()) lastActivity = now() })
    const informer = new ListWatch<V1RoleBinding>(path, watch, listBindings, false)
    const attempt: Attempt = { id, informer, watch, launchedAt: now(), synced: false, started: undefined }
    let failed = false
    const changed = (): void => { if (isCurrent() && attempt.synced) indexDirty = true }
    informer.on('add', changed)
    informer.on('update', changed)
    informer.on('delete', changed)
    informer.on('connect', () => { if (isCurrent()) lastActivity = now() })
    informer.on('error', (error: unknown) => {
      failed = true
      if (!isCurrent()) return
      onFailure(attempt, error)
    })
    current = attempt
    attempt.started = informer.start().then(() => {
      if (!isCurrent() || failed) return
      attempt.synced = true
      indexDirty = true
      failures = 0
      lastSyncAt = lastActivity = now()
      lostSyncAt = undefined
      logger.info({ namespace, bindings: informer.list(namespace).length, attempt: id }, 'RoleBinding informer synced')
      settle()
    }, (error: unknown) => { if (isCurrent()) onFailure(attempt, error) })
  }

  const onFailure = (attempt: Attempt, error: unknown): void => {
    if (attempt.synced || lostSyncAt === undefined) lostSyncAt = now()
    attempt.synced = false
    failures++
    const delay = Math.min(backoff.max, backoff.initial * 2 ** (failures - 1))
    const { status, text } = describeFailure(error)
    if (status === 403) {
      logger.error({ status, missingPermission: permission, retryInMs: delay }, `the RoleBinding informer was refused: the service account lacks the permission ${permission} (see docs/kubernetes.md)`)
    } else {
      logger.warn({ status, reason: text, retryInMs: delay }, 'the RoleBinding informer failed; restarting it')
    }
    settle()
    void retire(attempt)
    if (closed) return
    clearTimeout(restartTimer)
    restartTimer = setTimeout(() => {
      restartTimer = undefined
      if (!closed) launch()
    }, delay)
    restartTimer.unref()
  }

  const checkStaleness = (): void => {
    const attempt = current
    if (closed || attempt === undefined || restartTimer !== undefined) return
    const quietFor = now() - (attempt.synced ? lastActivity : attempt.launchedAt)
    if (quietFor <= staleAfterMs) return
    logger.warn({ quietForMs: quietFor, synced: attempt.synced }, attempt.synced
      ? 'the RoleBinding watch showed no sign of life; restarting the informer'
      : 'the RoleBinding informer did not sync in time; restarting it')
    if (attempt.synced || lostSyncAt === undefined) lostSyncAt = now()
    attempt.synced = false
    void retire(attempt)
    launch()
  }

  /** Stops an attempt for good, including a watch it opens after being stopped. */
  const retire = async (attempt: Attempt): Promise<void> => {
    attempt.watch.cancel()
    await attempt.informer.stop()
    await attempt.started?.catch(() => {})
    await attempt.informer.stop()
  }

  const currentIndex = (): RoleIndex | undefined => {
    const attempt = current
    if (attempt?.synced === true) {
      if (indexDirty || index === undefined) {
        const bindings = attempt.informer.list(namespace)
        index = buildRoleIndex(bindings, namespace)
        indexDirty = false
        explainClusterRoles(bindings)
      }
      return index
    }
    if (index !== undefined && lostSyncAt !== undefined && now() - lostSyncAt < staleGraceMs) return index
    return undefined
  }

  const directIndex = async (): Promise<RoleIndex> => {
    if (direct !== undefined && direct.expiresAt > now()) return direct.index
    directPending ??= (async () => {
      try {
        const list = await listBindings()
        const built = buildRoleIndex(list.items, namespace)
        explainClusterRoles(list.items)
        direct = { index: built, expiresAt: now() + directListTtlMs }
        return built
      } catch (error) {
        throw report(error, { action: `list RoleBindings in namespace ${namespace}`, permission })
      } finally {
        directPending = undefined
      }
    })()
    return await directPending
  }

  return {
    start () {
      if (started || closed) return
      started = true
      launch()
      watchdog = setInterval(checkStaleness, Math.max(50, Math.min(staleAfterMs / 2, 30_000)))
      watchdog.unref()
    },
    settled: async () => { await settledPromise },
    indexNow: currentIndex,
    index: async () => currentIndex() ?? await directIndex(),
    status () {
      return {
        synced: current?.synced === true,
        bindings: current?.synced === true ? current.informer.list(namespace).length : 0,
        restarts: Math.max(0, attempts - 1),
        lastSyncAt: lastSyncAt === undefined ? undefined : new Date(lastSyncAt).toISOString()
      }
    },
    async stop () {
      closed = true
      clearTimeout(restartTimer)
      clearInterval(watchdog)
      settle()
      if (current !== undefined) await retire(current)
      await directPending?.catch(() => {})
    }
  }
}
