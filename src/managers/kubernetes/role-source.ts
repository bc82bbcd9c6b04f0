import type { KubeConfig } from '@kubernetes/client-node'
import type { AuthLogger } from '../../base/logging.ts'
import { createFailureReporter, type ApiOperation, type ApiTarget } from './api-failure.ts'
import { callApi } from './api-request.ts'
import { createSupervisor } from './informer-supervisor.ts'
import { runInformer, type Informer, type InformerSink } from './namespaced-informer.ts'
import { listAllPages, type PageFetcher } from './paged-list.ts'
import { readListPage, ROLE_BINDINGS, ROLES, type ObjectMeta, type RbacCollection, type RoleBindingObject } from './rbac-objects.ts'
import { createRoleIndex, slimBinding, slimRole, type RoleIndex, type RolePolicy, type RoleView, type SlimBinding, type SlimRole } from './role-index.ts'
import { withSharedAgent } from './shared-agent.ts'
import { DEFAULT_MAX_OBJECTS, type InformerTuning } from './tuning.ts'

export interface RoleSourceOptions extends InformerTuning {
  readonly logger: AuthLogger
  /**
   * false: never start the informers; the roles come from direct lists only (each reused for
   * `directListTtlMs`), and {@link RoleSource.status} never reports them synced. For the one-shot
   * commands only (see `oneShot` of the kubernetes manager). Default true.
   */
  readonly watch?: boolean | undefined
  /** The service namespace: only its RoleBindings and Roles are read. */
  readonly namespace: string
  /** Which bindings grant Feast roles. Default: marked Roles only. */
  readonly policy?: RolePolicy | undefined
  /** The API server and the caller, for failures; `timeoutMs` bounds each list page and the wait for a watch's response headers. */
  readonly target: ApiTarget
  readonly now?: () => number
}

export interface RoleSourceStatus {
  readonly synced: boolean
  readonly bindings: number
  readonly roles: number
  readonly restarts: number
  readonly lastSyncAt: string | undefined
}

/** The Feast roles granted in the service namespace, kept current by informers. */
export interface RoleSource {
  /** Starts the informers (idempotent, returns at once; nothing when `watch` is false). */
  start (): void
  /** Resolves once the first attempt has synced or failed. Never rejects. */
  settled (): Promise<void>
  /**
   * The roles as they answer right now without I/O (synced, or within the grace period after
   * losing sync), else undefined (then {@link view} lists them).
   */
  viewNow (): RoleView | undefined
  /** The roles, listing RoleBindings and Roles directly when the informers cannot answer; rejects with a 503 AuthError when they cannot be read. */
  view (): Promise<RoleView>
  status (): RoleSourceStatus
  /** The live index (for tests and health). */
  readonly index: RoleIndex
  /** The direct list {@link view} makes, and the permission it needs. */
  readonly listing: ApiOperation
  stop (): Promise<void>
}

/**
 * Largest list page read. 500 RoleBindings as `kubectl apply` leaves them are about 1 MB; this
 * leaves 128 KiB for each, and a longer answer is refused (503), never buffered.
 */
const MAX_PAGE_BYTES = 64 * 1024 * 1024

const PERMISSION = (namespace: string): string => `get, list and watch rolebindings and roles (rbac.authorization.k8s.io) in namespace ${namespace}`
const DEFAULT_POLICY: RolePolicy = { allowRulelessRoles: false, clusterRoles: [] }

/**
 * RoleBindings and Roles of the service namespace: paged lists then watches (one attempt
 * runs both), kept as slim copies in one index updated per event, restarted by a supervisor.
 * Until the first sync, and when sync was lost for longer than the grace period, direct lists
 * answer, so a request never sees an empty or unbounded-stale view.
 */
