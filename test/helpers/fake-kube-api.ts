/**
 * A strict fake Kubernetes API server for tests: HTTPS on 127.0.0.1 with its own CA, driven
 * through the real `@kubernetes/client-node` client (or real `kubectl`) via a kubeconfig it
 * writes. It refuses what a real API server refuses; a test that passes only because the
 * double is lenient is a defect.
 *
 * ```ts
 * const api = await startFakeKubeApi({ namespace: 'feast' })
 * api.addToken('alice-token', { username: 'system:serviceaccount:apps:alice', groups: ['system:serviceaccounts', 'system:serviceaccounts:apps'] })
 * api.putRole(feastRole('feast', 'reader'))
 * api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
 * const kc = api.kubeConfig()            // or KUBECONFIG=api.kubeconfigPath for a child process
 * api.calls.tokenReviews                 // how many TokenReviews it received
 * api.calls.tlsHandshakes                // how many TLS connections were opened
 * api.setFault('tokenreviews', { status: 403 })
 * await api.stop(); await api.start()    // connections refused while stopped
 * await api.close()                      // in after()
 * const strict = await startFakeKubeApi({ authorizer: 'rbac' })  // permissions from RBAC objects only
 * strict.putClusterRoleBinding(clusterRoleBinding('review', 'feast-authz-token-review', [{ kind: 'ServiceAccount', name: 'feast', namespace: 'feast' }]))
 * ```
 *
 * Served (everything else is 404 with a `Status` body), as kube-apiserver serves it:
 * - discovery: `GET /api`, `/api/v1`, `/apis`, `/apis/<group>/v1`, `/version` (enough for kubectl);
 *   no OpenAPI documents, so kubectl needs `--validate=false` to write (the server validates);
 * - `POST /apis/authentication.k8s.io/v1/tokenreviews`: the body must decode as an
 *   `authentication.k8s.io/v1` TokenReview (400 otherwise; apiVersion and kind default when
 *   absent; a non-JSON Content-Type is a 415) with a non-empty `spec.token` (400), which is read
 *   as the header `Bearer <token>` is (only what precedes a space counts); registered tokens
 *   authenticate when their audiences intersect `spec.audiences` (or, when the request names none,
 *   the API server's own audience), `status.audiences` is that intersection; a JWT-shaped token
 *   past its `exp` or before its `nbf` is refused; service-account tokens carry
 *   `status.user.extra` (pod name and uid, credential id); an audience-unaware authenticator (a
 *   webhook) that answers with other audiences than requested makes the review a 500 "error
 *   validating audiences";
 * - `GET .../namespaces/<ns>/rolebindings` and `.../roles` (`rbac.authorization.k8s.io/v1`): lists
 *   with `metadata.resourceVersion`, in key order, paged with `limit`/`continue` (etcd's token:
 *   the rest at the first page's version; from before the last {@link FakeKubeApi.compact}, a 410
 *   whose Status carries a token continuing at the latest version), `resourceVersion` with
 *   `resourceVersionMatch` (Exact: that version, 410 once compacted; NotOlderThan: waits up to
 *   3 s, then 504), ListOptions validated (422), GET by name, and `?watch=true` streams (any
 *   value but `0`/`false` is true): from `resourceVersion` 0 or unset, synthetic `ADDED` events for
 *   the current state (no history); from a version, the events after it (a future version is no
 *   error, the watch waits for it; not a number: 422); older than the last compaction: one `ERROR`
 *   410 event; `resourceVersionMatch`/`sendInitialEvents` refused (422, WatchList off as in 1.33);
 *   `BOOKMARK`s only when `allowWatchBookmarks=true`, always newer than the last event, never at
 *   watch start, then every `bookmarkIntervalMs` (about a minute on a real server) and 2 s before
 *   the timeout; closed after `timeoutSeconds`, or 1 to 2 times `minRequestTimeoutSeconds`.
 * - the same (lists, GET by name, watches, writes) for the cluster-scoped
 *   `/apis/rbac.authorization.k8s.io/v1/clusterroles[/<name>]` and `clusterrolebindings`, and for
 *   `/api/v1/namespaces/<ns>/serviceaccounts[/<name>]` (stored only: no token controller, so a
 *   manifest with its ServiceAccount applies as on a real cluster);
 * - `POST`, `PUT`, `PATCH` (merge, strategic merge, JSON patch; not server-side apply) and
 *   `DELETE` of those objects: 201/200, 409 AlreadyExists or Conflict
 *   (stale resourceVersion), 404, 400 for a mismatched name or namespace or (fieldValidation=Strict)
 *   an unknown field, DELETE's Success Status; nothing is created in a namespace that does not
 *   exist; a cluster-scoped object's namespace is cleared;
 * - RBAC objects, written over HTTP or with {@link FakeKubeApi.putRoleBinding} /
 *   {@link FakeKubeApi.putRole} / {@link FakeKubeApi.putClusterRole} /
 *   {@link FakeKubeApi.putClusterRoleBinding}, get the rbac/v1 defaults (an empty `apiGroup` of
 *   roleRef and of User and Group subjects) and the real validation (a 422 `Invalid` Status, thrown
 *   as {@link FakeInvalidError} by the helpers): names are path segments, a Role's or RoleBinding's
 *   namespace a DNS label (the helpers create it), subjects' kinds and apiGroups, a ServiceAccount's
 *   name a DNS subdomain (and, in a ClusterRoleBinding, its namespace required), rules with verbs,
 *   apiGroups and resources (non-resource URLs in ClusterRoles only), a ClusterRoleBinding refers
 *   to a ClusterRole; `roleRef` cannot change (delete the binding and
 *   create it again); an update that changes nothing writes nothing (no new version, no event);
 * - RBAC writes over HTTP by anyone outside `system:masters` pass the escalation check first
 *   (kubernetes pkg/registry/rbac/.../policybased, before validation): a Role or ClusterRole may
 *   grant only what its writer holds there (or they may `escalate` it); a binding may refer only to
 *   a role whose every permission its writer holds (or they may `bind` it), so anyone who may
 *   create RoleBindings can bind a Role with no rules; a refusal is the real 403 listing the
 *   permissions not held, a binding to a role that does not exist a 404;
 * - `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews` (what `kubectl auth can-i` asks,
 *   JSON or kubectl's protobuf): decided as the caller's own requests would be; any authenticated
 *   user may ask (`system:basic-user`);
 * - `GET /api/v1/namespaces[/<name>]`: a new cluster's namespaces, the service's, and every one an
 *   object was put in;
 * - `labelSelector` and `fieldSelector` (`metadata.name`, `metadata.namespace` only; others 400) on
 *   lists and watches, and a watch of one object by its path: a watch sees an object that starts
 *   matching as ADDED and one that stops matching as DELETED.
 *
 * Callers are authenticated and authorized as kube-apiserver does it: `Authorization: Bearer
 * <serviceToken>` (the service's own credential, written into the kubeconfig) is the service
 * account `system:serviceaccount:<namespace>:feast`; {@link FakeKubeApi.adminToken} is in
 * `system:masters` (allowed everything); a token registered with {@link FakeKubeApi.addToken} is
 * its identity (plus `system:authenticated`) when it is valid for the API server's audience; any
 * other token is a 401 `Unauthorized`; a request without credentials is `system:anonymous`. Who
 * holds what depends on the authorizer chosen at start:
 * - `grants` (the default): the service account holds what docs/kubernetes.md grants it
 *   (`create tokenreviews` cluster-wide; `get`, `list`, `watch` of rolebindings and roles in its
 *   own namespace; see {@link FakeKubeApi.revoke} and {@link FakeKubeApi.grant}); anyone else nothing;
 * - `rbac` (`startFakeKubeApi({ authorizer: 'rbac' })`): everyone outside `system:masters`, the
 *   service account included, holds exactly what the stored RBAC objects give them, decided as
 *   kube-apiserver's RBAC authorizer does (fake-kube-rbac.ts): the ClusterRoleBindings and the
 *   request namespace's RoleBindings whose subjects match (a User by name; a Group among the
 *   caller's groups, e.g. `system:serviceaccounts[:<ns>]` or `system:authenticated`; a
 *   ServiceAccount by namespace, the binding's by default, and name), with the rules of the Role or
 *   ClusterRole they refer to (a RoleBinding to a ClusterRole grants it in its namespace only):
 *   verbs, apiGroups, resources and resourceNames, `*` wildcards; a list or watch whose field
 *   selector requires one `metadata.name` is authorized for that name.
 * A request its caller may not make is a 403 `Forbidden` naming the verb, resource and namespace.
 * Discovery is open to authenticated users and `/version` to anyone, as the bootstrap roles
 * `system:discovery` and `system:public-info-viewer` make it (not RBAC objects of the double).
 *
 * Lies, opt-in per test ({@link FakeLie} through {@link FakeKubeApi.setFault},
 * {@link FakeKubeApi.injectWatch}, {@link FakeKubeApi.floodWatch}): answers no real server gives
 * (a rewritten TokenReview or list, a body of many megabytes or one that never ends, a redirect,
 * continue tokens without end, watch lines that are not events), for tests of a client facing a
 * broken server or something in the middle. Without them the double refuses and answers as above.
 *
 * Not emulated (a test needing one must add it, not assume it): OpenAPI, server-side apply, YAML
 * and protobuf bodies (but the one SelfSubjectAccessReview) and Accept negotiation (always JSON;
 * no server-side Tables), other resources than these (no Secrets, no Pods, no TokenRequest: a
 * test registers a service account's token with {@link FakeKubeApi.addToken}), the bootstrap
 * ClusterRoles (`cluster-admin`, `admin`, `edit`, `view`...: a test puts the ones it needs),
 * ClusterRole aggregation (`aggregationRule` is an unknown field), non-resource URL rules in
 * authorization (stored and validated only), the escalation check's exemption of updates that
 * touch only `ownerReferences`/`finalizers`, the watch cache's bounded history (only
 * {@link FakeKubeApi.compact} makes a version too old).
 */
import { execFile } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import https from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join, posix } from 'node:path'
import { promisify } from 'node:util'
import { KubeConfig } from '@kubernetes/client-node'
import { feastRoleMarker } from '../../src/base/feast-role-marker.ts'
import { escalationReason, roleRefRules, ruleAllows, rulesFor, uncovered, type Binding, type PolicyRule, type RbacObjects, type ResourceAttributes } from './fake-kube-rbac.ts'

/** The API server's own audience, as a default kube-apiserver has it. */
export const API_SERVER_AUDIENCE = 'https://kubernetes.default.svc'

export interface FakeIdentity {
  readonly username: string
  readonly uid?: string
  readonly groups?: readonly string[]
  /** Audiences the token was issued for. Default: the JWT's `aud` claim, else the API server's own. */
  readonly audiences?: readonly string[]
  /** For service-account tokens: the pod the token was bound to (reported in `status.user.extra`). */
  readonly pod?: { readonly name: string, readonly uid: string }
  /**
   * The token is authenticated by an audience-unaware webhook that reports these audiences:
   * when a review names other audiences, the real server answers 500 "error validating audiences".
   */
  readonly webhookAudiences?: readonly string[]
}

export interface RoleBindingSubject {
  readonly kind: 'ServiceAccount' | 'User' | 'Group'
  readonly name: string
  readonly namespace?: string
  readonly apiGroup?: string
}

/** Metadata as the double stores it (plus whatever a test sets). */
export interface ObjectMetaJson {
  name: string
  namespace: string
  resourceVersion?: string
  uid?: string
  creationTimestamp?: string
  labels?: Record<string, string>
  annotations?: Record<string, string>
  managedFields?: unknown[]
}

/** The JSON shape of an `rbac.authorization.k8s.io/v1` RoleBinding. */
export interface RoleBindingJson {
  apiVersion?: string
  kind?: string
  metadata: ObjectMetaJson
  roleRef: { apiGroup: string, kind: 'Role' | 'ClusterRole', name: string }
  subjects?: RoleBindingSubject[]
}

/** A `PolicyRule` of a Role. */
export interface PolicyRuleJson {
  apiGroups?: string[]
  resources?: string[]
  resourceNames?: string[]
  verbs: string[]
  nonResourceURLs?: string[]
}

/** The JSON shape of an `rbac.authorization.k8s.io/v1` Role. */
export interface RoleJson {
  apiVersion?: string
  kind?: string
  metadata: ObjectMetaJson
  rules?: PolicyRuleJson[]
}

/** Metadata of a cluster-scoped object: a namespace, if any, is cleared when it is written. */
export type ClusterObjectMetaJson = Omit<ObjectMetaJson, 'namespace'> & { namespace?: string }

/** The JSON shape of an `rbac.authorization.k8s.io/v1` ClusterRole (no `aggregationRule`: not emulated). */
export interface ClusterRoleJson {
  apiVersion?: string
  kind?: string
  metadata: ClusterObjectMetaJson
  rules?: PolicyRuleJson[]
}

/** The JSON shape of an `rbac.authorization.k8s.io/v1` ClusterRoleBinding. */
export interface ClusterRoleBindingJson {
  apiVersion?: string
  kind?: string
  metadata: ClusterObjectMetaJson
  roleRef: { apiGroup: string, kind: 'ClusterRole', name: string }
  subjects?: RoleBindingSubject[]
}

/** The JSON shape of a core `v1` ServiceAccount (stored, nothing more: no token controller). */
export interface ServiceAccountJson {
  apiVersion?: string
  kind?: string
  metadata: ObjectMetaJson
  automountServiceAccountToken?: boolean
  secrets?: Array<Record<string, unknown>>
  imagePullSecrets?: Array<Record<string, unknown>>
}

/** A collection the double stores: RBAC objects and ServiceAccounts. */
export type FakeKind = 'rolebindings' | 'roles' | 'clusterrolebindings' | 'clusterroles' | 'serviceaccounts'
export type FakeEndpoint = 'tokenreviews' | FakeKind | 'all'
/** A resource the double serves. */
export type FakeResource = 'tokenreviews' | 'namespaces' | FakeKind
/** An RBAC verb of a resource request. */
export type FakeVerb = 'create' | 'get' | 'list' | 'watch' | 'update' | 'patch' | 'delete' | 'deletecollection'
/**
 * A fault in front of an endpoint: an HTTP error status with the `Status` body and reason the API
 * server gives that code (a 403 names the verb; a 429 is API Priority and Fairness's plain-text
 * answer with `Retry-After`), a delay before the real answer, a reset
 * connection; on watch requests only, `gone` (HTTP 410), `stall` (200 and then silence: no event,
 * no bookmark, never closed), `hang` (no response at all) or `flap` (200 and an immediate end,
 * every time). The others are {@link FakeLie}s.
 */
export type FakeFault = { readonly status: number } | { readonly delayMs: number } | 'reset' | 'gone' | 'stall' | 'hang' | 'flap' | FakeLie

/**
 * An answer a real API server never gives, for tests of a client facing a broken server, a buggy
 * proxy or aggregated API (opt-in, per test: without it the double stays as strict as a real one).
 * On TokenReviews, lists and GETs (never watches; see {@link FakeKubeApi.injectWatch}), after the
 * real handler has answered:
 * - `rewrite`: the successful (2xx) JSON answer is replaced by what the function returns (a string
 *   is sent as the body as it is, e.g. invalid JSON), status and headers kept;
 * - `padding`: the successful answer gets a first field `padding` of that many bytes (valid JSON,
 *   a body of many megabytes), streamed with backpressure while the client keeps reading;
 * - `dripMs`: the successful answer is sent one byte every `dripMs`, then spaces (which JSON
 *   allows after a document) for ever: a body that never ends;
 * - `redirect`: a 307 to that URL instead of any answer, as a misbehaving proxy could send;
 * - `endlessContinue` (lists only): every page is the first page, with a continue token that is
 *   the same for ever (`same`) or new each time (`new`).
 */
