import type { RoleSourceOptions } from './role-source.ts'

/** Tuning knobs with safe defaults; tests shorten them. */
export interface KubernetesTuning {
  /** Timeout of each API call. Default 5000 ms. */
  readonly requestTimeoutMs?: number
  /** How long a rejected token's 401 is remembered. Default 5000 ms. */
  readonly failureCacheMs?: number
  /** Reviewed tokens kept. Default 10 000. */
  readonly maxCachedTokens?: number
  /**
   * Rejected tokens remembered, in their own LRU so junk tokens can never evict the
   * identities of good ones. Default 1000.
   */
  readonly maxCachedRejections?: number
  /**
   * TokenReviews waiting for the API server at once; a new token beyond that gets a 503
   * `cluster_unavailable` with Retry-After instead of queueing without bound. Default 64.
   */
  readonly maxConcurrentReviews?: number
  readonly informer?: Omit<RoleSourceOptions, 'logger' | 'namespace' | 'policy' | 'requestTimeoutMs' | 'now'>
  readonly now?: () => number
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 5000
