import { ApiStatusError, UnusableAnswer } from './api-request.ts'

/** One page of a Kubernetes list, as read (rbac-objects.ts `readListPage`). */
export interface ListPage<T> {
  readonly items: readonly T[]
  /** `metadata.resourceVersion`: the version the list is a snapshot of. */
  readonly resourceVersion: string
  /** `metadata.continue`; undefined on the last page. */
  readonly continueToken: string | undefined
}

/** Asks for one page: `limit` items from `continueToken` (undefined: the first page); `signal` ends the call. */
export type PageFetcher<T> = (limit: number, continueToken: string | undefined, signal: AbortSignal | undefined) => Promise<ListPage<T>>

/** Items per page, as client-go's reflector asks. */
export const DEFAULT_PAGE_SIZE = 500

/**
 * Pages a list may take beyond those `maxItems` fills: the API server may leave a page short, even
 * empty, with a continue token (the API reference, `ListOptions.limit`), though without a selector
 * it fills every page but the last.
 */
const SHORT_PAGES = 10

export interface ListOptions {
  readonly pageSize?: number | undefined
  /** The most items a list may hold: past it, the list fails (memory stays bounded). */
  readonly maxItems: number
  /** Ends the list between pages and the page under way (when its fetcher passes it on). */
  readonly signal?: AbortSignal | undefined
}

/**
 * Lists a whole collection page by page (`limit`/`continue`), so a large namespace is never
 * one huge response, and each page gets its own request timeout: the time allowed grows with
 * the size of the collection. Every page comes from the snapshot of the first one; when the
 * server has dropped that snapshot (410 on a continue token), the list starts over once.
 * Each item goes through `keep` as it arrives, so only what the caller keeps stays in memory.
 *
 * A list ends, whatever the server says: one that would hold more than `maxItems` items, or take
 * more pages than those items fill (plus {@link SHORT_PAGES}), or that is answered a continue
 * token with the same token, fails with an {@link UnusableAnswer}. client-go's pager follows
 * continue tokens for as long as they come; a server that always sends one would hold a list
 * (and the memory of its items) for ever.
 */
export async function listAllPages<T, K> (
  fetchPage: PageFetcher<T>,
  keep: (item: T) => K,
  options: ListOptions
): Promise<{ items: K[], resourceVersion: string }> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE
  const maxPages = Math.ceil(options.maxItems / pageSize) + SHORT_PAGES
  for (let attempt = 0; ; attempt++) {
    const items: K[] = []
    let token: string | undefined
    let resourceVersion: string | undefined
    try {
      for (let pages = 1; ; pages++) {
        options.signal?.throwIfAborted()
        if (pages > maxPages) throw new UnusableAnswer(`the list did not end within ${maxPages} pages of ${pageSize}`)
        const page = await fetchPage(pageSize, token, options.signal)
        resourceVersion ??= page.resourceVersion
        if (items.length + page.items.length > options.maxItems) throw new UnusableAnswer(`the list holds more than ${options.maxItems} objects (tuning.informer.maxObjects)`)
        for (const item of page.items) items.push(keep(item))
        if (page.continueToken !== undefined && page.continueToken === token) throw new UnusableAnswer('the list was answered a continue token with the same continue token: it would never end')
        token = page.continueToken
        if (token === undefined) return { items, resourceVersion }
      }
    } catch (error) {
      if (attempt === 0 && token !== undefined && error instanceof ApiStatusError && error.statusCode === 410) continue
      throw error
    }
  }
}
