import { func, integer, milliseconds, object, oneOf, required, retired, text, type OptionRules } from '../../base/option-rules.ts'

/** Tuning knobs with safe defaults; tests shorten them. */
export interface KubernetesTuning {
  /** Timeout of each API call, and the most a request waits on the API server in all. Default 5000 ms. */
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
  /** The RoleBinding and Role informers' timings. */
  readonly informer?: InformerTuning
  readonly now?: () => number
}

/** Timings of the RoleBinding and Role informers (docs/kubernetes.md). */
export interface InformerTuning {
  /** Items per list page. Default 500. A page's answer may be at most 64 MiB (about 128 KiB an object at the default). */
  readonly pageSize?: number
  /** Asked of the server on each watch; it ends the watch after that long and we resume from the last version. Default 60. */
  readonly watchTimeoutSeconds?: number
  /** No watch event, bookmark or reconnect for this long → the watch is presumed stalled and restarted. Default: watch timeout + 60 s. */
  readonly staleAfterMs?: number
  /** Restart delays after an informer failure: doubling from `initial` up to `max`. Default 1 s → 30 s. */
  readonly restartBackoffMs?: { readonly initial: number, readonly max: number }
  /** After losing sync, the last synced view keeps serving this long; then direct lists (`outage_grace_seconds`). Default 60 s. */
  readonly staleGraceMs?: number
  /** Before the first sync, a direct list is reused this long. Default 1 s. */
  readonly directListTtlMs?: number
  /**
   * The most RoleBindings, and the most Roles, read from the namespace: a list or watch holding more
   * fails (503 for requests that need it) instead of taking memory without bound. Default 100,000.
   */
  readonly maxObjects?: number
}

/**
 * A cluster connection given in code instead of the detected one (docs/kubernetes.md,
 * "Programmatic use").
 */
export interface ClusterConnectionOption {
  /**
   * A `KubeConfig` of `@kubernetes/client-node`. Typed as an object here so that feast-authz's
   * declarations never pull client-node's types into an application that does not use them.
   */
  readonly kubeConfig: object
  /** `in-cluster`: the pod's service account; `kubeconfig`: a kubeconfig file. */
  readonly source: 'in-cluster' | 'kubeconfig'
  /** For startup logs: which file or which in-cluster endpoint (never a credential). */
  readonly description: string
}

/** Cluster connection and tuning, for kubernetes mode and for service-account tokens under oidc. */
export interface KubernetesOptions {
  /** The cluster connection; default: detected (in-cluster service account, `KUBECONFIG`, `~/.kube/config`). */
  readonly connection?: ClusterConnectionOption | undefined
  readonly env?: NodeJS.ProcessEnv | undefined
  /** The pod's service-account directory (namespace file). Default `/var/run/secrets/kubernetes.io/serviceaccount`. */
  readonly serviceAccountDir?: string | undefined
  readonly tuning?: KubernetesTuning | undefined
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 5000
/** Default of {@link InformerTuning.maxObjects}: five times the 20,000 bindings the scale test indexes in 15 MB. */
export const DEFAULT_MAX_OBJECTS = 100_000

/** Largest cache of reviewed or rejected tokens accepted: beyond it a cache is effectively unbounded. */
const MAX_CACHED_TOKENS = 10_000_000

/** The rules of {@link InformerTuning}, checked by `checkOptions` (src/base/option-rules.ts). */
export const INFORMER_TUNING_RULES: OptionRules = {
  pageSize: integer(1, 100_000),
  // The API server takes whole seconds; a day is far beyond any server's own watch limit.
  watchTimeoutSeconds: integer(1, 86_400),
  staleAfterMs: milliseconds(1),
  restartBackoffMs: object(
    { initial: required(milliseconds(0)), max: required(milliseconds(0)) },
    { expected: 'a backoff whose initial is at most its max', accepts: (value) => (value.initial as number) <= (value.max as number) }
  ),
  staleGraceMs: milliseconds(0),
  directListTtlMs: milliseconds(0),
  maxObjects: integer(1, 10_000_000),
  watch: retired('a manager always watches RoleBindings and Roles, so that its view stays current; there is no switch to turn it off')
}

/** The rules of {@link KubernetesTuning}. */
export const KUBERNETES_TUNING_RULES: OptionRules = {
  requestTimeoutMs: milliseconds(1),
  failureCacheMs: milliseconds(0),
  maxCachedTokens: integer(0, MAX_CACHED_TOKENS),
  maxCachedRejections: integer(0, MAX_CACHED_TOKENS),
  maxConcurrentReviews: integer(1, 1_000_000),
  informer: object(INFORMER_TUNING_RULES),
  now: func()
}

/** The rules of {@link KubernetesOptions}. */
export const KUBERNETES_OPTION_RULES: OptionRules = {
  connection: object({
    kubeConfig: required(object()),
    source: required(oneOf('in-cluster', 'kubeconfig')),
    description: required(text())
  }),
  env: object(),
  serviceAccountDir: text({ nonEmpty: true }),
  tuning: object(KUBERNETES_TUNING_RULES)
}
