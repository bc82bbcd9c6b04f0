import type { KubeConfig } from '@kubernetes/client-node'
import { ApiStatusError, UnusableAnswer } from './api-request.ts'
import { read } from './json-shape.ts'
import { listAllPages, type PageFetcher } from './paged-list.ts'
import { checkEventObjectType, type ObjectMeta, type RbacCollection } from './rbac-objects.ts'
import { startWatch, type Watch, type WatchEvent } from './watch-stream.ts'

/** Where an informer's objects go: the whole set after each list, then one change at a time. */
export interface InformerSink<K> {
  replace (items: ReadonlyMap<string, K>): void
  put (name: string, item: K): void
  remove (name: string): void
  /** Objects held now: past the informer's `maxObjects`, a watch that keeps adding fails. */
  size (): number
}

export interface InformerOptions<T extends { readonly metadata: ObjectMeta }, K> {
  /** What is listed and watched, and how its objects are read. */
  readonly collection: RbacCollection<T>
  /** The one namespace listed and watched: an object of another is an unusable answer. */
  readonly namespace: string
  /** API path of the collection, e.g. `/apis/rbac.authorization.k8s.io/v1/namespaces/feast/roles`. */
  readonly path: string
  readonly fetchPage: PageFetcher<T>
  readonly pageSize?: number | undefined
  /** The most objects held: a list holding more, or a watch adding past it, fails. */
  readonly maxObjects: number
  /** What is kept of each object (a slim copy: the full objects are dropped at once). */
  readonly keep: (item: T) => K
  readonly sink: InformerSink<K>
  /** The connection watches go through (not the shared agent: a watch holds its connection for minutes). */
  readonly watchConfig: KubeConfig
  /** The most to wait for a watch's response headers. */
  readonly headerTimeoutMs: number
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
 * (an ERROR event, a refused watch, a failed list, an event that is not one the server could
 * send) ends the informer with that error. A watch that keeps ending at once (a misbehaving
 * proxy) is resumed with a growing pause instead of in a tight loop. Objects are named by
 * `metadata.name` (one namespace).
 *
 * Every event is checked before it touches the sink: its object must be of the collection's kind
 * and of the namespace watched, and read as the collection reads its objects. client-go's
 * reflector skips an event of another type and goes on; here the watch fails and the informer
 * lists again, so that the view never drifts from the server's in silence; so does an ADDED for an
 * object held (a replay of the current state: see apply). Event versions are
 * never compared (a resourceVersion is opaque: clients may not order them), so an event that
 * goes back in time is applied as the server sent it.
 */
export function runInformer<T extends { readonly metadata: ObjectMeta }, K> (options: InformerOptions<T, K>): Informer {
  const { collection, namespace } = options
  let stopped = false
  let watch: Watch | undefined
  let wake: (() => void) | undefined
  let pauseTimer: NodeJS.Timeout | undefined
  // Ends a list or the opening of a watch under way when the informer stops: a list can take many pages.
  const stopping = new AbortController()
  // Synced means listed AND watching: reported when the watch after a list has started.
  let listedSinceWatch = false
  // Names the server has shown us and not deleted since: only to tell a replayed ADDED.
  let held = new Set<string>()

  const list = async (): Promise<string | undefined> => {
    const { items, resourceVersion } = await listAllPages(async (limit, token, signal) => {
      const page = await options.fetchPage(limit, token, signal)
      options.onActivity()
      return page
    }, (item: T) => [item.metadata.name, options.keep(item)] as const, { pageSize: options.pageSize, maxItems: options.maxObjects, signal: stopping.signal })
    if (stopped) return undefined
    held = new Set(items.map(([name]) => name))
    options.sink.replace(new Map(items))
    listedSinceWatch = true
    return resourceVersion
  }

  /** Applies one event; returns the version it brings, if any. Throws to end the watch. */
  const apply = (event: WatchEvent): string | undefined => {
    if (event.type === 'ERROR') {
      const code = read.optionalNumber(event.object.code, 'the ERROR event\'s code')
      if (code === 410) throw new Expired()
      throw Object.assign(new Error(`watch ERROR event: ${String(read.optionalText(event.object.reason, 'the ERROR event\'s reason') ?? code)}`), { statusCode: code })
    }
    checkEventObjectType(event.object, collection, `the ${event.type} event's object`)
    if (event.type === 'BOOKMARK') {
      // An empty object of the kind with a version (or none: then the last one stands).
      const metadata = read.optionalObject(event.object.metadata, 'the BOOKMARK event\'s metadata')
      return read.optionalText(metadata?.resourceVersion, 'the BOOKMARK event\'s metadata.resourceVersion')
    }
    const item = collection.readObject(event.object, `the ${event.type} event's object`, namespace)
    if (event.type === 'DELETED') {
      held.delete(item.metadata.name)
      options.sink.remove(item.metadata.name)
    } else {
      // A watch resumed from a version carries only what changed after it, so a correct server
      // never adds an object the informer holds (a delete and re-create sends DELETED first). A
      // proxy that answers a resumed watch with the current state as ADDED events does; what was
      // deleted in between would then never be removed, and its grant would stay.
      if (event.type === 'ADDED' && held.has(item.metadata.name)) throw new UnusableAnswer(`an ADDED event names a ${collection.kind} the informer already holds: the watch is replaying the current state instead of the changes since the version it resumed from (deletions in between would be missed)`)
      held.add(item.metadata.name)
      options.sink.put(item.metadata.name, options.keep(item))
      if (options.sink.size() > options.maxObjects) throw new UnusableAnswer(`the watch holds more than ${options.maxObjects} objects (tuning.informer.maxObjects)`)
    }
    return item.metadata.resourceVersion
  }

  /** One watch from `from`; resolves with the last version seen when the server ends it. */
  const watchOnce = async (from: string | undefined): Promise<string | undefined> => {
    let version = from
    let started: Watch
    try {
      started = await startWatch(options.watchConfig, {
        path: options.path,
        query: { resourceVersion: from, allowWatchBookmarks: true, timeoutSeconds: options.watchTimeoutSeconds },
        headerTimeoutMs: options.headerTimeoutMs,
        signal: stopping.signal
      }, (event) => {
        if (stopped) return
        options.onActivity()
        const next = apply(event)
        if (next !== undefined && next !== '') version = next
      })
    } catch (error) {
      if (stopped) return version
      throw error instanceof ApiStatusError && error.statusCode === 410 ? new Expired() : error
    }
    watch = started
    if (stopped) { started.abort(); return version }
    options.onActivity()
    if (listedSinceWatch) {
      listedSinceWatch = false
      options.onSynced()
    }
    try {
      await started.ended
    } finally {
      watch = undefined
    }
    return version
  }

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
      stopping.abort()
      clearTimeout(pauseTimer)
      wake?.()
      watch?.abort()
    }
  }
}