export type FakeLie =
  | { readonly rewrite: (answer: Record<string, unknown>, query: URLSearchParams) => unknown }
  | { readonly padding: number }
  | { readonly dripMs: number }
  | { readonly redirect: string }
  | { readonly endlessContinue: 'same' | 'new' }
/** The lies told by changing a real answer. */
type AnswerLie = Extract<FakeLie, { rewrite: unknown } | { padding: number } | { dripMs: number }>

export interface FakeKubeApiCalls {
  tokenReviews: number
  roleBindingLists: number
  roleBindingWatches: number
  roleLists: number
  roleWatches: number
  /** GET of one object by name. */
  gets: number
  /** Discovery requests (`/api`, `/apis`, ...). */
  discovery: number
  /** Requests refused with 401: a bearer token the API server does not know. */
  unauthorized: number
  /** Requests refused with 403: the (authenticated or anonymous) caller lacks the permission. */
  forbidden: number
  /** TLS connections the server accepted. */
  tlsHandshakes: number
  /** Bytes of padding written so far (lie `padding`): how much of a huge answer the client read. */
  paddingBytesSent: number
}

type Kind = FakeKind
const CALL_COUNTERS: ReadonlyArray<keyof FakeKubeApiCalls> = [
  'tokenReviews', 'roleBindingLists', 'roleBindingWatches', 'roleLists', 'roleWatches', 'gets', 'discovery', 'unauthorized', 'forbidden', 'tlsHandshakes', 'paddingBytesSent'
]

export interface FakeKubeApi {
  /** `https://127.0.0.1:<port>` */
  readonly url: string
  /** The CA certificate (PEM) that signed the server certificate. */
  readonly caPem: string
  /** The bearer token the service must present (written into the kubeconfig). */
  readonly serviceToken: string
  /** Who {@link serviceToken} authenticates as: `system:serviceaccount:<namespace>:feast`. */
  readonly serviceAccountUsername: string
  /** A token in group `system:masters` (a cluster admin): every request is allowed, e.g. kubectl writes. */
  readonly adminToken: string
  /** A kubeconfig file (server URL, CA data, token, context namespace) for `KUBECONFIG`. */
  readonly kubeconfigPath: string
  /** A temp directory removed by `close()`, for other files a test writes. */
  readonly dir: string
  readonly calls: FakeKubeApiCalls
  /** A fresh `KubeConfig` loaded from {@link kubeconfigPath}. */
  kubeConfig (): KubeConfig
  /** Writes another kubeconfig (other token, context namespace) and returns its path. */
  writeKubeconfig (options: { name: string, token?: string, namespace?: string | null }): Promise<string>
  addToken (token: string, identity: FakeIdentity): void
  removeToken (token: string): void
  /**
   * Creates or replaces a binding, as `kubectl apply` would (creating its namespace if need be);
   * watchers get `ADDED` or `MODIFIED` (nothing when it is unchanged). Returns the stored object.
   * Throws {@link FakeInvalidError} (the 422 a real server answers) when the binding is invalid
   * (its namespace too: a DNS label, as a namespace's name must be) or would change the `roleRef`
   * of an existing one.
   */
  putRoleBinding (binding: RoleBindingJson): RoleBindingJson
  /** Deletes a binding; watchers get `DELETED`. */
  deleteRoleBinding (namespace: string, name: string): void
  /** Creates or replaces a Role, as {@link putRoleBinding} does a binding (validated: a rule needs verbs, apiGroups and resources). */
  putRole (role: RoleJson): RoleJson
  deleteRole (namespace: string, name: string): void
  /** Creates or replaces a ClusterRole, as {@link putRole} does a Role (its rules may also name non-resource URLs). */
  putClusterRole (role: ClusterRoleJson): ClusterRoleJson
  deleteClusterRole (name: string): void
  /** Creates or replaces a ClusterRoleBinding (to a ClusterRole; a ServiceAccount subject must name its namespace). */
  putClusterRoleBinding (binding: ClusterRoleBindingJson): ClusterRoleBindingJson
  deleteClusterRoleBinding (name: string): void
  /** Sends a `BOOKMARK` to every bookmark-enabled watch now. */
  bookmark (): void
  /**
   * Forgets history, as an etcd compaction: lists and watches from an older `resourceVersion`
   * get 410; open watches end with the ERROR 410 an etcd watch gets when it falls behind one.
   */
  compact (): void
  /** Ends every open watch with an `ERROR` event carrying this status (e.g. 500), as a real server can. */
  watchError (code: number, reason?: string): void
  /**
   * Takes a permission away from the service account, as editing its Role or ClusterRole
   * would: requests that need it get the 403 `Forbidden` a real server answers. Without a
   * namespace, in every namespace.
   */
  revoke (verb: FakeVerb, resource: FakeResource, namespace?: string): void
  /** Gives the service account a permission; without a namespace, cluster-wide (as a ClusterRoleBinding). */
  grant (verb: FakeVerb, resource: FakeResource, namespace?: string): void
  /** Sets (or clears, with `undefined`) a fault for one endpoint or all. */
  setFault (endpoint: FakeEndpoint, fault: FakeFault | undefined): void
  /**
   * Writes `text` as it is (no newline added) into every open watch of `kind`: a line that is not
   * JSON, an event of another kind or namespace, a BOOKMARK without a version... what a real server
   * never sends. Returns how many watches it was written to.
   */
  injectWatch (kind: Kind, text: string): number
  /**
   * Writes one line of `bytes` bytes with no newline into every open watch of `kind`, a MiB at a
   * time with backpressure, for as long as the watch stays open. Resolves with the bytes written
   * to the watch that took the most (less than `bytes` when the client hung up first).
   */
  floodWatch (kind: Kind, bytes: number): Promise<number>
  /** Open watch streams right now (of one kind, or all). */
  openWatches (kind?: Kind): number
  /** Query parameters of the last watch request (`resourceVersion`, `allowWatchBookmarks`, `timeoutSeconds`...). */
  lastWatchQuery (kind?: Kind): Record<string, string> | undefined
  /** Query parameters of every list request of a kind since the last reset (paging). */
  listQueries (kind: Kind): ReadonlyArray<Record<string, string>>
  resetCalls (): void
  /** Stops listening and drops every connection: clients get ECONNREFUSED. */
  stop (): Promise<void>
  /** Listens again on the same port. */
  start (): Promise<void>
  /** Stops and removes the temp directory. */
  close (): Promise<void>
}

export interface FakeKubeApiOptions {
  /** Namespace of the kubeconfig context (`null`: none). Default `feast`. */
  readonly namespace?: string | null
  /** Bookmark interval for bookmark-enabled watches. Default 60 000 ms, as a real server. */
  readonly bookmarkIntervalMs?: number
  /**
   * kube-apiserver's `--min-request-timeout`: a watch that asks no `timeoutSeconds` is closed
   * after 1 to 2 times this. Default 1800 s, as a real server.
   */
  readonly minRequestTimeoutSeconds?: number
  /**
   * The service account's own namespace, where it may read RoleBindings and Roles. Default: the
   * kubeconfig namespace, else `feast`.
   */
  readonly serviceNamespace?: string
  /**
   * How callers other than a cluster admin are authorized. `grants` (default): the service
   * account holds the permissions docs/kubernetes.md gives it ({@link FakeKubeApi.grant},
   * {@link FakeKubeApi.revoke}), anyone else none. `rbac`: everyone, the service account
   * included, holds what the stored Roles, ClusterRoles and their bindings give them, as
   * kube-apiserver's RBAC authorizer decides; nobody holds anything until RBAC objects say so.
   */
  readonly authorizer?: 'grants' | 'rbac'
}

const RBAC_GROUP = 'rbac.authorization.k8s.io'

/** A ClusterRoleBinding binding `subjects` to the ClusterRole `role`. */
export function clusterRoleBinding (name: string, role: string, subjects: RoleBindingSubject[]): ClusterRoleBindingJson {
  return {
    metadata: { name },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects: subjects.map((subject) => subject.kind === 'ServiceAccount' ? { ...subject } : { apiGroup: RBAC_GROUP, ...subject })
  }
}

/** A RoleBinding in `namespace` binding `subjects` to the Role (or ClusterRole) `role`. */
export function roleBinding (namespace: string, name: string, role: string, subjects: RoleBindingSubject[], roleKind: 'Role' | 'ClusterRole' = 'Role'): RoleBindingJson {
  return {
    metadata: { name, namespace },
    roleRef: { apiGroup: RBAC_GROUP, kind: roleKind, name: role },
    subjects: subjects.map((subject) => subject.kind === 'ServiceAccount' ? { ...subject } : { apiGroup: RBAC_GROUP, ...subject })
  }
}

/** A Role as `operator render` emits it for a Feast role: with its marker rule. */
export function feastRole (namespace: string, role: string): RoleJson {
  return { metadata: { name: role, namespace }, rules: [{ ...feastRoleMarker(role) }] }
}

/** A Role with no rules, as Feast's own operator creates its roles. */
export function rulelessRole (namespace: string, role: string): RoleJson {
  return { metadata: { name: role, namespace }, rules: [] }
}