export function createRoleSource (kubeConfig: KubeConfig, options: RoleSourceOptions): RoleSource {
  const { logger, namespace } = options
  const now = options.now ?? Date.now
  const policy = options.policy ?? DEFAULT_POLICY
  // A watch the server ends every minute is a sign of life every minute, so the watchdog can
  // presume a silent one stalled after two (a half-open connection sends nothing for ever); each
  // end costs one watch request, resumed from the last version, never a relist.
  const watchTimeoutSeconds = options.watchTimeoutSeconds ?? 60
  const staleGraceMs = options.staleGraceMs ?? 60_000
  const directListTtlMs = options.directListTtlMs ?? 1000
  const permission = PERMISSION(namespace)
  const maxObjects = options.maxObjects ?? DEFAULT_MAX_OBJECTS
  const shared = withSharedAgent(kubeConfig)
  const { target } = options
  const report = createFailureReporter(logger, target)
  const listing: ApiOperation = { action: `list RoleBindings and Roles in namespace ${namespace}`, permission }
  const base = `/apis/rbac.authorization.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}`
  const pathOf = (collection: RbacCollection<{ readonly metadata: ObjectMeta }>): string => `${base}/${collection.resource}`
  /** Pages of `collection`, each read as the API defines it (rbac-objects.ts): anything else fails the list. */
  const pagesOf = <T extends { readonly metadata: ObjectMeta }>(collection: RbacCollection<T>): PageFetcher<T> => async (limit, token, signal) => readListPage(
    await callApi(shared, { path: pathOf(collection), query: { limit, continue: token }, timeoutMs: target.timeoutMs, maxBytes: MAX_PAGE_BYTES, signal }),
    collection,
    namespace
  )
  const fetchBindings = pagesOf(ROLE_BINDINGS)
  const fetchRoles = pagesOf(ROLES)
  const keepBinding = (binding: RoleBindingObject): SlimBinding | undefined => slimBinding(binding, namespace)

  const index = createRoleIndex(policy)
  const bindingSink: InformerSink<SlimBinding | undefined> = {
    replace: (items) => { index.replaceBindings(definedOnly(items)) },
    put: (name, binding) => { index.putBinding(name, binding) },
    remove: (name) => { index.deleteBinding(name) },
    size: () => index.bindingCount
  }
  const roleSink: InformerSink<SlimRole> = {
    replace: (items) => { index.replaceRoles(items) },
    put: (name, role) => { index.putRole(name, role) },
    remove: (name) => { index.deleteRole(name) },
    size: () => index.roleCount
  }

  const supervisor = createSupervisor({
    logger,
    what: 'RoleBinding and Role informer',
    permission,
    caller: target.caller,
    staleAfterMs: options.staleAfterMs ?? (watchTimeoutSeconds + 60) * 1000,
    backoff: options.restartBackoffMs ?? { initial: 1000, max: 30_000 },
    now,
    onSynced: () => {
      logger.info({ namespace, bindings: index.bindingCount, roles: index.roleCount }, 'RoleBinding and Role informers synced')
      explainOnce(index)
    },
    launch (hooks) {
      // Both informers of one attempt; it has synced when both have listed.
      const activity = { bindings: now(), roles: now() }
      const listed = { bindings: false, roles: false }
      const onSynced = (which: 'bindings' | 'roles'): void => {
        listed[which] = true
        if (listed.bindings && listed.roles) hooks.synced()
      }
      const guard = <K>(sink: InformerSink<K>): InformerSink<K> => ({
        replace: (items) => { if (hooks.current()) sink.replace(items) },
        put: (name, item) => { if (hooks.current()) sink.put(name, item) },
        remove: (name) => { if (hooks.current()) sink.remove(name) },
        size: sink.size
      })
      const informer = <T extends { readonly metadata: ObjectMeta }, K>(which: 'bindings' | 'roles', collection: RbacCollection<T>, fetchPage: PageFetcher<T>, keep: (item: T) => K, sink: InformerSink<K>): Informer => runInformer({
        namespace,
        watchConfig: kubeConfig,
        headerTimeoutMs: target.timeoutMs,
        watchTimeoutSeconds,
        pageSize: options.pageSize,
        maxObjects,
        collection,
        path: pathOf(collection),
        fetchPage,
        keep,
        sink: guard(sink),
        onActivity: () => { activity[which] = now() },
        onSynced: () => { onSynced(which) }
      })
      const bindings = informer('bindings', ROLE_BINDINGS, fetchBindings, keepBinding, bindingSink)
      const roles = informer('roles', ROLES, fetchRoles, slimRole, roleSink)
      return {
        // The first to fail fails the attempt; the other is stopped with it.
        done: Promise.all([bindings.done, roles.done]).then(() => {}),
        // The quieter of the two: a stalled Role watch is noticed even while bindings change.
        lastActivity: () => Math.min(activity.bindings, activity.roles),
        stop () {
          bindings.stop()
          roles.stop()
        }
      }
    }
  })

  let explained = false
  /** One notice per process about bindings that grant nothing, and about the compatibility setting. */
  const explainOnce = (view: RoleIndex): void => {
    if (explained) return
    explained = true
    const unused = view.unusedBindings()
    if (unused.unmarkedRoles.length > 0) {
      logger.warn({ roles: unused.unmarkedRoles.slice(0, 20) }, `RoleBindings in namespace ${namespace} refer to Roles without the Feast marker rule (${unused.unmarkedRoles.length}): they grant no Feast role. Re-apply the Roles rendered by \`feast-authz operator render\`, or set auth.allow_ruleless_roles: true to accept Feast-operator Roles that have no rules (see docs/kubernetes.md#feast-roles-and-the-marker-rule)`)
    }
    if (policy.allowRulelessRoles) {
      logger.warn({}, `auth.allow_ruleless_roles is true: anyone who may create RoleBindings in namespace ${namespace} can give themselves any Feast role whose Role has no rules`)
    }
    if (unused.missingRoles.length > 0) {
      logger.info({ roles: unused.missingRoles.slice(0, 20) }, `RoleBindings in namespace ${namespace} refer to Roles that do not exist (${unused.missingRoles.length}): they grant nothing`)
    }
    if (unused.clusterRoles.length > 0) {
      logger.info({ clusterRoles: unused.clusterRoles.slice(0, 20) }, 'RoleBindings of the service namespace refer to ClusterRoles not listed in auth.cluster_roles: they grant no Feast role (see docs/kubernetes.md)')
    }
  }

  let direct: { view: RoleView, expiresAt: number } | undefined
  let directPending: Promise<RoleView> | undefined
  // Ends a direct list under way at stop(): it may take many pages, and nothing waits for it then.
  const stopping = new AbortController()
  const directView = async (): Promise<RoleView> => {
    if (direct !== undefined && direct.expiresAt > now()) return direct.view
    directPending ??= (async () => {
      try {
        const fresh = createRoleIndex(policy)
        // When one list fails, the other is of no use: it stops too, instead of paging on unwatched.
        const abandon = new AbortController()
        const paging = { pageSize: options.pageSize, maxItems: maxObjects, signal: AbortSignal.any([stopping.signal, abandon.signal]) }
        const orAbandon = <R>(listing: Promise<R>): Promise<R> => listing.catch((error: unknown) => { abandon.abort(); throw error })
        const [bindings, roles] = await Promise.all([
          orAbandon(listAllPages(fetchBindings, (binding) => [binding.metadata.name, keepBinding(binding)] as const, paging)),
          orAbandon(listAllPages(fetchRoles, (role) => [role.metadata.name, slimRole(role)] as const, paging))
        ])
        fresh.replaceBindings(definedOnly(new Map(bindings.items)))
        fresh.replaceRoles(new Map(roles.items))
        explainOnce(fresh)
        direct = { view: fresh, expiresAt: now() + directListTtlMs }
        return fresh
      } catch (error) {
        throw report(error, listing)
      } finally {
        directPending = undefined
      }
    })()
    return await directPending
  }

  const viewNow = (): RoleView | undefined => {
    if (supervisor.synced()) return index
    // The grace period only covers a view that was once complete: never an index still empty.
    const lost = supervisor.lostSyncAt()
    if (supervisor.lastSyncAt() !== undefined && lost !== undefined && now() - lost < staleGraceMs) return index
    return undefined
  }

  const watch = options.watch ?? true
  return {
    start: watch ? supervisor.start : () => {},
    settled: watch ? supervisor.settled : async () => {},
    viewNow,
    view: async () => viewNow() ?? await directView(),
    index,
    listing,
    status () {
      const synced = supervisor.synced()
      const lastSyncAt = supervisor.lastSyncAt()
      return {
        synced,
        bindings: synced ? index.bindingCount : 0,
        roles: synced ? index.roleCount : 0,
        restarts: supervisor.restarts(),
        lastSyncAt: lastSyncAt === undefined ? undefined : new Date(lastSyncAt).toISOString()
      }
    },
    async stop () {
      stopping.abort()
      await supervisor.stop()
      await directPending?.catch(() => {})
    }
  }
}

function definedOnly<K> (items: ReadonlyMap<string, K | undefined>): Map<string, K> {
  const result = new Map<string, K>()
  for (const [name, item] of items) if (item !== undefined) result.set(name, item)
  return result
}
