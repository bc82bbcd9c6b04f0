import { kubernetesClient } from './client-library.ts'

/** One page of a Kubernetes list. */
export interface ListPage<T> {
  readonly items: T[]
  readonly metadata?: { readonly resourceVersion?: string, readonly _continue?: string } | undefined
}

/** Asks for one page: `limit` items from `continueToken` (undefined: the first page). */
export type PageFetcher<T> = (limit: number, continueToken: string | undefined) => Promise<ListPage<T>>

/** Items per page, as client-go's reflector asks. */
export const DEFAULT_PAGE_SIZE = 500

/**
 * Lists a whole collection page by page (`limit`/`continue`), so a large namespace is never
 * one huge response, and each page gets its own request timeout: the time allowed grows with
 * the size of the collection. Every page comes from the snapshot of the first one; when the
 * server has dropped that snapshot (410 on a continue token), the list starts over once.
 * Each item goes through `keep` as it arrives, so only what the caller keeps stays in memory.
 */
export async function listAllPages<T, K> (
  fetchPage: PageFetcher<T>,
  keep: (item: T) => K,
  pageSize = DEFAULT_PAGE_SIZE
): Promise<{ items: K[], resourceVersion: string | undefined }> {
  for (let attempt = 0; ; attempt++) {
    const items: K[] = []
    let token: string | undefined
    let resourceVersion: string | undefined
    try {
      do {
        const page = await fetchPage(pageSize, token)
        resourceVersion ??= page.metadata?.resourceVersion
        for (const item of page.items) items.push(keep(item))
        token = page.metadata?._continue || undefined
      } while (token !== undefined)
      return { items, resourceVersion }
    } catch (error) {
      if (attempt === 0 && token !== undefined && error instanceof kubernetesClient().ApiException && (error as { code?: unknown }).code === 410) continue
      throw error
    }
  }
}