/** The username and groups the real API server gives a service account's token. */
export function serviceAccountIdentity (namespace: string, name: string, audiences?: readonly string[]): FakeIdentity {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    uid: `uid-${namespace}-${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    pod: { name: `${name}-7d9f8b6c5-x2x9z`, uid: randomUUID() },
    ...(audiences === undefined ? {} : { audiences })
  }
}

/**
 * A JWT-shaped service-account token (unsigned: only the fake API server knows it is valid),
 * carrying the `kubernetes.io` claim that the OIDC manager routes to TokenReview.
 */
export function serviceAccountJwt (namespace: string, name: string, options: { exp?: number, nbf?: number, aud?: string[] } = {}): string {
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'fake' })).toString('base64url')
  const payload = Buffer.from(JSON.stringify({
    iss: 'https://kubernetes.default.svc.cluster.local',
    sub: `system:serviceaccount:${namespace}:${name}`,
    aud: options.aud ?? [API_SERVER_AUDIENCE],
    exp: options.exp ?? Math.floor(Date.now() / 1000) + 3600,
    ...(options.nbf === undefined ? {} : { nbf: options.nbf }),
    'kubernetes.io': { namespace, serviceaccount: { name, uid: `uid-${namespace}-${name}` } },
    jti: randomBytes(8).toString('hex')
  })).toString('base64url')
  return `${header}.${payload}.${randomBytes(32).toString('base64url')}`
}

/**
 * A deterministic compact-JWS-shaped token named by `label`, for tests that only need
 * distinct tokens the fake API server recognises (`api.addToken(jwsToken('alice'), ...)`).
 * The manager refuses anything that is not a compact JWS before asking the cluster, as
 * every service-account token is a JWT. It carries no `exp` and no `kubernetes.io` claim.
 */
export function jwsToken (label: string): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  return `${part({ alg: 'RS256', kid: 'fake' })}.${part({ sub: label })}.${Buffer.from(`signature of ${label}`).toString('base64url')}`
}

interface TlsMaterial { caPem: string, certPem: string, keyPem: string }
let tlsMaterial: Promise<TlsMaterial> | undefined

/** One CA and server certificate per test process (openssl takes a moment per key). */
async function generateTls (): Promise<TlsMaterial> {
  const run = promisify(execFile)
  const dir = await mkdtemp(join(tmpdir(), 'fake-kube-tls-'))
  try {
    const at = (file: string): string => join(dir, file)
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
    await run('openssl', ['req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.crt'), '-days', '2', '-subj', '/CN=fake-kube-ca',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'])
    await run('openssl', ['req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=127.0.0.1'])
    await writeFile(at('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n')
    await run('openssl', ['x509', '-req', '-in', at('server.csr'), '-CA', at('ca.crt'), '-CAkey', at('ca.key'), '-CAcreateserial',
      '-out', at('server.crt'), '-days', '2', '-extfile', at('ext.cnf')])
    const [caPem, certPem, keyPem] = await Promise.all([at('ca.crt'), at('server.crt'), at('server.key')].map(async (file) => await readFile(file, 'utf8')))
    return { caPem: caPem!, certPem: certPem!, keyPem: keyPem! }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

type StoredObject = RoleBindingJson | RoleJson | ClusterRoleJson | ClusterRoleBindingJson | ServiceAccountJson
/** The namespace of a stored object: empty for a cluster-scoped one. */
const namespaceOf = (object: StoredObject): string => object.metadata.namespace ?? ''
interface WatchEvent {
  readonly kind: Kind
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'
  readonly object: StoredObject
  /** The object before the change (updates and deletions), for selectors. */
  readonly prev?: StoredObject | undefined
  readonly rv: number
}
interface Watcher {
  readonly kind: Kind
  readonly namespace: string
  readonly res: ServerResponse
  readonly bookmarks: boolean
  readonly timers: NodeJS.Timeout[]
  /** The version of the last event or bookmark sent (or the one the watch started from). */
  rv: number
  /** Which objects the watch is about (labelSelector, fieldSelector, a name in the path). */
  readonly selector: Selector
}

const AUTHENTICATION_GROUP = 'authentication.k8s.io'
const AUTHORIZATION_GROUP = 'authorization.k8s.io'
const DISCOVERY_GROUPS = [RBAC_GROUP, AUTHENTICATION_GROUP, AUTHORIZATION_GROUP]
const SELF_SUBJECT_ACCESS_REVIEWS = `/apis/${AUTHORIZATION_GROUP}/v1/selfsubjectaccessreviews`

/** Who made a request, once authenticated. */
interface Caller { readonly username: string, readonly groups: readonly string[] }
const ANONYMOUS: Caller = { username: 'system:anonymous', groups: ['system:unauthenticated'] }

type TokenVerdict =
  | { readonly kind: 'authenticated', readonly identity: FakeIdentity, readonly audiences: readonly string[], readonly jti?: unknown }
  | { readonly kind: 'rejected', readonly error: string }
  | { readonly kind: 'audience-error', readonly identity: FakeIdentity }

/**
 * The token of an `Authorization` header as kube-apiserver reads it
 * (apiserver pkg/authentication/request/bearertoken/bearertoken.go): trimmed, split on single
 * spaces into at most three parts, the second is the token; another scheme or an empty token
 * is no token at all (the request is then anonymous).
 */
function bearerToken (header: string | undefined): string | undefined {
  const trimmed = (header ?? '').trim()
  if (trimmed === '') return undefined
  const space = trimmed.indexOf(' ')
  if (space < 0 || trimmed.slice(0, space).toLowerCase() !== 'bearer') return undefined
  const rest = trimmed.slice(space + 1)
  const next = rest.indexOf(' ')
  const token = next < 0 ? rest : rest.slice(0, next)
  return token === '' ? undefined : token
}

/**
 * A boolean query parameter as the API server decodes it (apimachinery
 * pkg/runtime/conversion.go Convert_Slice_string_To_bool): absent, `0` or `false` (any case)
 * is false, anything else (even empty) is true.
 */
function queryBool (params: URLSearchParams, name: string): boolean {
  const value = params.get(name)
  return value !== null && value !== '0' && value.toLowerCase() !== 'false'
}

/** The RBAC verb of a request (apiserver pkg/endpoints/request/requestinfo.go). */
function requestVerb (method: string, byName: boolean, isWatch: boolean): FakeVerb {
  switch (method) {
    case 'POST': return 'create'
    case 'PUT': return 'update'
    case 'PATCH': return 'patch'
    case 'DELETE': return byName ? 'delete' : 'deletecollection'
    default: return isWatch ? 'watch' : byName ? 'get' : 'list'
  }
}

/** The authorization attributes of a resource request (apiserver pkg/endpoints/request/requestinfo.go). */
function resourceAttributes (verb: FakeVerb, resource: FakeResource, namespace: string, name: string | undefined): ResourceAttributes {
  return { verb, apiGroup: groupOfResource(resource), resource, name: name ?? '', namespace }
}

/**
 * The name a list or watch is authorized for: the one an exact `metadata.name` field selector
 * requires (requestinfo.go), so that a rule with `resourceNames` can allow it; else none.
 */
function selectedName (params: URLSearchParams): string | undefined {
  const terms = (params.get('fieldSelector') ?? '').split(',').map((term) => /^metadata\.name(?:==|=)([^,]*)$/.exec(term.trim())?.[1]).filter((value) => value !== undefined)
  const name = terms[0]
  return terms.length === 1 && name !== undefined && pathSegmentNameErrors(name).length === 0 && name !== '' ? name : undefined
}

const FLOW_SCHEMA_UID = randomUUID()
const PRIORITY_LEVEL_UID = randomUUID()
const REASON_FOR_CODE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout'
}
const NAMESPACE_PATH = /^\/api\/v1\/namespaces(?:\/([^/]+))?$/
const STARTED = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')
/** Paths of the stored collections: namespace (absent for cluster-scoped ones), kind, name. */
const RESOURCE_PATHS = [
  /^\/apis\/rbac\.authorization\.k8s\.io\/v1\/namespaces\/([a-z0-9-]+)\/(rolebindings|roles)(?:\/([^/]+))?$/,
  /^\/apis\/rbac\.authorization\.k8s\.io\/v1\/()(clusterrolebindings|clusterroles)(?:\/([^/]+))?$/,
  /^\/api\/v1\/namespaces\/([a-z0-9-]+)\/(serviceaccounts)(?:\/([^/]+))?$/
]
/** What the API server knows of each stored kind: its names, API group and scope. */
const KINDS: Record<Kind, { kind: string, list: string, singular: string, group: string, namespaced: boolean, fields: readonly string[] }> = {
  rolebindings: { kind: 'RoleBinding', list: 'RoleBindingList', singular: 'rolebinding', group: RBAC_GROUP, namespaced: true, fields: ['roleRef', 'subjects'] },
  roles: { kind: 'Role', list: 'RoleList', singular: 'role', group: RBAC_GROUP, namespaced: true, fields: ['rules'] },
  clusterrolebindings: { kind: 'ClusterRoleBinding', list: 'ClusterRoleBindingList', singular: 'clusterrolebinding', group: RBAC_GROUP, namespaced: false, fields: ['roleRef', 'subjects'] },
  clusterroles: { kind: 'ClusterRole', list: 'ClusterRoleList', singular: 'clusterrole', group: RBAC_GROUP, namespaced: false, fields: ['rules'] },
  serviceaccounts: { kind: 'ServiceAccount', list: 'ServiceAccountList', singular: 'serviceaccount', group: '', namespaced: true, fields: ['automountServiceAccountToken', 'secrets', 'imagePullSecrets'] }
}
const KIND_LIST = Object.keys(KINDS) as Kind[]
const isBindingKind = (kind: Kind): boolean => kind === 'rolebindings' || kind === 'clusterrolebindings'
const isRoleKind = (kind: Kind): boolean => kind === 'roles' || kind === 'clusterroles'
/** `apiVersion` of a kind: `rbac.authorization.k8s.io/v1`, or `v1` for the core group. */
const apiVersionOf = (kind: Kind): string => KINDS[kind].group === '' ? 'v1' : `${KINDS[kind].group}/v1`
/** A resource as API errors name it: `roles.rbac.authorization.k8s.io`, `serviceaccounts`. */
const qualifiedResource = (resource: string, group: string): string => group === '' ? resource : `${resource}.${group}`
/** The API group of a resource the double serves. */
const groupOfResource = (resource: FakeResource): string => resource === 'tokenreviews' ? AUTHENTICATION_GROUP : resource === 'namespaces' ? '' : KINDS[resource].group

export async function startFakeKubeApi (options: FakeKubeApiOptions = {}): Promise<FakeKubeApi> {
  tlsMaterial ??= generateTls()
  const tls = await tlsMaterial
  const dir = await mkdtemp(join(tmpdir(), 'fake-kube-api-'))
  const serviceToken = `svc-${randomBytes(16).toString('hex')}`
  const adminToken = `admin-${randomBytes(16).toString('hex')}`
  const serviceNamespace = options.serviceNamespace ?? options.namespace ?? 'feast'
  const serviceAccount: Caller = {
    username: `system:serviceaccount:${serviceNamespace}:feast`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${serviceNamespace}`, 'system:authenticated']
  }
  // The service account's grants as docs/kubernetes.md makes them, `verb resource namespace` ('*': cluster-wide).
  const grants = new Set<string>(['create tokenreviews *'])
  const namespaces = new Set<string>()
  const namespaceUids = new Map<string, string>()
  for (const verb of ['get', 'list', 'watch']) for (const kind of ['rolebindings', 'roles']) grants.add(`${verb} ${kind} ${serviceNamespace}`)
  for (const namespace of ['default', 'kube-system', 'kube-public', 'kube-node-lease', serviceNamespace, options.namespace ?? serviceNamespace]) addNamespace(namespace)
  const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000
  const minRequestTimeoutSeconds = options.minRequestTimeoutSeconds ?? 1800

  const rbacMode = options.authorizer === 'rbac'
  const tokens = new Map<string, FakeIdentity>()
  type PerKind<T> = Record<Kind, T>
  const perKind = <T>(make: () => T): PerKind<T> => Object.fromEntries(KIND_LIST.map((kind) => [kind, make()])) as PerKind<T>
  const emptyStores = (): PerKind<Map<string, StoredObject>> => perKind(() => new Map<string, StoredObject>())
  const stores = emptyStores() // key: ns/name (an empty ns for cluster-scoped objects)
  let history: WatchEvent[] = []
  let resourceVersion = 1000
  let compactedBefore = 0
  const watchers = new Set<Watcher>()
  let endlessPages = 0
  const faults = new Map<FakeEndpoint, FakeFault>()
  const calls = Object.fromEntries(CALL_COUNTERS.map((name) => [name, 0])) as unknown as FakeKubeApiCalls
  const sockets = new Set<Socket>()
  const lastWatchQueries = new Map<Kind | 'any', Record<string, string>>()
  const emptyQueries = (): PerKind<Array<Record<string, string>>> => perKind((): Array<Record<string, string>> => [])
  let listQueries = emptyQueries()
  // The state as of the last compaction: with `history`, any version since can be listed again.
  let baseline = emptyStores()
  /** The stored RBAC objects, as the RBAC authorizer reads them. */
  const rbacObjects: RbacObjects = {
    clusterRoleBindings: () => stores.clusterrolebindings.values() as Iterable<Binding>,
    roleBindings: (namespace) => stateAt('rolebindings', namespace, resourceVersion) as RoleBindingJson[],
    role: (namespace, name) => stores.roles.get(`${namespace}/${name}`) as RoleJson | undefined,
    clusterRole: (name) => stores.clusterroles.get(`/${name}`) as ClusterRoleJson | undefined
  }

  const server = https.createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => { void handle(req, res) })
  server.on('secureConnection', () => { calls.tlsHandshakes++ })
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await listen(0)
  const port = (server.address() as AddressInfo).port
  const url = `https://127.0.0.1:${port}`

  async function listen (onPort: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(onPort, '127.0.0.1', () => { server.off('error', reject); resolve() })
    })
  }

  /** A failure `Status` (apimachinery meta/v1 Status; an empty reason is omitted, as Go omits it). */
  function statusBody (
    code: number,
    reason: string,
    message: string,
    details?: Record<string, unknown>,
    metadata: Record<string, unknown> = {}
  ): Record<string, unknown> {
    return { kind: 'Status', apiVersion: 'v1', metadata, status: 'Failure', message, ...(reason === '' ? {} : { reason }), ...(details === undefined ? {} : { details }), code }
  }

  function status (
    res: ServerResponse,
    code: number,
    reason: string,
    message: string,
    details?: Record<string, unknown>,
    headers: Record<string, string> = {},
    metadata: Record<string, unknown> = {}
  ): void {
    sendJson(res, code, statusBody(code, reason, message, details, metadata), headers)
  }

  function faultFor (endpoint: 'tokenreviews' | Kind): FakeFault | undefined {
    return faults.get(endpoint) ?? faults.get('all')
  }

  async function handle (req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestUrl = new URL(req.url ?? '/', url)
    const raw = await readBody(req)
    const body = raw.toString('utf8')
    const who = authenticateCaller(req.headers.authorization)
    if (who === undefined) {
      calls.unauthorized++
      status(res, 401, 'Unauthorized', 'Unauthorized')
      return
    }
    if (req.method === 'GET' && isDiscoveryPath(requestUrl.pathname)) {
      // system:public-info-viewer lets anyone read /version; system:discovery needs an authenticated user.
      if (requestUrl.pathname !== '/version' && !who.groups.includes('system:authenticated')) {
        calls.forbidden++
        status(res, 403, 'Forbidden', `forbidden: User "${who.username}" cannot get path "${requestUrl.pathname}"`, {})
        return
      }
      discovery(requestUrl.pathname, res)
      return
    }
    if (requestUrl.pathname === SELF_SUBJECT_ACCESS_REVIEWS) {
      selfSubjectAccessReview(req, res, who, raw)
      return
    }
    const namespacePath = NAMESPACE_PATH.exec(requestUrl.pathname)
    if (namespacePath !== null) {
      namespaceRequest(req, res, who, namespacePath[1] === undefined ? undefined : decodeURIComponent(namespacePath[1]), queryBool(requestUrl.searchParams, 'watch'))
      return
    }
    const match = RESOURCE_PATHS.map((path) => path.exec(requestUrl.pathname)).find((found) => found !== null)
    const endpoint: Exclude<FakeResource, 'namespaces'> | undefined = requestUrl.pathname === '/apis/authentication.k8s.io/v1/tokenreviews' ? 'tokenreviews' : match !== undefined ? match[2] as Kind : undefined
    if (endpoint === undefined) {
      status(res, 404, 'NotFound', 'the server could not find the requested resource')
      return
    }
    const isWatch = queryBool(requestUrl.searchParams, 'watch')
    const byName = match?.[3] === undefined ? undefined : decodeURIComponent(match[3])
    const namespace = match?.[1] ?? ''
    const verb = requestVerb(req.method ?? 'GET', byName !== undefined, isWatch)
    if (endpoint === 'tokenreviews') calls.tokenReviews++
    else if (byName !== undefined) calls.gets++
    else if (isWatch) {
      if (endpoint === 'rolebindings') calls.roleBindingWatches++
      else if (endpoint === 'roles') calls.roleWatches++
      const query = Object.fromEntries(requestUrl.searchParams)
      lastWatchQueries.set(endpoint, query)
      lastWatchQueries.set('any', query)
    } else {
      if (endpoint === 'rolebindings') calls.roleBindingLists++
      else if (endpoint === 'roles') calls.roleLists++
      listQueries[endpoint].push(Object.fromEntries(requestUrl.searchParams))
    }

    const fault = faultFor(endpoint)
    if (fault === 'reset') { req.socket.destroy(); return }
    if (fault !== undefined && typeof fault === 'object' && 'delayMs' in fault) await delay(fault.delayMs)
    if (res.destroyed) return
    if (fault !== undefined && typeof fault === 'object' && 'redirect' in fault) {
      res.writeHead(307, { location: fault.redirect, 'content-length': 0 })
      res.end()
      return
    }
    if (fault !== undefined && typeof fault === 'object' && !isWatch && ('rewrite' in fault || 'padding' in fault || 'dripMs' in fault)) alterAnswer(res, fault, requestUrl.searchParams)
    if (fault !== undefined && typeof fault === 'object' && 'status' in fault) {
      injectedStatus(res, fault.status, verb, endpoint, namespace, byName)
      return
    }
    // Authorization runs before any handler (apiserver pkg/endpoints/filters/authorization.go).
    const attributes = resourceAttributes(verb, endpoint, namespace, byName ?? (verb === 'list' || verb === 'watch' ? selectedName(requestUrl.searchParams) : undefined))
    if (!allowed(who, attributes)) {
      calls.forbidden++
      forbidden(res, who, verb, endpoint, namespace, byName)
      return
    }

    if (endpoint === 'tokenreviews') {
      if (req.method !== 'POST') { status(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'); return }
      reviewToken(req, res, body)
      return
    }
    const writes = byName === undefined ? ['POST', 'DELETE'] : ['PUT', 'PATCH', 'DELETE']
    if (writes.includes(req.method ?? '')) { writeRequest(req, res, who, endpoint, namespace, byName, body, requestUrl.searchParams); return }
    if (req.method !== 'GET') { status(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'); return }
    const selector = parseSelectors(requestUrl.searchParams, byName)
    if (typeof selector === 'string') { status(res, 400, 'BadRequest', selector); return }
    if (byName !== undefined && !isWatch) {
      const found = stores[endpoint].get(`${namespace}/${byName}`)
      if (found === undefined) { objectNotFound(res, endpoint, byName); return }
      sendJson(res, 200, withTypeMeta(endpoint, found))
      return
    }
    if (isWatch) {
      if (fault === 'gone') { status(res, 410, 'Expired', 'too old resource version'); return }
      if (fault === 'hang') return
      if (fault === 'flap') { res.writeHead(200, { 'content-type': 'application/json' }); res.end(); return }
      if (fault === 'stall') { res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }); res.flushHeaders(); return }
      watch(req, res, endpoint, namespace, requestUrl.searchParams, selector)
      return
    }
    await list(res, endpoint, namespace, requestUrl.searchParams, selector, fault !== undefined && typeof fault === 'object' && 'endlessContinue' in fault ? fault.endlessContinue : undefined)
  }

  /**
   * Makes the successful answer `res` is about to get into the lie `fault` tells (see
   * {@link FakeLie}): the real handler answers through `writeHead` and `end`, caught here.
   */
  function alterAnswer (res: ServerResponse, fault: AnswerLie, query: URLSearchParams): void {
    type Headers = Record<string, string | number>
    const writeHead = res.writeHead.bind(res) as (code: number, headers: Headers) => ServerResponse
    const end = res.end.bind(res) as (text?: string) => ServerResponse
    let code = 200
    let headers: Headers = {}
    res.writeHead = ((statusCode: number, given?: Headers) => { code = statusCode; headers = given ?? {}; return res }) as unknown as typeof res.writeHead
    res.end = ((text?: string) => {
      res.writeHead = writeHead as unknown as typeof res.writeHead
      res.end = end as unknown as typeof res.end
      if (code < 200 || code > 299 || typeof text !== 'string') { writeHead(code, headers); return end(text) }
      if ('rewrite' in fault) {
        const replaced = fault.rewrite(JSON.parse(text) as Record<string, unknown>, query)
        const body = typeof replaced === 'string' ? replaced : JSON.stringify(replaced)
        writeHead(code, { ...headers, 'content-length': Buffer.byteLength(body) })
        return end(body)
      }
      const { 'content-length': _length, ...rest } = headers
      writeHead(code, { ...rest, 'transfer-encoding': 'chunked' })
      if ('padding' in fault) void writePadded(res, text, fault.padding)
      else dripForever(res, text, fault.dripMs)
      return res
    }) as unknown as typeof res.end
  }

  /** `text` (a JSON object) with a first field `padding` of `bytes` bytes, streamed while the client reads. */
  async function writePadded (res: ServerResponse, text: string, bytes: number): Promise<void> {
    const chunk = 'x'.repeat(Math.min(bytes, 1024 * 1024))
    if (!res.write('{"padding":"')) await drained(res)
    for (let written = 0; written < bytes && !res.destroyed; written += chunk.length) {
      const part = chunk.slice(0, bytes - written)
      calls.paddingBytesSent += part.length
      if (!res.write(part)) await drained(res)
    }
    if (!res.destroyed) res.end(`",${text.slice(1)}`)
  }

  /** `text` one byte every `ms`, then spaces for ever, until the client hangs up. */
  function dripForever (res: ServerResponse, text: string, ms: number): void {
    let at = 0
    const timer = setInterval(() => {
      if (res.destroyed) { clearInterval(timer); return }
      res.write(at < text.length ? text[at++]! : ' ')
    }, ms)
    res.on('close', () => { clearInterval(timer) })
  }

  /**
   * Who a request comes from, as kube-apiserver's authentication decides: no usable bearer
   * token is `system:anonymous` (anonymous auth is on by default), a token no authenticator
   * accepts is undefined (401), and every authenticated user is also in `system:authenticated`
   * (apiserver pkg/authentication/request/bearertoken, .../group/authenticated_group_adder.go).
   */
  function authenticateCaller (authorization: string | undefined): Caller | undefined {
    const token = bearerToken(authorization)
    if (token === undefined) return ANONYMOUS
    if (token === serviceToken) return serviceAccount
    if (token === adminToken) return { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] }
    const verdict = authenticateToken(token, [API_SERVER_AUDIENCE])
    if (verdict.kind !== 'authenticated') return undefined
    const groups = verdict.identity.groups ?? []
    return { username: verdict.identity.username, groups: groups.includes('system:authenticated') ? [...groups] : [...groups, 'system:authenticated'] }
  }

  /**
   * Whether a caller may make a request: a cluster admin (`system:masters`) anything; otherwise,
   * with the `rbac` authorizer, what the rules of the RBAC objects bound to them allow; with
   * `grants`, the service account what it was granted, anyone else nothing.
   */
  function allowed (who: Caller, request: ResourceAttributes): boolean {
    if (who.groups.includes('system:masters')) return true
    return rulesOf(who, request.namespace).some((rule) => ruleAllows(rule, request))
  }

  /** The rules that apply to a caller in a namespace (empty: cluster-wide ones only). */
  function rulesOf (who: Caller, namespace: string): PolicyRule[] {
    if (rbacMode) return rulesFor(rbacObjects, who, namespace)
    if (who !== serviceAccount) return []
    // Each grant `verb resource scope` is a one-verb rule, cluster-wide (`*`) or in one namespace.
    return [...grants].map((grant) => grant.split(' ') as [FakeVerb, FakeResource, string])
      .filter(([, , scope]) => scope === '*' || (namespace !== '' && scope === namespace))
      .map(([verb, resource]) => ({ verbs: [verb], apiGroups: [groupOfResource(resource)], resources: [resource] }))
  }

  /** The 403 of apiserver pkg/endpoints/handlers/responsewriters/errors.go (ForbiddenStatusError, apimachinery NewForbidden). */
  function forbidden (res: ServerResponse, who: Caller, verb: FakeVerb, resource: FakeResource, namespace: string, name: string | undefined): void {
    const group = groupOfResource(resource)
    const where = namespace === '' ? 'at the cluster scope' : `in the namespace "${namespace}"`
    const message = `${qualifiedResource(resource, group)}${name === undefined ? '' : ` "${name}"`} is forbidden: User "${who.username}" cannot ${verb} resource "${resource}" in API group "${group}" ${where}`
    status(res, 403, 'Forbidden', message, { ...(name === undefined ? {} : { name }), group, kind: resource })
  }

  function objectNotFound (res: ServerResponse, kind: Kind, name: string): void {
    const { group } = KINDS[kind]
    status(res, 404, 'NotFound', `${qualifiedResource(kind, group)} "${name}" not found`, { name, group, kind })
  }

  /**
   * The escalation check of RBAC writes (kubernetes pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased):
   * unless the caller is in `system:masters`, a Role or ClusterRole may only grant what its writer
   * holds in that namespace (or cluster-wide), unless they may `escalate` it; a binding may only
   * refer to a role whose every permission its writer holds, unless they may `bind` it (a role
   * that does not exist is a 404). Returns the refusal written, or false when the write may go on.
   */
  function refusedEscalation (res: ServerResponse, who: Caller, kind: Kind, namespace: string, urlName: string | undefined, object: StoredObject): boolean {
    if (who.groups.includes('system:masters') || !(isRoleKind(kind) || isBindingKind(kind))) return false
    const objectName = object.metadata?.name ?? ''
    let wanted: readonly PolicyRule[]
    if (isRoleKind(kind)) {
      if (allowed(who, { verb: 'escalate', apiGroup: RBAC_GROUP, resource: kind, name: urlName ?? '', namespace })) return false
      wanted = (object as RoleJson).rules ?? []
    } else {
      const ref = (object as RoleBindingJson).roleRef ?? {}
      const apiGroup = ref.apiGroup === undefined || ref.apiGroup === '' ? RBAC_GROUP : ref.apiGroup
      const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : undefined
      if (roleResource === undefined) {
        status(res, 500, 'InternalError', `Internal error occurred: unsupported role reference kind: ${JSON.stringify(ref.kind ?? '')}`)
        return true
      }
      if (allowed(who, { verb: 'bind', apiGroup, resource: roleResource, name: ref.name ?? '', namespace })) return false
      const rules = roleRefRules(rbacObjects, { ...ref, apiGroup }, namespace)
      if (rules === undefined) { objectNotFound(res, roleResource, ref.name ?? ''); return true }
      wanted = rules
    }
    const missing = uncovered(rulesOf(who, namespace), wanted)
    if (missing.length === 0) return false
    calls.forbidden++
    status(res, 403, 'Forbidden', `${qualifiedResource(kind, RBAC_GROUP)} "${objectName}" is forbidden: ${escalationReason(who, missing)}`, { name: objectName, group: RBAC_GROUP, kind })
    return true
  }

  function injectedStatus (res: ServerResponse, code: number, verb: FakeVerb, endpoint: FakeResource, namespace: string, name: string | undefined): void {
    if (code === 403) {
      forbidden(res, serviceAccount, verb, endpoint, namespace, name)
    } else if (code === 429) {
      // API Priority and Fairness rejects before any handler, with http.Error: plain text, not a Status
      // (apiserver pkg/server/filters/priority-and-fairness.go tooManyRequests).
      const text = 'Too many requests, please try again later.\n'
      res.writeHead(429, {
        'content-type': 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
        'retry-after': '1',
        'x-kubernetes-pf-flowschema-uid': FLOW_SCHEMA_UID,
        'x-kubernetes-pf-prioritylevel-uid': PRIORITY_LEVEL_UID,
        'content-length': Buffer.byteLength(text)
      })
      res.end(text)
    } else if (code === 500) {
      status(res, 500, 'InternalError', 'Internal error occurred: injected failure', { causes: [{ message: 'injected failure' }] })
    } else {
      // apimachinery api/errors reasonForCode; a code it does not know has no reason.
      status(res, code, REASON_FOR_CODE[code] ?? '', `injected failure ${code}`)
    }
  }

  function isDiscoveryPath (path: string): boolean {
    return path === '/version' || path === '/api' || path === '/api/v1' || path === '/apis' || DISCOVERY_GROUPS.some((group) => path === `/apis/${group}/v1`)
  }

  /**
   * `GET /api/v1/namespaces[/<name>]`, read-only: the namespaces a new cluster has, the service's,
   * and every one an object was put in ({@link FakeKubeApi.putRoleBinding} creates it, as
   * `kubectl create namespace` would). kubectl reads one after a NotFound, to say which is missing.
   */
  function namespaceRequest (req: IncomingMessage, res: ServerResponse, who: Caller, name: string | undefined, isWatch: boolean): void {
    const verb = requestVerb(req.method ?? 'GET', name !== undefined, isWatch)
    if (!allowed(who, resourceAttributes(verb, 'namespaces', '', name))) { calls.forbidden++; forbidden(res, who, verb, 'namespaces', '', name); return }
    if (req.method !== 'GET' || isWatch) { status(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'); return }
    const object = (ns: string): Record<string, unknown> => ({
      metadata: { name: ns, uid: namespaceUids.get(ns), resourceVersion: '1', creationTimestamp: STARTED, labels: { 'kubernetes.io/metadata.name': ns } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' }
    })
    if (name === undefined) {
      sendJson(res, 200, { kind: 'NamespaceList', apiVersion: 'v1', metadata: { resourceVersion: String(resourceVersion) }, items: [...namespaces].sort(byteOrder).map(object) })
    } else if (namespaces.has(name)) {
      sendJson(res, 200, { kind: 'Namespace', apiVersion: 'v1', ...object(name) })
    } else {
      namespaceNotFound(res, name)
    }
  }

  function namespaceNotFound (res: ServerResponse, name: string): void {
    status(res, 404, 'NotFound', `namespaces "${name}" not found`, { name, kind: 'namespaces' })
  }

  function addNamespace (name: string): void {
    if (namespaces.has(name)) return
    namespaces.add(name)
    namespaceUids.set(name, randomUUID())
  }

  /** The discovery documents kubectl reads before it touches a resource. */
  function discovery (path: string, res: ServerResponse): boolean {
    const stored = (group: string): Array<Record<string, unknown>> => KIND_LIST.filter((name) => KINDS[name].group === group)
      .map((name) => ({ name, singularName: KINDS[name].singular, namespaced: KINDS[name].namespaced, kind: KINDS[name].kind, verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], storageVersionHash: 'fake' }))
    const resources = (group: string): Array<Record<string, unknown>> => group === RBAC_GROUP
      ? stored(group)
      : group === AUTHORIZATION_GROUP
        ? [{ name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] }]
        : [{ name: 'tokenreviews', singularName: 'tokenreview', namespaced: false, kind: 'TokenReview', verbs: ['create'] }]
    const groups = DISCOVERY_GROUPS
    let document: Record<string, unknown> | undefined
    if (path === '/version') document = { major: '1', minor: '33', gitVersion: 'v1.33.0-fake', platform: 'linux/amd64' }
    else if (path === '/api') document = { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }] }
    else if (path === '/api/v1') document = { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['get', 'list'], shortNames: ['ns'] }, ...stored('')] }
    else if (path === '/apis') {
      document = {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: groups.map((name) => ({ name, versions: [{ groupVersion: `${name}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' } }))
      }
    } else {
      const group = groups.find((name) => path === `/apis/${name}/v1`)
      if (group !== undefined) document = { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/v1`, resources: resources(group) }
    }
    if (document === undefined) return false
    calls.discovery++
    sendJson(res, 200, document)
    return true
  }

  /**
   * A list as kube-apiserver serves it (apiserver pkg/storage/interfaces.go ValidateListOptions,
   * etcd3/store.go GetList): unset or `0` resourceVersion is the current state; `N` with
   * `resourceVersionMatch=Exact`, or with a `limit` and no match (the legacy case), is the state
   * at exactly N (410 once compacted, 504 when in the future); otherwise N is a lower bound the
   * server waits for up to 3 s (then 504, as the watch cache's blockTimeout). Pages hold `limit`
   * items in key order and a continue token that reads the rest at the first page's version.
   */
  async function list (res: ServerResponse, kind: Kind, namespace: string, params: URLSearchParams, selector: Selector, endless?: 'same' | 'new'): Promise<void> {
    const limit = queryInt(params, 'limit')
    if (typeof limit === 'string') { status(res, 400, 'BadRequest', limit); return }
    const invalid = listOptionErrors(params)
    if (invalid.length > 0) { listOptionsInvalid(res, invalid); return }
    const requested = params.get('resourceVersion') ?? ''
    const match = params.get('resourceVersionMatch') ?? ''
    // The lie of `endlessContinue`: any token reads as none, and every page says there is more.
    const token = endless === undefined ? params.get('continue') ?? '' : ''
    let at = resourceVersion
    let startKey = ''
    if (token !== '') {
      const decoded = decodeContinue(token)
      if (typeof decoded === 'string') { status(res, 400, 'BadRequest', `invalid continue token: ${decoded}`); return }
      if (requested !== '' && requested !== '0') { status(res, 400, 'BadRequest', 'specifying resource version is not allowed when using continue'); return }
      startKey = decoded.start
      if (decoded.rv > 0) {
        if (decoded.rv < compactedBefore) {
          // etcd3/errors.go handleCompactedErrorForPaging: 410 with a token that continues at the latest version.
          status(res, 410, 'Expired', CONTINUE_EXPIRED, undefined, {}, { continue: encodeContinue(-1, startKey) })
          return
        }
        if (decoded.rv > resourceVersion) { tooLargeResourceVersion(res, decoded.rv); return }
        at = decoded.rv
      }
    } else if (requested !== '' && requested !== '0') {
      const parsed = parseResourceVersion(requested)
      if (typeof parsed === 'string') { status(res, 400, 'BadRequest', `invalid resource version: ${parsed}`); return }
      if (match === 'Exact' || (match === '' && limit > 0)) {
        if (parsed < compactedBefore) { status(res, 410, 'Expired', 'The resourceVersion for the provided list is too old.'); return }
        if (parsed > resourceVersion) { tooLargeResourceVersion(res, parsed); return }
        at = parsed
      } else {
        if (!await versionReached(parsed, RESOURCE_VERSION_WAIT_MS)) { tooLargeResourceVersion(res, parsed); return }
        at = resourceVersion
      }
    }
    if (res.destroyed) return
    const inRange = stateAt(kind, namespace, at).filter((object) => object.metadata.name >= startKey && selector.matches(object))
    const page = limit > 0 ? inRange.slice(0, limit) : inRange
    const metadata: Record<string, unknown> = { resourceVersion: String(at) }
    if (endless !== undefined) {
      metadata.continue = encodeContinue(at, endless === 'same' ? 'endless' : `endless-${++endlessPages}`)
    } else if (page.length < inRange.length) {
      metadata.continue = encodeContinue(at, `${page[page.length - 1]!.metadata.name}\u0000`)
      // storage.PrepareContinueToken: no count under a selector, as etcd's count includes what it filters out.
      if (selector.empty) metadata.remainingItemCount = inRange.length - page.length
    }
    sendJson(res, 200, { kind: KINDS[kind].list, apiVersion: apiVersionOf(kind), metadata, items: page })
  }

  /** The objects of one kind and namespace at version `rv` (since the last compaction), in key order. */
  function stateAt (kind: Kind, namespace: string, rv: number): StoredObject[] {
    let state: Map<string, StoredObject>
    if (rv >= resourceVersion) {
      state = stores[kind]
    } else {
      state = new Map(baseline[kind])
      for (const event of history) {
        if (event.kind !== kind || event.rv > rv) continue
        const key = `${namespaceOf(event.object)}/${event.object.metadata.name}`
        if (event.type === 'DELETED') state.delete(key)
        else state.set(key, event.object)
      }
    }
    return [...state.values()].filter((object) => namespaceOf(object) === namespace).sort((a, b) => byteOrder(a.metadata.name, b.metadata.name))
  }

  /** Resolves true once the store reaches `rv`, false after `ms`. */
  async function versionReached (rv: number, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms
    const reached = (): boolean => resourceVersion >= rv
    while (!reached() && Date.now() < deadline) await delay(Math.min(50, deadline - Date.now()))
    return reached()
  }

  /** 422 Invalid for the query's ListOptions (apiserver pkg/endpoints/handlers/get.go listOpts). */
  function listOptionsInvalid (res: ServerResponse, errors: readonly FieldError[]): void {
    status(res, 422, 'Invalid', invalidMessage('ListOptions.meta.k8s.io', '', errors), { name: '', group: 'meta.k8s.io', kind: 'ListOptions', causes: errors.map(fieldCause) })
  }

  function tooLargeResourceVersion (res: ServerResponse, requested: number): void {
    status(res, 504, 'Timeout', `Too large resource version: ${requested}, current: ${resourceVersion}`,
      { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 })
  }

  /**
   * `POST tokenreviews` as kube-apiserver serves it: the body is decoded as an
   * `authentication.k8s.io/v1` TokenReview (apiVersion and kind default to it when absent; any
   * other is a 400, apiserver pkg/endpoints/handlers/create.go), an empty `spec.token` is a 400
   * (kubernetes pkg/registry/authentication/tokenreview/storage.go), and the token is
   * authenticated as the header `Authorization: Bearer <token>` would be, so only what comes
   * before a space counts.
   */
  function reviewToken (req: IncomingMessage, res: ServerResponse, body: string): void {
    if (!isJsonBody(req.headers['content-type'])) { unsupportedMediaType(res); return }
    const decoded = decodeTokenReview(body)
    if (typeof decoded === 'string') { status(res, 400, 'BadRequest', decoded); return }
    const { token, audiences: requested } = decoded
    if (token === '') { status(res, 400, 'BadRequest', 'token is required for TokenReview in authentication'); return }
    const spec = { token, ...(requested.length > 0 ? { audiences: requested } : {}) }
    const answer = (reviewStatus: Record<string, unknown>): void => {
      sendJson(res, 201, { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, spec, status: reviewStatus })
    }
    const presented = bearerToken(`Bearer ${token}`)
    // No token in the header at all: not authenticated, and no authenticator had anything to say.
    if (presented === undefined) { answer({ user: {} }); return }
    const verdict = authenticateToken(presented, requested.length > 0 ? requested : [API_SERVER_AUDIENCE])
    if (verdict.kind === 'audience-error') {
      if (requested.length > 0) {
        status(res, 500, 'InternalError', 'Internal error occurred: error validating audiences')
        return
      }
      answer(authenticated(verdict.identity, verdict.identity.webhookAudiences ?? []))
      return
    }
    if (verdict.kind === 'rejected') { answer({ user: {}, error: verdict.error }); return }
    answer(authenticated(verdict.identity, verdict.audiences, verdict.jti))
  }

  /**
   * `POST selfsubjectaccessreviews` (what `kubectl auth can-i` asks): whether the caller may make
   * the request described by `spec.resourceAttributes`, decided as their requests are. Every
   * authenticated user may ask (the bootstrap ClusterRole `system:basic-user`); anonymous
   * callers get a 403. Non-resource URLs are answered for the paths the double serves
   * (discovery for authenticated users, `/version` for anyone) and `get` only.
   */
  function selfSubjectAccessReview (req: IncomingMessage, res: ServerResponse, who: Caller, raw: Buffer): void {
    if (!who.groups.includes('system:authenticated')) {
      calls.forbidden++
      status(res, 403, 'Forbidden', `selfsubjectaccessreviews.${AUTHORIZATION_GROUP} is forbidden: User "${who.username}" cannot create resource "selfsubjectaccessreviews" in API group "${AUTHORIZATION_GROUP}" at the cluster scope`, { group: AUTHORIZATION_GROUP, kind: 'selfsubjectaccessreviews' })
      return
    }
    if (req.method !== 'POST') { status(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'); return }
    // kubectl sends this one as protobuf; anything else must be JSON.
    const protobuf = (req.headers['content-type'] ?? '').split(';')[0]!.trim() === 'application/vnd.kubernetes.protobuf'
    if (!protobuf && !isJsonBody(req.headers['content-type'])) { unsupportedMediaType(res); return }
    const review = protobuf ? decodeAccessReviewProtobuf(raw) : decodeTyped(raw.toString('utf8'), 'SelfSubjectAccessReview', `${AUTHORIZATION_GROUP}/v1`, [`${AUTHORIZATION_GROUP}/v1beta1`])
    if (typeof review === 'string') { status(res, 400, 'BadRequest', review); return }
    const spec = isPlainObject(review.spec) ? review.spec : {}
    const text = (value: unknown): string => typeof value === 'string' ? value : ''
    const resource = isPlainObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined
    const nonResource = isPlainObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined
    if ((resource === undefined) === (nonResource === undefined)) {
      const errors = [requiredField('spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified')]
      status(res, 422, 'Invalid', invalidMessage(`SelfSubjectAccessReview.${AUTHORIZATION_GROUP}`, '', errors), { group: AUTHORIZATION_GROUP, kind: 'SelfSubjectAccessReview', causes: errors.map(fieldCause) })
      return
    }
    let allowedNow: boolean
    if (resource !== undefined) {
      allowedNow = who.groups.includes('system:masters') || rulesOf(who, text(resource.namespace)).some((rule) => ruleAllows(rule, {
        verb: text(resource.verb),
        apiGroup: text(resource.group),
        resource: text(resource.resource),
        subresource: text(resource.subresource),
        name: text(resource.name),
        namespace: text(resource.namespace)
      }))
    } else {
      const path = text(nonResource?.path)
      allowedNow = who.groups.includes('system:masters') || (text(nonResource?.verb) === 'get' && isDiscoveryPath(path))
    }
    sendJson(res, 201, { kind: 'SelfSubjectAccessReview', apiVersion: `${AUTHORIZATION_GROUP}/v1`, metadata: { creationTimestamp: null }, spec, status: { allowed: allowedNow } })
  }

  function unsupportedMediaType (res: ServerResponse): void {
    status(res, 415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf')
  }

  /**
   * What the API server's token authenticators say of `token` for the audiences `wanted` (the
   * review's, else the API server's own): a JWT-shaped token is checked for `exp`, `nbf` and
   * `aud`; an audience-unaware webhook's answer is an `audience-error` when none of its
   * audiences is wanted.
   */
  function authenticateToken (token: string, wanted: readonly string[]): TokenVerdict {
    const identity = tokens.get(token)
    if (identity === undefined) return { kind: 'rejected', error: '[invalid bearer token, service account token could not be validated]' }
    const claims = jwtClaims(token)
    const nowSeconds = Date.now() / 1000
    if (claims !== undefined && typeof claims.exp === 'number' && claims.exp < nowSeconds) {
      return { kind: 'rejected', error: '[invalid bearer token, service account token has expired]' }
    }
    if (claims !== undefined && typeof claims.nbf === 'number' && claims.nbf > nowSeconds) {
      return { kind: 'rejected', error: '[invalid bearer token, service account token is not valid yet]' }
    }
    if (identity.webhookAudiences !== undefined) {
      const matched = wanted.filter((audience) => identity.webhookAudiences!.includes(audience))
      return matched.length === 0 ? { kind: 'audience-error', identity } : { kind: 'authenticated', identity, audiences: identity.webhookAudiences }
    }
    const claimed = claims === undefined ? undefined : (typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === 'string') : undefined)
    const tokenAudiences = identity.audiences ?? claimed ?? [API_SERVER_AUDIENCE]
    const matched = wanted.filter((audience) => tokenAudiences.includes(audience))
    if (matched.length === 0) return { kind: 'rejected', error: '[invalid bearer token, token audiences are invalid for the target audiences]' }
    return { kind: 'authenticated', identity, audiences: matched, jti: claims?.jti }
  }

  function authenticated (identity: FakeIdentity, audiences: readonly string[], jti?: unknown): Record<string, unknown> {
    const extra: Record<string, string[]> = {}
    if (identity.username.startsWith('system:serviceaccount:')) {
      if (identity.pod !== undefined) {
        extra['authentication.kubernetes.io/pod-name'] = [identity.pod.name]
        extra['authentication.kubernetes.io/pod-uid'] = [identity.pod.uid]
      }
      if (typeof jti === 'string') extra['authentication.kubernetes.io/credential-id'] = [`JTI=${jti}`]
    }
    return {
      authenticated: true,
      user: {
        username: identity.username,
        uid: identity.uid ?? randomUUID(),
        groups: [...(identity.groups ?? [])],
        ...(Object.keys(extra).length === 0 ? {} : { extra })
      },
      audiences: [...audiences]
    }
  }

  /**
   * A watch as the watch cache serves it (apiserver pkg/storage/cacher): from resourceVersion
   * unset or 0, synthetic ADDED events of the current state; from N, the events after N (a
   * future N is no error: the watch waits for it); older than the last compaction, a single
   * ERROR 410 event. Closed after `timeoutSeconds`, or the server's own timeout (1 to 2 times
   * --min-request-timeout, 1800 s) when none is asked (handlers/get.go handleWatch).
   */
  function watch (req: IncomingMessage, res: ServerResponse, kind: Kind, namespace: string, params: URLSearchParams, selector: Selector): void {
    const timeoutSeconds = queryInt(params, 'timeoutSeconds')
    if (typeof timeoutSeconds === 'string') { status(res, 400, 'BadRequest', timeoutSeconds); return }
    const invalidOptions = watchOptionErrors(params)
    if (invalidOptions.length > 0) { listOptionsInvalid(res, invalidOptions); return }
    const rvParam = params.get('resourceVersion') ?? ''
    const from = rvParam === '' || rvParam === '0' ? 0 : parseResourceVersion(rvParam)
    if (typeof from === 'string') {
      // storage.InvalidError through storage/errors InterpretWatchError: 422 on the watched resource.
      const errors = [invalidField('resourceVersion', JSON.stringify(rvParam), from)]
      status(res, 422, 'Invalid', invalidMessage(qualifiedResource(kind, KINDS[kind].group), '', errors), { name: '', group: KINDS[kind].group, kind, causes: errors.map(fieldCause) })
      return
    }
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' })
    // A real server sends the headers at once, before any event.
    res.flushHeaders()
    if (from !== 0 && from < compactedBefore) {
      res.end(errorLine(410, 'Expired', `too old resource version: ${from} (${compactedBefore - 1})`))
      return
    }
    const watcher: Watcher = { kind, namespace, res, bookmarks: queryBool(params, 'allowWatchBookmarks'), timers: [], rv: from, selector }
    watchers.add(watcher)
    if (from === 0) {
      // "Any" version: the current state as synthetic ADDED events, never the history.
      for (const object of stateAt(kind, namespace, resourceVersion)) if (selector.matches(object)) res.write(eventLine({ kind, type: 'ADDED', object, rv: Number(object.metadata.resourceVersion) }))
      watcher.rv = resourceVersion
    } else {
      for (const event of history) {
        if (event.kind === kind && event.rv > from && namespaceOf(event.object) === namespace) send(watcher, event)
      }
    }
    const timeoutMs = (timeoutSeconds > 0 ? timeoutSeconds : minRequestTimeoutSeconds * (1 + Math.random())) * 1000
    if (watcher.bookmarks) {
      watcher.timers.push(setInterval(() => { sendBookmark(watcher) }, bookmarkIntervalMs))
      // cache_watcher.go nextBookmarkTime: one more right before the timeout (2 s before; the cacher ticks every second).
      const beforeTimeout = timeoutMs - 2000
      if (beforeTimeout >= 1000 && beforeTimeout < timeoutMs) watcher.timers.push(setTimeout(() => { sendBookmark(watcher) }, beforeTimeout))
    }
    watcher.timers.push(setTimeout(() => { done(); res.end() }, timeoutMs))
    function done (): void {
      watchers.delete(watcher)
      for (const timer of watcher.timers) clearTimeout(timer)
    }
    res.on('error', done)
    res.on('close', done)
    req.on('close', done)
  }

  /**
   * An event to one watcher, if it is newer than what the watcher has seen (cache_watcher.go
   * process), as its selector sees it (convertToWatchEvent): an object that starts matching is
   * ADDED, one that stops matching DELETED with its previous state, one that never matched nothing.
   */
  function send (watcher: Watcher, event: WatchEvent): void {
    if (event.rv <= watcher.rv || watcher.res.writableEnded || watcher.res.destroyed) return
    const now = event.type !== 'DELETED' && watcher.selector.matches(event.object)
    const before = event.prev !== undefined && watcher.selector.matches(event.prev)
    let seen: WatchEvent | undefined
    if (now) seen = { ...event, type: before ? event.type : 'ADDED' }
    else if (before) seen = { ...event, type: 'DELETED', object: { ...event.prev!, metadata: { ...event.prev!.metadata, resourceVersion: String(event.rv) } } }
    if (seen === undefined) return
    watcher.rv = event.rv
    watcher.res.write(eventLine(seen))
  }

  /**
   * A BOOKMARK at the current version: an empty object of the kind carrying only
   * `metadata.resourceVersion`. The etcd revision is cluster-wide, and a real cluster is never
   * quiet (leases are renewed every few seconds): the version has moved since the watcher's last
   * event, so the bookmark is newer, as the cacher only sends newer ones.
   */
  function sendBookmark (watcher: Watcher): void {
    if (watcher.res.writableEnded || watcher.res.destroyed) return
    if (resourceVersion <= watcher.rv) resourceVersion = watcher.rv + 1
    watcher.rv = resourceVersion
    const metadata = { resourceVersion: String(resourceVersion), creationTimestamp: null }
    const empty = isBindingKind(watcher.kind) ? { roleRef: { apiGroup: '', kind: '', name: '' } } : {}
    watcher.res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: KINDS[watcher.kind].kind, apiVersion: apiVersionOf(watcher.kind), metadata, ...empty } })}\n`)
  }

  function errorLine (code: number, reason: string, message: string): string {
    return `${JSON.stringify({ type: 'ERROR', object: statusBody(code, reason, message) })}\n`
  }

  function withTypeMeta (kind: Kind, object: StoredObject): Record<string, unknown> {
    return { apiVersion: apiVersionOf(kind), kind: KINDS[kind].kind, ...object }
  }

  function eventLine (event: WatchEvent): string {
    return `${JSON.stringify({ type: event.type, object: withTypeMeta(event.kind, event.object) })}\n`
  }

  function record (kind: Kind, type: WatchEvent['type'], object: StoredObject, prev: StoredObject | undefined): void {
    const event: WatchEvent = { kind, type, object: structuredClone(object), prev: prev === undefined ? undefined : structuredClone(prev), rv: resourceVersion }
    history.push(event)
    for (const watcher of watchers) {
      if (watcher.kind === kind && watcher.namespace === namespaceOf(object)) send(watcher, event)
    }
  }

  /** Stores an object as `kubectl apply` would leave it (a create, or an update of what exists), with a realistic size. */
  function put<T extends StoredObject> (kind: Kind, given: T): T {
    // A cluster-scoped object has no namespace, whatever it was given (as the API server clears it).
    const object = KINDS[kind].namespaced ? given : { ...given, metadata: { ...given.metadata, namespace: undefined } }
    if (!KINDS[kind].namespaced) delete object.metadata.namespace
    const existing = stores[kind].get(`${namespaceOf(object)}/${object.metadata.name}`) as T | undefined
    const admitted = admit(kind, object, existing)
    if (KINDS[kind].namespaced) addNamespace(namespaceOf(admitted))
    return write(kind, {
      ...admitted,
      metadata: {
        labels: { 'app.kubernetes.io/part-of': 'feast' },
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ ...object, metadata: { name: object.metadata.name, ...(KINDS[kind].namespaced ? { namespace: object.metadata.namespace } : {}) } }) },
        ...admitted.metadata
      }
    }, existing, 'kubectl-client-side-apply')
  }

  /**
   * Writes an admitted object with the metadata the server sets (uid, creationTimestamp,
   * resourceVersion, managedFields), a new version and a watch event; an update that changes
   * nothing writes nothing, as etcd3's GuaranteedUpdate skips an unchanged object.
   */
  function write<T extends StoredObject> (kind: Kind, object: T, existing: T | undefined, manager: string): T {
    if (existing !== undefined && sameContent(existing, object)) return structuredClone(existing)
    resourceVersion++
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') // RFC 3339 in whole seconds, as the API server writes it
    const fields = Object.fromEntries(KINDS[kind].fields.map((field) => [`f:${field}`, {}]))
    const stored = structuredClone({
      ...object,
      metadata: {
        ...object.metadata,
        resourceVersion: String(resourceVersion),
        uid: existing?.metadata.uid ?? randomUUID(),
        creationTimestamp: existing?.metadata.creationTimestamp ?? now,
        managedFields: [{ manager, operation: 'Update', apiVersion: apiVersionOf(kind), time: now, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {} } }, ...fields } }]
      }
    })
    delete stored.apiVersion
    delete stored.kind
    stores[kind].set(`${namespaceOf(stored)}/${stored.metadata.name}`, stored)
    record(kind, existing === undefined ? 'ADDED' : 'MODIFIED', stored, existing)
    return structuredClone(stored)
  }

  /** Deletes an object; its watchers get DELETED with its last state at the deletion's version. Returns that state. */
  function remove (kind: Kind, namespace: string, name: string): StoredObject | undefined {
    const key = `${namespace}/${name}`
    const existing = stores[kind].get(key)
    if (existing === undefined) return undefined
    stores[kind].delete(key)
    resourceVersion++
    const last = { ...existing, metadata: { ...existing.metadata, resourceVersion: String(resourceVersion) } }
    record(kind, 'DELETED', last, existing)
    return structuredClone(last)
  }

  /**
   * POST, PUT, PATCH and DELETE of RoleBindings and Roles, as the generic registry serves them
   * (apiserver pkg/endpoints/handlers/{create,update,patch,delete}.go, registry/generic/registry/store.go),
   * with the RBAC defaults and validation of {@link admit}.
   */
  function writeRequest (
    req: IncomingMessage,
    res: ServerResponse,
    who: Caller,
    kind: Kind,
    namespace: string,
    name: string | undefined,
    body: string,
    params: URLSearchParams
  ): void {
    const method = req.method ?? 'GET'
    const manager = params.get('fieldManager') ?? (req.headers['user-agent'] ?? 'unknown').split('/')[0]!
    const existing = name === undefined ? undefined : stores[kind].get(`${namespace}/${name}`)
    const notFound = (): void => { objectNotFound(res, kind, name ?? '') }
    const { group } = KINDS[kind]
    try {
      if (method === 'DELETE') {
        if (name === undefined) {
          const deleted = stateAt(kind, namespace, resourceVersion).map((object) => remove(kind, namespace, object.metadata.name)!)
          sendJson(res, 200, { kind: KINDS[kind].list, apiVersion: apiVersionOf(kind), metadata: { resourceVersion: String(resourceVersion) }, items: deleted })
          return
        }
        const deleted = remove(kind, namespace, name)
        if (deleted === undefined) { notFound(); return }
        sendJson(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group, kind, uid: deleted.metadata.uid } })
        return
      }
      let object: StoredObject
      let warnings: string[] = []
      if (method === 'PATCH') {
        if (existing === undefined) { notFound(); return }
        const patched = applyPatch(req.headers['content-type'], withTypeMeta(kind, existing), body)
        if (patched.error !== undefined) { status(res, patched.error.code, patched.error.reason, patched.error.message); return }
        object = patched.object as unknown as StoredObject
      } else {
        if (!isJsonBody(req.headers['content-type'])) { unsupportedMediaType(res); return }
        const decoded = decodeObject(kind, body, params.get('fieldValidation') ?? '')
        if (typeof decoded === 'string') { status(res, 400, 'BadRequest', decoded); return }
        object = decoded.object
        warnings = decoded.unknownFields.map((field: string) => `299 - "unknown field \\"${field}\\""`)
      }
      object.metadata ??= { name: '', namespace: '' }
      // rest.EnsureObjectNamespaceMatchesRequestNamespace: a cluster-scoped object's namespace is cleared.
      if (!KINDS[kind].namespaced) delete object.metadata.namespace
      else if ((object.metadata.namespace ?? '') === '') object.metadata.namespace = namespace
      if (namespaceOf(object) !== namespace) { status(res, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request'); return }
      const headers = warnings.length === 0 ? {} : { warning: warnings.join(', ') }
      if (method === 'POST') {
        // NamespaceLifecycle admission, before validation: nothing is created in a namespace that does not exist.
        if (KINDS[kind].namespaced && !namespaces.has(namespace)) { namespaceNotFound(res, namespace); return }
        const generateName = (object.metadata as { generateName?: unknown }).generateName
        if ((object.metadata.name ?? '') === '' && typeof generateName === 'string' && generateName !== '') object.metadata.name = `${generateName}${randomBytes(3).toString('hex').slice(0, 5)}`
        if ((object.metadata.resourceVersion ?? '') !== '') { status(res, 400, 'BadRequest', 'resourceVersion should not be set on objects to be created'); return }
        // The RBAC registries check escalation before they validate: a refused writer learns nothing of validity.
        if (refusedEscalation(res, who, kind, namespace, undefined, object)) return
        const admitted = admit(kind, object, undefined)
        if (stores[kind].has(`${namespace}/${admitted.metadata.name}`)) {
          status(res, 409, 'AlreadyExists', `${qualifiedResource(kind, group)} "${admitted.metadata.name}" already exists`, { name: admitted.metadata.name, group, kind })
          return
        }
        sendJson(res, 201, withTypeMeta(kind, write(kind, admitted, undefined, manager)), headers)
        return
      }
      // PUT, or the result of a PATCH: an update of the stored object.
      if (object.metadata.name !== name) { status(res, 400, 'BadRequest', `the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${name ?? ''})`); return }
      if (existing === undefined) { notFound(); return }
      const precondition = object.metadata.resourceVersion ?? ''
      if (precondition !== '' && precondition !== existing.metadata.resourceVersion) {
        status(res, 409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(kind, group)} "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, group, kind })
        return
      }
      if (refusedEscalation(res, who, kind, namespace, name, object)) return
      const admitted = admit(kind, object, existing)
      sendJson(res, 200, withTypeMeta(kind, write(kind, admitted, existing, manager)), headers)
    } catch (error) {
      if (!(error instanceof FakeInvalidError)) throw error
      sendJson(res, 422, error.status)
    }
  }

  async function stop (): Promise<void> {
    for (const watcher of watchers) watcher.res.destroy()
    if (!server.listening) return
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    for (const socket of sockets) socket.destroy()
    await closed
  }

  const writeKubeconfig = async ({ name, token = serviceToken, namespace }: { name: string, token?: string, namespace?: string | null }): Promise<string> => {
    const ns = namespace === undefined ? (options.namespace === undefined ? 'feast' : options.namespace) : namespace
    const path = join(dir, name)
    await writeFile(path, [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: fake',
      '  cluster:',
      `    server: ${url}`,
      `    certificate-authority-data: ${Buffer.from(tls.caPem).toString('base64')}`,
      'users:',
      '- name: feast-service',
      '  user:',
      `    token: ${token}`,
      'contexts:',
      '- name: fake',
      '  context:',
      '    cluster: fake',
      '    user: feast-service',
      ...(ns === null ? [] : [`    namespace: ${ns}`]),
      'current-context: fake',
      ''
    ].join('\n'), { mode: 0o600 })
    return path
  }
  const kubeconfigPath = await writeKubeconfig({ name: 'kubeconfig' })

  return {
    url,
    caPem: tls.caPem,
    serviceToken,
    serviceAccountUsername: serviceAccount.username,
    adminToken,
    kubeconfigPath,
    dir,
    calls,
    kubeConfig () {
      const kc = new KubeConfig()
      kc.loadFromFile(kubeconfigPath)
      return kc
    },
    writeKubeconfig,
    addToken (token, identity) { tokens.set(token, identity) },
    removeToken (token) { tokens.delete(token) },
    putRoleBinding: (binding) => put('rolebindings', binding),
    deleteRoleBinding: (namespace, name) => { remove('rolebindings', namespace, name) },
    putRole: (role) => put('roles', role),
    deleteRole: (namespace, name) => { remove('roles', namespace, name) },
    putClusterRole: (role) => put('clusterroles', role),
    deleteClusterRole: (name) => { remove('clusterroles', '', name) },
    putClusterRoleBinding: (binding) => put('clusterrolebindings', binding),
    deleteClusterRoleBinding: (name) => { remove('clusterrolebindings', '', name) },
    bookmark () {
      for (const watcher of watchers) if (watcher.bookmarks) sendBookmark(watcher)
    },
    compact () {
      compactedBefore = resourceVersion + 1
      history = []
      baseline = emptyStores()
      for (const kind of KIND_LIST) baseline[kind] = new Map(stores[kind])
      resourceVersion++
      // An etcd watch that falls behind a compaction ends with this ERROR (apiserver storage/etcd3/errors.go).
      for (const watcher of [...watchers]) {
        watchers.delete(watcher)
        for (const timer of watcher.timers) clearTimeout(timer)
        watcher.res.end(errorLine(410, 'Expired', 'The resourceVersion for the provided watch is too old.'))
      }
    },
    watchError (code, reason = 'InternalError') {
      for (const watcher of [...watchers]) {
        watchers.delete(watcher)
        for (const timer of watcher.timers) clearTimeout(timer)
        watcher.res.end(errorLine(code, reason, `injected watch error ${code}`))
      }
    },
    revoke (verb, resource, namespace) {
      if (rbacMode) throw new Error('revoke: with the rbac authorizer, permissions come from RBAC objects: change or delete those')
      for (const grant of [...grants]) {
        if (grant.startsWith(`${verb} ${resource} `) && (namespace === undefined || grant === `${verb} ${resource} ${namespace}`)) grants.delete(grant)
      }
    },
    grant (verb, resource, namespace) {
      if (rbacMode) throw new Error('grant: with the rbac authorizer, permissions come from RBAC objects: put a Role and a binding')
      grants.add(`${verb} ${resource} ${namespace ?? '*'}`)
    },
    setFault (endpoint, fault) {
      if (fault === undefined) faults.delete(endpoint)
      else faults.set(endpoint, fault)
    },
    injectWatch (kind, text) {
      const open = [...watchers].filter((watcher) => watcher.kind === kind && !watcher.res.writableEnded && !watcher.res.destroyed)
      for (const watcher of open) watcher.res.write(text)
      return open.length
    },
    async floodWatch (kind, bytes) {
      const chunk = 'x'.repeat(1024 * 1024)
      const flood = async (res: ServerResponse): Promise<number> => {
        let written = 0
        while (written < bytes && !res.destroyed && !res.writableEnded) {
          const part = chunk.slice(0, bytes - written)
          written += part.length
          if (!res.write(part)) await drained(res)
        }
        return written
      }
      const sizes = await Promise.all([...watchers].filter((watcher) => watcher.kind === kind).map(async (watcher) => await flood(watcher.res)))
      return Math.max(0, ...sizes)
    },
    openWatches: (kind) => [...watchers].filter((watcher) => kind === undefined || watcher.kind === kind).length,
    lastWatchQuery: (kind) => lastWatchQueries.get(kind ?? 'any'),
    listQueries: (kind) => listQueries[kind],
    resetCalls () {
      for (const key of Object.keys(calls) as Array<keyof FakeKubeApiCalls>) calls[key] = 0
      listQueries = emptyQueries()
    },
    stop,
    start: async () => { if (!server.listening) await listen(port) },
    async close () {
      await stop()
      await rm(dir, { recursive: true, force: true })
    }
  }
}

/** The 422 `Invalid` Status a real API server answers, as a thrown error carrying it. */
export class FakeInvalidError extends Error {
  readonly code = 422
  constructor (readonly status: Record<string, unknown>) {
    super(String(status.message))
    this.name = 'FakeInvalidError'
  }
}

function invalid (kind: Kind, name: string, errors: readonly FieldError[]): FakeInvalidError {
  return new FakeInvalidError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: invalidMessage(qualifiedResource(KINDS[kind].kind, KINDS[kind].group), name, errors),
    reason: 'Invalid',
    details: { name, group: KINDS[kind].group, kind: KINDS[kind].kind, causes: errors.map(fieldCause) },
    code: 422
  })
}

/**
 * An RBAC object as kube-apiserver stores it: the rbac/v1 defaults applied (kubernetes
 * pkg/apis/rbac/v1/defaults.go: `roleRef.apiGroup`, and a User or Group subject's `apiGroup`, are
 * `rbac.authorization.k8s.io` when empty), then validated as pkg/apis/rbac/validation does
 * (ValidateRoleBinding, ValidateRole, and on update `roleRef` is immutable); throws the 422.
 */
function admit<T extends StoredObject> (kind: Kind, object: T, existing: T | undefined): T {
  const admitted = structuredClone(object)
  const errors: FieldError[] = []
  const name = typeof admitted.metadata?.name === 'string' ? admitted.metadata.name : ''
  if (name === '') errors.push(requiredField('metadata.name', 'name or generateName is required'))
  else for (const message of pathSegmentNameErrors(name)) errors.push(invalidField('metadata.name', JSON.stringify(name), message))
  // ValidateObjectMeta: a namespaced object's namespace is a DNS label. Over HTTP it is the path's,
  // of a namespace that exists (so valid); the helpers take it from the object, and create it.
  if (KINDS[kind].namespaced) {
    const namespace = admitted.metadata?.namespace ?? ''
    if (namespace === '') errors.push(requiredField('metadata.namespace'))
    else for (const message of dns1123LabelErrors(namespace)) errors.push(invalidField('metadata.namespace', JSON.stringify(namespace), message))
  }
  errors.push(...labelErrors(admitted.metadata?.labels ?? {}))
  if (isBindingKind(kind)) {
    const binding = admitted as unknown as RoleBindingJson
    const ref = (binding.roleRef ?? {}) as Partial<RoleBindingJson['roleRef']>
    if (ref.apiGroup === undefined || ref.apiGroup === '') ref.apiGroup = RBAC_GROUP
    binding.roleRef = ref as RoleBindingJson['roleRef']
    for (const subject of binding.subjects ?? []) {
      if ((subject.apiGroup === undefined || subject.apiGroup === '') && (subject.kind === 'User' || subject.kind === 'Group')) (subject as { apiGroup?: string }).apiGroup = RBAC_GROUP
    }
    if (ref.apiGroup !== RBAC_GROUP) errors.push(notSupportedField('roleRef.apiGroup', ref.apiGroup, [RBAC_GROUP]))
    const refKinds = kind === 'rolebindings' ? ['Role', 'ClusterRole'] : ['ClusterRole']
    if (!refKinds.includes(String(ref.kind))) errors.push(notSupportedField('roleRef.kind', String(ref.kind ?? ''), refKinds))
    if (typeof ref.name !== 'string' || ref.name === '') errors.push(requiredField('roleRef.name'))
    else for (const message of pathSegmentNameErrors(ref.name)) errors.push(invalidField('roleRef.name', JSON.stringify(ref.name), message))
    for (const [i, subject] of (binding.subjects ?? []).entries()) errors.push(...subjectErrors(subject, `subjects[${i}]`, kind === 'rolebindings'))
    const before = (existing as RoleBindingJson | undefined)?.roleRef
    if (before !== undefined && (before.apiGroup !== ref.apiGroup || before.kind !== ref.kind || before.name !== ref.name)) {
      errors.push(invalidField('roleRef', `rbac.RoleRef{APIGroup:${JSON.stringify(ref.apiGroup)}, Kind:${JSON.stringify(ref.kind ?? '')}, Name:${JSON.stringify(ref.name ?? '')}}`, 'cannot change roleRef'))
    }
  } else if (isRoleKind(kind)) {
    for (const [i, rule] of ((admitted as RoleJson).rules ?? []).entries()) errors.push(...policyRuleErrors(rule, `rules[${i}]`, kind === 'roles'))
  } else if (name !== '') {
    // ValidateServiceAccountName: a DNS subdomain.
    for (const message of dns1123SubdomainErrors(name)) errors.push(invalidField('metadata.name', JSON.stringify(name), message))
  }
  if (errors.length > 0) throw invalid(kind, name, errors)
  return admitted
}

/** ValidateRoleBindingSubject: a RoleBinding's (`namespaced`) ServiceAccount may leave out its namespace, a ClusterRoleBinding's may not. */
function subjectErrors (subject: RoleBindingSubject, path: string, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = []
  if (typeof subject.name !== 'string' || subject.name === '') errors.push(requiredField(`${path}.name`))
  const apiGroup = subject.apiGroup ?? ''
  switch (subject.kind) {
    case 'ServiceAccount':
      if (typeof subject.name === 'string' && subject.name !== '') for (const message of dns1123SubdomainErrors(subject.name)) errors.push(invalidField(`${path}.name`, JSON.stringify(subject.name), message))
      if (apiGroup !== '') errors.push(notSupportedField(`${path}.apiGroup`, apiGroup, ['']))
      if (!namespaced && (subject.namespace ?? '') === '') errors.push(requiredField(`${path}.namespace`))
      break
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errors.push(notSupportedField(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]))
      break
    default:
      errors.push(notSupportedField(`${path}.kind`, String(subject.kind ?? ''), ['ServiceAccount', 'User', 'Group']))
  }
  return errors
}

/** ValidatePolicyRule: only a ClusterRole's rules (not `namespaced`) may name non-resource URLs. */
function policyRuleErrors (rule: PolicyRuleJson, path: string, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = []
  const empty = (list: unknown): boolean => !Array.isArray(list) || list.length === 0
  if (empty(rule.verbs)) errors.push(requiredField(`${path}.verbs`, 'verbs must contain at least one value'))
  if (!empty(rule.nonResourceURLs)) {
    const urls = `[]string{${(rule.nonResourceURLs ?? []).map((url) => JSON.stringify(url)).join(', ')}}`
    if (namespaced) errors.push(invalidField(`${path}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'))
    if (!empty(rule.apiGroups) || !empty(rule.resources) || !empty(rule.resourceNames)) {
      errors.push(invalidField(`${path}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'))
    }
    return errors
  }
  if (empty(rule.apiGroups)) errors.push(requiredField(`${path}.apiGroups`, 'resource rules must supply at least one api group'))
  if (empty(rule.resources)) errors.push(requiredField(`${path}.resources`, 'resource rules must supply at least one resource'))
  return errors
}

/** apimachinery path.IsValidPathSegmentName: what an RBAC object's name may be. */
function pathSegmentNameErrors (name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`]
  const errors: string[] = []
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errors.push(`may not contain '${illegal}'`)
  return errors
}

/**
 * apimachinery ValidateLabels, which ValidateObjectMeta runs on every object: each key a qualified
 * name (an optional DNS subdomain prefix and `/`, then at most 63 characters), each value at most
 * 63 characters of a label's alphabet.
 */
function labelErrors (labels: Record<string, string>): FieldError[] {
  const errors: FieldError[] = []
  const qualified = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'
  for (const [key, value] of Object.entries(labels)) {
    const parts = key.split('/')
    const keyErrors: string[] = []
    if (parts.length > 2) {
      keyErrors.push(`a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${qualified}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`)
    } else {
      const name = parts.at(-1)!
      if (parts.length === 2) {
        if (parts[0] === '') keyErrors.push('prefix part must be non-empty')
        else keyErrors.push(...dns1123SubdomainErrors(parts[0]!).map((message) => `prefix part ${message}`))
      }
      if (name === '') keyErrors.push('name part must be non-empty')
      else if (name.length > 63) keyErrors.push('name part must be no more than 63 characters')
      if (name !== '' && !new RegExp(`^${qualified}$`).test(name)) {
        keyErrors.push(`name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${qualified}')`)
      }
    }
    for (const message of keyErrors) errors.push(invalidField('metadata.labels', JSON.stringify(key), message))
    if (value.length > 63) errors.push(invalidField('metadata.labels', JSON.stringify(value), 'must be no more than 63 characters'))
    if (!new RegExp(`^(${qualified})?$`).test(value)) {
      errors.push(invalidField('metadata.labels', JSON.stringify(value), 'a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', ' +
        `and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(${qualified})?')`))
    }
  }
  return errors
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/

/** apimachinery validation.IsDNS1123Label: what a namespace's name may be. */
function dns1123LabelErrors (name: string): string[] {
  const errors: string[] = []
  if (name.length > 63) errors.push('must be no more than 63 characters')
  if (DNS1123_LABEL.test(name)) return errors
  // A subdomain that is not a label (its length already said) has dots.
  if (DNS1123_SUBDOMAIN.test(name)) errors.push('must not contain dots')
  else {
    errors.push('a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character ' +
      '(e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')')
  }
  return errors
}

/** apimachinery validation.IsDNS1123Subdomain: what a ServiceAccount's name may be. */
function dns1123SubdomainErrors (name: string): string[] {
  const errors: string[] = []
  if (name.length > 253) errors.push('must be no more than 253 characters')
  if (!DNS1123_SUBDOMAIN.test(name)) {
    errors.push('a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character ' +
      '(e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')
  }
  return errors
}

/** Whether an update changes nothing a client wrote: then the API server writes nothing (no new version, no event). */
function sameContent (a: StoredObject, b: StoredObject): boolean {
  const content = (object: StoredObject): string => JSON.stringify({
    labels: object.metadata.labels ?? {},
    annotations: object.metadata.annotations ?? {},
    roleRef: (object as RoleBindingJson).roleRef,
    subjects: (object as RoleBindingJson).subjects ?? [],
    rules: (object as RoleJson).rules ?? [],
    serviceAccount: ['automountServiceAccountToken', 'secrets', 'imagePullSecrets'].map((field) => (object as unknown as Record<string, unknown>)[field])
  })
  return content(a) === content(b)
}

/**
 * Whether a request body's `Content-Type` is one the double decodes: JSON, or none (the API
 * server then assumes JSON). YAML and protobuf, which a real server also takes, are not
 * emulated; anything else is a 415 there too (apiserver pkg/endpoints/handlers/negotiation).
 */
function isJsonBody (contentType: string | undefined): boolean {
  if (contentType === undefined || contentType === '') return true
  return contentType.split(';')[0]!.trim().toLowerCase() === 'application/json'
}

/** Go's name for a JSON value's type, as encoding/json reports an unmarshalling error. */
function jsonTypeName (value: unknown): string {
  if (Array.isArray(value)) return 'array'
  if (value === null) return 'null'
  return typeof value === 'object' ? 'object' : typeof value
}

/**
 * The token and audiences of a TokenReview body, or the message of the 400 a real server
 * answers (apiserver pkg/endpoints/handlers/create.go and rest.go transformDecodeError).
 */
/**
 * Decodes a body as one object of `kind` in `groupVersion`, or answers the message of the 400
 * a real server gives (apiserver pkg/endpoints/handlers/create.go, rest.go transformDecodeError):
 * not JSON, another kind, another version; a missing apiVersion or kind takes the endpoint's.
 */
function decodeTyped (body: string, kind: string, groupVersion: string, otherVersions: readonly string[]): Record<string, unknown> | string {
  let decoded: unknown
  try {
    decoded = JSON.parse(body)
  } catch (error) {
    return `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${(error as Error).message} (${body.slice(0, 30)})`
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) {
    return `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(decoded)} into Go value of type struct { APIVersion string; Kind string } (${body.slice(0, 30)})`
  }
  const object = decoded as Record<string, unknown>
  const version = typeof object.apiVersion === 'string' && object.apiVersion !== '' ? object.apiVersion : groupVersion
  const kindName = typeof object.kind === 'string' && object.kind !== '' ? object.kind : kind
  if (kindName !== kind || (version !== groupVersion && !otherVersions.includes(version))) {
    return `${kindName} in version "${version.split('/').pop() ?? ''}" cannot be handled as a ${kind}: no kind "${kindName}" is registered for version "${version}" in scheme "pkg/api/legacyscheme/scheme.go:30"`
  }
  if (version !== groupVersion) return `the API version in the data (${version}) does not match the expected API version (${groupVersion})`
  return object
}

/** `<Kind> in version "v1" cannot be handled as a <Kind>: json: cannot unmarshal ...`: a field of the wrong JSON type. */
function cannotUnmarshal (kind: string, field: string, value: unknown, type: string): string {
  return `${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${field} of type ${type}`
}

/**
 * A RoleBinding or Role body decoded as the API server decodes it: typed fields checked, unknown
 * top-level fields dropped (with a warning) or, under `fieldValidation=Strict` (kubectl's
 * default), refused.
 */
function decodeObject (kind: Kind, body: string, fieldValidation: string): { object: StoredObject, unknownFields: string[] } | string {
  const kindName = KINDS[kind].kind
  const olderVersions = KINDS[kind].group === RBAC_GROUP ? [`${RBAC_GROUP}/v1beta1`, `${RBAC_GROUP}/v1alpha1`] : []
  const decoded = decodeTyped(body, kindName, apiVersionOf(kind), olderVersions)
  if (typeof decoded === 'string') return decoded
  const objectFields = (value: unknown): boolean => value === undefined || value === null || (typeof value === 'object' && !Array.isArray(value))
  const listOfObjects = (value: unknown): boolean => value === undefined || value === null || (Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item)))
  if (!objectFields(decoded.metadata)) return cannotUnmarshal(kindName, `${kindName}.metadata`, decoded.metadata, 'v1.ObjectMeta')
  const known = ['apiVersion', 'kind', 'metadata', ...KINDS[kind].fields]
  if (isBindingKind(kind)) {
    if (!objectFields(decoded.roleRef)) return cannotUnmarshal(kindName, `${kindName}.roleRef`, decoded.roleRef, 'v1.RoleRef')
    if (!listOfObjects(decoded.subjects)) return cannotUnmarshal(kindName, `${kindName}.subjects`, decoded.subjects, '[]v1.Subject')
  } else if (isRoleKind(kind)) {
    if (!listOfObjects(decoded.rules)) return cannotUnmarshal(kindName, `${kindName}.rules`, decoded.rules, '[]v1.PolicyRule')
  } else {
    const automount = decoded.automountServiceAccountToken
    if (automount !== undefined && automount !== null && typeof automount !== 'boolean') return cannotUnmarshal(kindName, `${kindName}.automountServiceAccountToken`, automount, 'bool')
    if (!listOfObjects(decoded.secrets)) return cannotUnmarshal(kindName, `${kindName}.secrets`, decoded.secrets, '[]v1.ObjectReference')
    if (!listOfObjects(decoded.imagePullSecrets)) return cannotUnmarshal(kindName, `${kindName}.imagePullSecrets`, decoded.imagePullSecrets, '[]v1.LocalObjectReference')
  }
  const unknownFields = Object.keys(decoded).filter((field) => !known.includes(field))
  if (unknownFields.length > 0 && fieldValidation === 'Strict') {
    return `${kindName} in version "v1" cannot be handled as a ${kindName}: strict decoding error: ${unknownFields.map((field) => `unknown field ${JSON.stringify(field)}`).join(', ')}`
  }
  const object = Object.fromEntries(Object.entries(decoded).filter(([field, value]) => known.includes(field) && value !== null))
  return { object: object as unknown as StoredObject, unknownFields }
}

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']

type PatchResult = { object: Record<string, unknown>, error?: undefined } | { error: { code: number, reason: string, message: string } }

/**
 * A PATCH applied to the stored object (apiserver pkg/endpoints/handlers/patch.go): a JSON merge
 * patch (RFC 7386), a strategic merge patch (for RoleBindings and Roles it merges as a merge
 * patch does, their lists having no merge key, plus the `$patch` and `$retainKeys` directives), or
 * a JSON patch (RFC 6902). Server-side apply is not emulated (415); another type is a 415 there too.
 */
function applyPatch (contentType: string | undefined, current: Record<string, unknown>, body: string): PatchResult {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  if (!PATCH_TYPES.includes(type) || type === 'application/apply-patch+yaml') {
    const message = type === 'application/apply-patch+yaml'
      ? 'server-side apply is not emulated by the fake API server'
      : `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(', ')}`
    return { error: { code: 415, reason: 'UnsupportedMediaType', message } }
  }
  let patch: unknown
  try {
    patch = JSON.parse(body)
  } catch (error) {
    return { error: { code: 400, reason: 'BadRequest', message: `error decoding patch: ${(error as Error).message}` } }
  }
  try {
    const patched = type === 'application/json-patch+json' ? jsonPatch(current, patch) : mergePatch(current, patch, type === 'application/strategic-merge-patch+json')
    if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) throw new Error('the patch did not leave an object')
    return { object: patched as Record<string, unknown> }
  } catch (error) {
    return { error: { code: 422, reason: 'Invalid', message: (error as Error).message } }
  }
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** RFC 7386 merge patch; with `strategic`, also the `$patch: replace|delete` and `$retainKeys` directives of maps. */
function mergePatch (target: unknown, patch: unknown, strategic: boolean): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch)
  const directive = strategic ? patch.$patch : undefined
  if (directive === 'delete') return undefined
  if (directive !== undefined && directive !== 'replace') throw new Error(`Unknown patch type: ${String(directive)}`)
  const result: Record<string, unknown> = directive === 'replace' || !isPlainObject(target) ? {} : { ...target }
  for (const [key, value] of Object.entries(patch)) {
    if (strategic && key.startsWith('$')) {
      if (key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/')) continue
      throw new Error(`unknown patch directive: ${key}`)
    }
    const merged = value === null ? undefined : mergePatch(result[key], value, strategic)
    if (merged === undefined) delete result[key]
    else result[key] = merged
  }
  const retain = strategic ? patch.$retainKeys : undefined
  if (Array.isArray(retain)) for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key]
  return result
}

