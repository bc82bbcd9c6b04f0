import type { KubeConfig } from '@kubernetes/client-node'
import { kubernetesClient } from './client-library.ts'
import { listAllPages, type PageFetcher } from './paged-list.ts'

/** Where an informer's objects go: the whole set after each list, then one change at a time. */
export interface InformerSink<K> {
  replace (items: ReadonlyMap<string, K>): void
  put (name: string, item: K): void
  remove (name: string): void
}

export interface InformerOptions<T, K> {
  /** API path of the collection, e.g. `/apis/rbac.authorization.k8s.io/v1/namespaces/feast/roles`. */
  readonly path: string
  readonly fetchPage: PageFetcher<T>
  readonly pageSize?: number | undefined
  /** What is kept of each object (a slim copy: the full objects are dropped at once). */
  readonly keep: (item: T) => K
  readonly sink: InformerSink<K>
  /** For watches; its fetch options bound the wait for response headers. */
  readonly watchConfig: KubeConfig
  /** Asked of the server on each watch; it ends the watch then and we resume from the last version. */
  readonly watchTimeoutSeconds: number
  /** Every sign of life: a page, an event, a bookmark, a reconnect. */
  readonly onActivity: () => void
  /** After each complete list, once the watch that follows it has started. */
  readonly onSynced: () => void
}

/** A running informer. */
export interface Informer {
  /** Rejects when the informer stops for a reason other than {@link stop} (the supervisor restarts it). */
  readonly done: Promise<void>
  stop (): void
}

/** A watch ended by the server asking us to list again (410 Gone, as an ERROR event or a status). */
class Expired extends Error {}

/**
 * List, then watch from the list's version with bookmarks, for ever: a watch the server ends
 * (its timeout) resumes from the last version seen; a 410 lists again; any other failure
 * (an ERROR event, a refused watch, a failed list) ends the informer with that error. A watch
 * that keeps ending at once (a misbehaving proxy) is resumed with a growing pause instead of
 * in a tight loop. Objects are named by `metadata.name` (one namespace).
 */
export function runInformer<T extends { metadata?: { name?: string, resourceVersion?: string } }, K> (options: InformerOptions<T, K>): Informer {
  let stopped = false
  let controller: AbortController | undefined
  let wake: (() => void) | undefined
  let pauseTimer: NodeJS.Timeout | undefined
  // Synced means listed AND watching: reported when the watch after a list has started.
  let listedSinceWatch = false
  const watcher = new (kubernetesClient().Watch)(options.watchConfig)
  const nameOf = (item: T): string => item.metadata?.name ?? ''

  const list = async (): Promise<string | undefined> => {
    const { items, resourceVersion } = await listAllPages(async (limit, token) => {
      const page = await options.fetchPage(limit, token)
      options.onActivity()
      return page
    }, (item: T) => [nameOf(item), options.keep(item)] as const, options.pageSize)
    if (stopped) return undefined
    options.sink.replace(new Map(items))
    listedSinceWatch = true
    return resourceVersion
  }

  /** One watch from `from`; resolves with the last version seen when the server ends it. */
  const watchOnce = async (from: string | undefined): Promise<string | undefined> => await new Promise((resolve, reject) => {
    let version = from
    let failure: Error | undefined
    const query = { resourceVersion: from, allowWatchBookmarks: true, timeoutSeconds: options.watchTimeoutSeconds }
    watcher.watch(options.path, query, (phase: string, object: any) => {
      if (stopped || failure !== undefined) return
      options.onActivity()
      if (phase === 'ERROR') {
        const code = (object as { code?: unknown } | undefined)?.code
        failure = code === 410 ? new Expired() : Object.assign(new Error(`watch ERROR event: ${String((object as { reason?: unknown } | undefined)?.reason ?? code)}`), { statusCode: code })
        controller?.abort()
        return
      }
      const rv = (object as T | undefined)?.metadata?.resourceVersion
      if (typeof rv === 'string' && rv !== '') version = rv
      if (phase === 'ADDED' || phase === 'MODIFIED') options.sink.put(nameOf(object as T), options.keep(object as T))
      else if (phase === 'DELETED') options.sink.remove(nameOf(object as T))
    }, (error: unknown) => {
      controller = undefined
      if (failure !== undefined) { reject(failure); return }
      if (error === null || error === undefined || stopped || (error as Error).name === 'AbortError') { resolve(version); return }
      reject((error as { statusCode?: unknown }).statusCode === 410 ? new Expired() : error)
    }).then((started) => {
      controller = started
      if (stopped) { started.abort(); return }
      options.onActivity()
      if (listedSinceWatch && failure === undefined && !started.signal.aborted) {
        listedSinceWatch = false
        options.onSynced()
      }
    }, reject)
  })

  const pause = async (ms: number): Promise<void> => {
    await new Promise<void>((resolve) => {
      wake = resolve
      pauseTimer = setTimeout(resolve, ms)
    })
    wake = undefined
  }

  const loop = async (): Promise<void> => {
    let version = await list()
    let quickEnds = 0
    // `stopped` is set by stop(), between awaits: read through a call so the linter sees it can change.
    const running = (): boolean => !stopped
    while (running()) {
      const startedAt = Date.now()
      try {
        version = await watchOnce(version)
      } catch (error) {
        if (!(error instanceof Expired) || stopped) throw error
        version = await list()
        continue
      }
      quickEnds = Date.now() - startedAt < 1000 ? quickEnds + 1 : 0
      if (quickEnds > 2 && !stopped) await pause(Math.min(30_000, 50 * 2 ** quickEnds))
    }
  }

  const done = loop().then(() => {}, (error: unknown) => { if (!stopped) throw error })
  // The supervisor observes `done`; never leave it unhandled while it waits.
  done.catch(() => {})
  return {
    done,
    stop () {
      stopped = true
      clearTimeout(pauseTimer)
      wake?.()
      controller?.abort()
    }
  }
}