/** RFC 6902 JSON patch: add, remove, replace, move, copy and test. */
function jsonPatch (document: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw new Error('json: cannot unmarshal object into Go value of type jsonpatch.Patch')
  let doc = structuredClone(document)
  const parse = (pointer: unknown): string[] => {
    if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/'))) throw new Error(`invalid JSON pointer: ${String(pointer)}`)
    return pointer === '' ? [] : pointer.slice(1).split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
  }
  const parentOf = (path: string[]): [unknown, string] => {
    let node: unknown = doc
    for (const part of path.slice(0, -1)) {
      node = Array.isArray(node) ? node[Number(part)] : isPlainObject(node) ? node[part] : undefined
      if (node === undefined) throw new Error(`doc is missing path: /${path.join('/')}`)
    }
    return [node, path[path.length - 1]!]
  }
  const get = (path: string[]): unknown => {
    if (path.length === 0) return doc
    const [parent, key] = parentOf(path)
    const value = Array.isArray(parent) ? parent[Number(key)] : isPlainObject(parent) ? parent[key] : undefined
    if (value === undefined) throw new Error(`doc is missing path: /${path.join('/')}`)
    return value
  }
  const removeAt = (path: string[]): unknown => {
    const value = get(path)
    const [parent, key] = parentOf(path)
    if (Array.isArray(parent)) parent.splice(Number(key), 1)
    else delete (parent as Record<string, unknown>)[key]
    return value
  }
  const addAt = (path: string[], value: unknown): void => {
    if (path.length === 0) { doc = value; return }
    const [parent, key] = parentOf(path)
    if (Array.isArray(parent)) {
      const index = key === '-' ? parent.length : Number(key)
      if (!Number.isInteger(index) || index < 0 || index > parent.length) throw new Error(`add operation does not apply: index ${key} out of bounds`)
      parent.splice(index, 0, value)
    } else if (isPlainObject(parent)) {
      parent[key] = value
    } else {
      throw new Error(`doc is missing path: /${path.join('/')}`)
    }
  }
  for (const operation of patch as Array<Record<string, unknown>>) {
    const path = parse(operation.path)
    switch (operation.op) {
      case 'add': addAt(path, structuredClone(operation.value)); break
      case 'remove': removeAt(path); break
      case 'replace': removeAt(path); addAt(path, structuredClone(operation.value)); break
      case 'move': addAt(path, removeAt(parse(operation.from))); break
      case 'copy': addAt(path, structuredClone(get(parse(operation.from)))); break
      case 'test':
        if (JSON.stringify(get(path)) !== JSON.stringify(operation.value)) throw new Error(`testing value /${path.join('/')} failed: test failed`)
        break
      default: throw new Error(`Unexpected kind: ${String(operation.op)}`)
    }
  }
  return doc
}

/**
 * The protobuf fields of a message that are length-delimited (strings, bytes, messages), by
 * field number; other wire types are skipped. Undefined when the bytes are not protobuf.
 */
function protobufFields (bytes: Buffer): Map<number, Buffer[]> | undefined {
  const fields = new Map<number, Buffer[]>()
  let at = 0
  const varint = (): number | undefined => {
    let value = 0
    for (let shift = 0; at < bytes.length && shift < 64; shift += 7) {
      const byte = bytes[at++]!
      value += (byte & 0x7f) * 2 ** shift
      if (byte < 0x80) return value
    }
    return undefined
  }
  while (at < bytes.length) {
    const key = varint()
    if (key === undefined) return undefined
    const wireType = key % 8
    if (wireType === 0) { if (varint() === undefined) return undefined } else if (wireType === 1) at += 8
    else if (wireType === 5) at += 4
    else if (wireType === 2) {
      const length = varint()
      if (length === undefined || at + length > bytes.length) return undefined
      const field = Math.floor(key / 8)
      fields.set(field, [...(fields.get(field) ?? []), bytes.subarray(at, at + length)])
      at += length
    } else return undefined
  }
  return at === bytes.length ? fields : undefined
}

/**
 * A SelfSubjectAccessReview sent as protobuf (k8s.io/api authorization/v1 generated.proto): the
 * `k8s\0` envelope (runtime.Unknown: typeMeta 1, raw 2), the review (spec 2), its spec
 * (resourceAttributes 1, nonResourceAttributes 2) and their string fields, as the JSON form.
 */
function decodeAccessReviewProtobuf (raw: Buffer): Record<string, unknown> | string {
  const failure = 'the object provided is unrecognized (must be of type SelfSubjectAccessReview): not a protobuf SelfSubjectAccessReview'
  if (raw.subarray(0, 4).toString('latin1') !== 'k8s\u0000') return failure
  const envelope = protobufFields(raw.subarray(4))
  const review = protobufFields(envelope?.get(2)?.[0] ?? Buffer.alloc(0))
  const spec = protobufFields(review?.get(2)?.[0] ?? Buffer.alloc(0))
  if (envelope === undefined || review === undefined || spec === undefined) return failure
  const strings = (message: Buffer | undefined, names: readonly string[]): Record<string, string> | undefined => {
    if (message === undefined) return undefined
    const fields = protobufFields(message) ?? new Map<number, Buffer[]>()
    return Object.fromEntries(names.flatMap((name, i) => fields.has(i + 1) ? [[name, fields.get(i + 1)![0]!.toString('utf8')]] : []))
  }
  const resourceAttributes = strings(spec.get(1)?.[0], ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'])
  const nonResourceAttributes = strings(spec.get(2)?.[0], ['path', 'verb'])
  return {
    spec: { ...(resourceAttributes === undefined ? {} : { resourceAttributes }), ...(nonResourceAttributes === undefined ? {} : { nonResourceAttributes }) }
  }
}

function decodeTokenReview (body: string): { token: string, audiences: string[] } | string {
  const review = decodeTyped(body, 'TokenReview', `${AUTHENTICATION_GROUP}/v1`, [`${AUTHENTICATION_GROUP}/v1beta1`])
  if (typeof review === 'string') return review
  const { spec } = review
  if (spec !== undefined && spec !== null && (typeof spec !== 'object' || Array.isArray(spec))) return cannotUnmarshal('TokenReview', 'TokenReview.spec', spec, 'v1.TokenReviewSpec')
  const { token, audiences } = (spec ?? {}) as { token?: unknown, audiences?: unknown }
  if (token !== undefined && token !== null && typeof token !== 'string') return cannotUnmarshal('TokenReview', 'TokenReviewSpec.spec.token', token, 'string')
  if (audiences !== undefined && audiences !== null) {
    if (!Array.isArray(audiences)) return cannotUnmarshal('TokenReview', 'TokenReviewSpec.spec.audiences', audiences, '[]string')
    const bad = audiences.find((audience) => typeof audience !== 'string')
    if (bad !== undefined) return cannotUnmarshal('TokenReview', 'TokenReviewSpec.spec.audiences', bad, 'string')
  }
  return { token: typeof token === 'string' ? token : '', audiences: Array.isArray(audiences) ? audiences as string[] : [] }
}

/** How long a list waits for a resourceVersion it has not reached (apiserver storage/cacher/watch_cache.go blockTimeout). */
const RESOURCE_VERSION_WAIT_MS = 3000

/** apiserver pkg/storage/etcd3/errors.go: a continue token whose version was compacted. */
const CONTINUE_EXPIRED = 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, ' +
  'or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - ' +
  'objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.'

/** Keys compare as etcd compares them: byte by byte. */
function byteOrder (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** A continue token as apiserver pkg/storage/continue.go writes it: the version and the key to start from. */
function encodeContinue (rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url')
}

/** A continue token read back, or why it is not valid (storage/continue.go DecodeContinue). */
function decodeContinue (token: string): { rv: number, start: string } | string {
  if (!/^[A-Za-z0-9_-]*$/.test(token) || token.length % 4 === 1) return 'continue key is not valid: illegal base64 data'
  let decoded: { v?: unknown, rv?: unknown, start?: unknown }
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))
  } catch (error) {
    return `continue key is not valid: ${(error as Error).message}`
  }
  if (typeof decoded !== 'object' || decoded === null) return 'continue key is not valid'
  if (decoded.v !== 'meta.k8s.io/v1') return `continue key is not valid: server does not recognize this encoded version ${String(decoded.v ?? '')}`
  const rv = typeof decoded.rv === 'number' && Number.isInteger(decoded.rv) ? decoded.rv : 0
  if (rv === 0) return 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)'
  const start = typeof decoded.start === 'string' ? decoded.start : ''
  if (start === '') return 'continue key is not valid: encoded start key empty (version meta.k8s.io/v1)'
  const key = start.startsWith('/') ? start : `/${start}`
  // path.Clean must leave the key as it is: no climbing out of the collection's prefix.
  if (posix.normalize(key) !== key || (key.length > 1 && key.endsWith('/'))) return `continue key is not valid: ${start}`
  return { rv, start: key.slice(1) }
}

/** A resourceVersion as the API server parses it (storage/api_object_versioner.go): a uint64, or the error. */
function parseResourceVersion (value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : `strconv.ParseUint: parsing ${JSON.stringify(value)}: invalid syntax`
}

/** An int64 query parameter (0 when absent), or the 400 message of one that is not a number. */
function queryInt (params: URLSearchParams, name: string): number | string {
  const value = params.get(name)
  if (value === null) return 0
  return /^[-+]?\d+$/.test(value) ? Number(value) : `strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`
}

/** A validation error of one field, as apimachinery's field.Error. */
interface FieldError {
  readonly field: string
  readonly type: 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueForbidden' | 'FieldValueNotSupported'
  /** The error's text after the field path, e.g. `Forbidden: resourceVersionMatch is forbidden ...`. */
  readonly text: string
}

const forbiddenField = (field: string, detail: string): FieldError => ({ field, type: 'FieldValueForbidden', text: `Forbidden: ${detail}` })
const requiredField = (field: string, detail = ''): FieldError => ({ field, type: 'FieldValueRequired', text: detail === '' ? 'Required value' : `Required value: ${detail}` })
const invalidField = (field: string, value: string, detail: string): FieldError => ({ field, type: 'FieldValueInvalid', text: `Invalid value: ${value}: ${detail}` })
const notSupportedField = (field: string, value: string, supported: readonly string[]): FieldError =>
  ({ field, type: 'FieldValueNotSupported', text: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((one) => JSON.stringify(one)).join(', ')}` })

/** `<Kind>.<group> "<name>" is invalid: <errors>`, as apimachinery's NewInvalid words it. */
function invalidMessage (qualifiedKind: string, name: string, errors: readonly FieldError[]): string {
  const texts = errors.map((error) => `${error.field}: ${error.text}`)
  return `${qualifiedKind} ${JSON.stringify(name)} is invalid: ${texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`}`
}

function fieldCause (error: FieldError): Record<string, string> {
  return { reason: error.type, message: error.text, field: error.field }
}

/** What apimachinery's ValidateListOptions refuses of a list (not a watch) request. */
function listOptionErrors (params: URLSearchParams): FieldError[] {
  const errors: FieldError[] = []
  const match = params.get('resourceVersionMatch') ?? ''
  if (match !== '') {
    if ((params.get('resourceVersion') ?? '') === '') errors.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'))
    if ((params.get('continue') ?? '') !== '') errors.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'))
    if (match !== 'Exact' && match !== 'NotOlderThan') errors.push(notSupportedField('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']))
    if (match === 'Exact' && params.get('resourceVersion') === '0') errors.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
  }
  if (params.has('sendInitialEvents')) errors.push(forbiddenField('sendInitialEvents', 'sendInitialEvents is forbidden for list'))
  return errors
}

/**
 * What apimachinery's ValidateListOptions refuses of a watch, with the WatchList feature gate
 * off as kube-apiserver 1.33 has it (so `sendInitialEvents` is refused).
 */
function watchOptionErrors (params: URLSearchParams): FieldError[] {
  const errors: FieldError[] = []
  const match = params.get('resourceVersionMatch') ?? ''
  const sendInitialEvents = params.has('sendInitialEvents')
  if (sendInitialEvents) {
    if (match !== 'NotOlderThan') errors.push(forbiddenField('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'))
    errors.push(forbiddenField('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'))
  }
  if (match !== '') {
    if (!sendInitialEvents) errors.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'))
    if (match !== 'NotOlderThan') errors.push(notSupportedField('resourceVersionMatch', match, ['NotOlderThan']))
    if ((params.get('continue') ?? '') !== '') errors.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'))
  }
  return errors
}

/** Which objects a request is about. */
interface Selector {
  readonly empty: boolean
  matches (object: StoredObject): boolean
}

/**
 * `fieldSelector` (only `metadata.name` and `metadata.namespace`, with `=`, `==`, `!=`:
 * apimachinery runtime DefaultMetaV1FieldSelectorConversion), `labelSelector` (`=`, `==`, `!=`,
 * `in`, `notin`, `exists`, `!exists`, `gt`, `lt`: apimachinery labels.Parse) and a name in the
 * path (a watch of one object: get.go listOpts), or the 400 message of a selector the API server refuses.
 */
function parseSelectors (params: URLSearchParams, name: string | undefined): Selector | string {
  const tests: Array<(object: StoredObject) => boolean> = []
  const fieldText = params.get('fieldSelector') ?? ''
  let selectedName: string | undefined
  for (const term of fieldText === '' ? [] : fieldText.split(',')) {
    const found = /^([^!=]+)(==|=|!=)(.*)$/.exec(term)
    if (found === null) return `invalid selector: '${fieldText}'; can't understand '${term}'`
    const [, field, operator, value] = found as unknown as [string, string, string, string]
    if (field !== 'metadata.name' && field !== 'metadata.namespace') return `${JSON.stringify(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`
    if (field === 'metadata.name' && operator !== '!=') selectedName = value
    const read = (object: StoredObject): string => field === 'metadata.name' ? object.metadata.name : namespaceOf(object)
    tests.push(operator === '!=' ? (object) => read(object) !== value : (object) => read(object) === value)
  }
  if (name !== undefined) {
    if (fieldText !== '' && selectedName !== name) return 'fieldSelector metadata.name doesn\'t match requested name'
    tests.push((object) => object.metadata.name === name)
  }
  const labelText = params.get('labelSelector') ?? ''
  for (const requirement of labelText.trim() === '' ? [] : splitRequirements(labelText)) {
    const parsed = labelRequirement(requirement.trim())
    if (typeof parsed === 'string') return `unable to parse requirement: ${parsed}`
    tests.push((object) => parsed(object.metadata.labels ?? {}))
  }
  return { empty: tests.length === 0, matches: (object) => tests.every((test) => test(object)) }
}

/** Label selector requirements, split on the commas outside `( )`. */
function splitRequirements (text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++
    else if (text[i] === ')') depth--
    else if (text[i] === ',' && depth === 0) { parts.push(text.slice(start, i)); start = i + 1 }
  }
  parts.push(text.slice(start))
  return parts
}

const LABEL_KEY = '(?:[a-z0-9A-Z.-]+/)?[a-zA-Z0-9](?:[-a-zA-Z0-9_.]*[a-zA-Z0-9])?'
const LABEL_VALUE = '(?:[a-zA-Z0-9](?:[-a-zA-Z0-9_.]*[a-zA-Z0-9])?)?'

/** One label selector requirement as a test of an object's labels, or why it does not parse. */
function labelRequirement (text: string): ((labels: Record<string, string>) => boolean) | string {
  let found = new RegExp(`^(${LABEL_KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`).exec(text)
  if (found !== null) {
    const [, key, operator, list] = found as unknown as [string, string, string, string]
    const values = list.split(',').map((value) => value.trim())
    if (values.some((value) => !new RegExp(`^${LABEL_VALUE}$`).test(value))) return `invalid label value in: ${text}`
    return operator === 'in' ? (labels) => key in labels && values.includes(labels[key]!) : (labels) => !(key in labels) || !values.includes(labels[key]!)
  }
  found = new RegExp(`^(!?)(${LABEL_KEY})$`).exec(text)
  if (found !== null) {
    const [, not, key] = found as unknown as [string, string, string]
    return not === '!' ? (labels) => !(key in labels) : (labels) => key in labels
  }
  found = new RegExp(`^(${LABEL_KEY})\\s*(==|=|!=|>|<)\\s*(${LABEL_VALUE})$`).exec(text)
  if (found === null) return `found '${text}', expected: identifier, '!', 'in', 'notin', '=', '==', '!=', 'gt' or 'lt'`
  const [, key, operator, value] = found as unknown as [string, string, string, string]
  switch (operator) {
    case '!=': return (labels) => labels[key] !== value
    case '>':
    case '<': {
      if (!/^\d+$/.test(value)) return `for 'Gt', 'Lt' operators, the value must be an integer: ${text}`
      const bound = Number(value)
      return (labels) => key in labels && /^-?\d+$/.test(labels[key]!) && (operator === '>' ? Number(labels[key]) > bound : Number(labels[key]) < bound)
    }
    default: return (labels) => labels[key] === value
  }
}

/** The payload of a JWT-shaped token, or undefined. */
function jwtClaims (token: string): Record<string, unknown> | undefined {
  const parts = token.split('.')
  if (parts.length !== 3) return undefined
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? claims as Record<string, unknown> : undefined
  } catch {
    return undefined
  }
}

function sendJson (res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers })
  res.end(text)
}

async function readBody (req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Resolves when `res` can take more (`drain`) or will never (closed). */
async function drained (res: ServerResponse): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = (): void => { res.off('drain', done); res.off('close', done); resolve() }
    res.on('drain', done)
    res.on('close', done)
  })
}

async function delay (ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
}
