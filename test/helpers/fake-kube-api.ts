/**
 * A faithful fake Kubernetes API server for tests: HTTPS on 127.0.0.1 with its own CA,
 * driven through the real `@kubernetes/client-node` client via a kubeconfig it writes.
 *
 * ```ts
 * const api = await startFakeKubeApi({ namespace: 'feast' })
 * api.addToken('alice-token', { username: 'system:serviceaccount:apps:alice', groups: ['system:serviceaccounts', 'system:serviceaccounts:apps'] })
 * api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
 * const kc = api.kubeConfig()            // or KUBECONFIG=api.kubeconfigPath for a child process
 * api.calls.tokenReviews                 // how many TokenReviews it received
 * api.setFault('tokenreviews', { status: 403 })
 * await api.stop(); await api.start()    // connections refused while stopped
 * await api.close()                      // in after()
 * ```
 *
 * Served (everything else is 404 with a `Status` body):
 * - `POST /apis/authentication.k8s.io/v1/tokenreviews` — answers 201 with a real `TokenReview`:
 *   registered tokens authenticate when their audiences intersect `spec.audiences` (or, when the
 *   request names none, the API server's own audience `https://kubernetes.default.svc`), and
 *   `status.audiences` is that intersection; unknown tokens get `authenticated: false` and an
 *   `error`, like the real server.
 * - `GET /apis/rbac.authorization.k8s.io/v1/namespaces/<ns>/rolebindings` — a `RoleBindingList`
 *   with `metadata.resourceVersion`; with `?watch=true`, a newline-delimited stream of
 *   `ADDED`/`MODIFIED`/`DELETED` events after `resourceVersion` (replayed from history),
 *   `BOOKMARK`s when `allowWatchBookmarks=true`, closed after `timeoutSeconds`; a
 *   `resourceVersion` older than the last {@link FakeKubeApi.compact} gets an `ERROR` event
 *   with a 410 `Status`, as a real server answers an expired version.
 *
 * Every request must carry `Authorization: Bearer <serviceToken>` (the service's own
 * credential, written into the kubeconfig); anything else is a 401 `Status`.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import https from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { KubeConfig } from '@kubernetes/client-node'

/** The API server's own audience, as a default kube-apiserver has it. */
export const API_SERVER_AUDIENCE = 'https://kubernetes.default.svc'

export interface FakeIdentity {
  readonly username: string
  readonly uid?: string
  readonly groups?: readonly string[]
  /** Audiences the token was issued for. Default: the API server's own. */
  readonly audiences?: readonly string[]
}

export interface RoleBindingSubject {
  readonly kind: 'ServiceAccount' | 'User' | 'Group'
  readonly name: string
  readonly namespace?: string
  readonly apiGroup?: string
}

/** The JSON shape of an `rbac.authorization.k8s.io/v1` RoleBinding. */
export interface RoleBindingJson {
  apiVersion?: string
  kind?: string
  metadata: { name: string, namespace: string, resourceVersion?: string, uid?: string, creationTimestamp?: string }
  roleRef: { apiGroup: string, kind: 'Role' | 'ClusterRole', name: string }
  subjects?: RoleBindingSubject[]
}

export type FakeEndpoint = 'tokenreviews' | 'rolebindings' | 'all'
/**
 * A fault in front of an endpoint: an HTTP error status with a `Status` body, a delay
 * before the real answer, a reset connection; on watch requests only, `gone` (HTTP 410),
 * `stall` (200 and then silence: no event, no bookmark, never closed), `hang` (no
 * response at all) or `flap` (200 and an immediate end, every time).
 */
export type FakeFault = { readonly status: number } | { readonly delayMs: number } | 'reset' | 'gone' | 'stall' | 'hang' | 'flap'

export interface FakeKubeApiCalls {
  tokenReviews: number
  roleBindingLists: number
  roleBindingWatches: number
  /** Requests without the service's bearer token. */
  unauthorized: number
}

export interface FakeKubeApi {
  /** `https://127.0.0.1:<port>` */
  readonly url: string
  /** The CA certificate (PEM) that signed the server certificate. */
  readonly caPem: string
  /** The bearer token the service must present (written into the kubeconfig). */
  readonly serviceToken: string
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
  /** Creates or replaces a binding; watchers get `ADDED` or `MODIFIED`. Returns the stored object. */
  putRoleBinding (binding: RoleBindingJson): RoleBindingJson
  /** Deletes a binding; watchers get `DELETED`. */
  deleteRoleBinding (namespace: string, name: string): void
  /** Sends a `BOOKMARK` to every bookmark-enabled watch now. */
  bookmark (): void
  /** Forgets history: watches from an older `resourceVersion` get 410; open watches get an ERROR 410 and close. */
  compact (): void
  /** Sets (or clears, with `undefined`) a fault for one endpoint or all. */
  setFault (endpoint: FakeEndpoint, fault: FakeFault | undefined): void
  /** Open watch streams right now. */
  openWatches (): number
  /** Query parameters of the last watch request (`resourceVersion`, `allowWatchBookmarks`, `timeoutSeconds`...). */
  lastWatchQuery (): Record<string, string> | undefined
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
  /** Bookmark interval for bookmark-enabled watches. Default 1000 ms. */
  readonly bookmarkIntervalMs?: number
}

/** A RoleBinding in `namespace` binding `subjects` to the Role (or ClusterRole) `role`. */
export function roleBinding (namespace: string, name: string, role: string, subjects: RoleBindingSubject[], roleKind: 'Role' | 'ClusterRole' = 'Role'): RoleBindingJson {
  return {
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
    subjects: subjects.map((subject) => subject.kind === 'ServiceAccount' ? { ...subject } : { apiGroup: 'rbac.authorization.k8s.io', ...subject })
  }
}

/** The username and groups the real API server gives a service account's token. */
export function serviceAccountIdentity (namespace: string, name: string, audiences?: readonly string[]): FakeIdentity {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    uid: `uid-${namespace}-${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    ...(audiences === undefined ? {} : { audiences })
  }
}

/**
 * A JWT-shaped service-account token (unsigned: only the fake API server knows it is valid),
 * carrying the `kubernetes.io` claim that the OIDC manager routes to TokenReview.
 */
export function serviceAccountJwt (namespace: string, name: string, options: { exp?: number } = {}): string {
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'fake' })).toString('base64url')
  const payload = Buffer.from(JSON.stringify({
    iss: 'https://kubernetes.default.svc.cluster.local',
    sub: `system:serviceaccount:${namespace}:${name}`,
    aud: [API_SERVER_AUDIENCE],
    exp: options.exp ?? Math.floor(Date.now() / 1000) + 3600,
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

interface WatchEvent { type: 'ADDED' | 'MODIFIED' | 'DELETED', object: RoleBindingJson, rv: number }
interface Watcher { namespace: string, res: ServerResponse, bookmarks: boolean, timer: NodeJS.Timeout | undefined }

const ROLE_BINDINGS_PATH = /^\/apis\/rbac\.authorization\.k8s\.io\/v1\/namespaces\/([a-z0-9-]+)\/rolebindings$/

export async function startFakeKubeApi (options: FakeKubeApiOptions = {}): Promise<FakeKubeApi> {
  tlsMaterial ??= generateTls()
  const tls = await tlsMaterial
  const dir = await mkdtemp(join(tmpdir(), 'fake-kube-api-'))
  const serviceToken = `svc-${randomBytes(16).toString('hex')}`
  const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 1000

  const tokens = new Map<string, FakeIdentity>()
  const bindings = new Map<string, RoleBindingJson>() // key: ns/name
  let history: WatchEvent[] = []
  let resourceVersion = 1000
  let compactedBefore = 0
  const watchers = new Set<Watcher>()
  const faults = new Map<FakeEndpoint, FakeFault>()
  const calls: FakeKubeApiCalls = { tokenReviews: 0, roleBindingLists: 0, roleBindingWatches: 0, unauthorized: 0 }
  const sockets = new Set<Socket>()
  let lastWatchQuery: Record<string, string> | undefined

  const server = https.createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => { void handle(req, res) })
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

  function status (res: ServerResponse, code: number, reason: string, message: string): void {
    sendJson(res, code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code })
  }

  function faultFor (endpoint: 'tokenreviews' | 'rolebindings'): FakeFault | undefined {
    return faults.get(endpoint) ?? faults.get('all')
  }

  async function handle (req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestUrl = new URL(req.url ?? '/', url)
    const body = await readBody(req)
    if (req.headers.authorization !== `Bearer ${serviceToken}`) {
      calls.unauthorized++
      status(res, 401, 'Unauthorized', 'Unauthorized')
      return
    }
    const bindingsMatch = ROLE_BINDINGS_PATH.exec(requestUrl.pathname)
    const endpoint = requestUrl.pathname === '/apis/authentication.k8s.io/v1/tokenreviews' ? 'tokenreviews' : bindingsMatch !== null ? 'rolebindings' : undefined
    if (endpoint === undefined) {
      status(res, 404, 'NotFound', 'the server could not find the requested resource')
      return
    }
    const isWatch = requestUrl.searchParams.get('watch') === 'true'
    if (endpoint === 'tokenreviews') calls.tokenReviews++
    else if (isWatch) { calls.roleBindingWatches++; lastWatchQuery = Object.fromEntries(requestUrl.searchParams) } else calls.roleBindingLists++

    const fault = faultFor(endpoint)
    if (fault === 'reset') { req.socket.destroy(); return }
    if (fault !== undefined && typeof fault === 'object' && 'delayMs' in fault) await delay(fault.delayMs)
    if (res.destroyed) return
    if (fault !== undefined && typeof fault === 'object' && 'status' in fault) {
      if (fault.status === 403) {
        const message = endpoint === 'tokenreviews'
          ? 'tokenreviews.authentication.k8s.io is forbidden: User "system:serviceaccount:feast:feast" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope'
          : `rolebindings.rbac.authorization.k8s.io is forbidden: User "system:serviceaccount:feast:feast" cannot list resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "${bindingsMatch?.[1] ?? ''}"`
        status(res, 403, 'Forbidden', message)
      } else {
        status(res, fault.status, fault.status >= 500 ? 'InternalError' : 'BadRequest', `injected failure ${fault.status}`)
      }
      return
    }

    if (endpoint === 'tokenreviews') {
      if (req.method !== 'POST') { status(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'); return }
      reviewToken(res, body)
      return
    }
    if (req.method !== 'GET') { status(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'); return }
    const namespace = bindingsMatch![1]!
    if (isWatch) {
      if (fault === 'gone') { status(res, 410, 'Expired', 'too old resource version'); return }
      if (fault === 'hang') return
      if (fault === 'flap') { res.writeHead(200, { 'content-type': 'application/json' }); res.end(); return }
      if (fault === 'stall') { res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }); res.flushHeaders(); return }
      watch(req, res, namespace, requestUrl.searchParams)
      return
    }
    const items = [...bindings.values()].filter((binding) => binding.metadata.namespace === namespace).map((binding) => structuredClone(binding))
    sendJson(res, 200, { kind: 'RoleBindingList', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { resourceVersion: String(resourceVersion) }, items })
  }

  function reviewToken (res: ServerResponse, body: string): void {
    let review: { kind?: unknown, apiVersion?: unknown, spec?: { token?: unknown, audiences?: unknown } }
    try {
      review = JSON.parse(body)
    } catch {
      status(res, 400, 'BadRequest', 'the request body is not JSON')
      return
    }
    if (review.kind !== 'TokenReview' || review.apiVersion !== 'authentication.k8s.io/v1' || typeof review.spec?.token !== 'string') {
      status(res, 400, 'BadRequest', 'expected an authentication.k8s.io/v1 TokenReview with spec.token')
      return
    }
    const requested = Array.isArray(review.spec.audiences) ? review.spec.audiences.filter((a): a is string => typeof a === 'string') : []
    const identity = tokens.get(review.spec.token)
    const wanted = requested.length > 0 ? requested : [API_SERVER_AUDIENCE]
    const tokenAudiences = identity?.audiences ?? [API_SERVER_AUDIENCE]
    const matched = wanted.filter((audience) => tokenAudiences.includes(audience))
    const spec = { token: review.spec.token, ...(requested.length > 0 ? { audiences: requested } : {}) }
    let reviewStatus: Record<string, unknown>
    if (identity === undefined) {
      reviewStatus = { user: {}, error: '[invalid bearer token, service account token could not be validated]' }
    } else if (matched.length === 0) {
      reviewStatus = { user: {}, error: '[invalid bearer token, token audiences are invalid for the target audiences]' }
    } else {
      reviewStatus = {
        authenticated: true,
        user: { username: identity.username, uid: identity.uid ?? `uid-${identity.username}`, groups: [...(identity.groups ?? [])] },
        audiences: matched
      }
    }
    sendJson(res, 201, { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, spec, status: reviewStatus })
  }

  function watch (req: IncomingMessage, res: ServerResponse, namespace: string, params: URLSearchParams): void {
    const from = Number(params.get('resourceVersion') ?? '0')
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' })
    const watcher: Watcher = { namespace, res, bookmarks: params.get('allowWatchBookmarks') === 'true', timer: undefined }
    if (from !== 0 && from < compactedBefore) {
      res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${from} (${compactedBefore})`, reason: 'Expired', code: 410 } })}\n`)
      return
    }
    watchers.add(watcher)
    for (const event of history) {
      if (event.rv > from && event.object.metadata.namespace === namespace) res.write(eventLine(event))
    }
    if (watcher.bookmarks) {
      sendBookmark(watcher)
      watcher.timer = setInterval(() => sendBookmark(watcher), bookmarkIntervalMs)
    }
    const timeoutSeconds = Number(params.get('timeoutSeconds') ?? '0')
    const timeout = timeoutSeconds > 0 ? setTimeout(() => { done(); res.end() }, timeoutSeconds * 1000) : undefined
    function done (): void {
      watchers.delete(watcher)
      clearInterval(watcher.timer)
      clearTimeout(timeout)
    }
    res.on('error', done)
    res.on('close', done)
    req.on('close', done)
  }

  function sendBookmark (watcher: Watcher): void {
    if (watcher.res.writableEnded || watcher.res.destroyed) return
    watcher.res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { resourceVersion: String(resourceVersion) } } })}\n`)
  }

  function eventLine (event: WatchEvent): string {
    return `${JSON.stringify({ type: event.type, object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', ...event.object } })}\n`
  }

  function record (type: WatchEvent['type'], object: RoleBindingJson): void {
    const event: WatchEvent = { type, object: structuredClone(object), rv: resourceVersion }
    history.push(event)
    for (const watcher of watchers) {
      if (watcher.namespace === object.metadata.namespace && !watcher.res.writableEnded && !watcher.res.destroyed) watcher.res.write(eventLine(event))
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
    putRoleBinding (binding) {
      const key = `${binding.metadata.namespace}/${binding.metadata.name}`
      const existing = bindings.get(key)
      resourceVersion++
      const stored: RoleBindingJson = structuredClone({
        ...binding,
        metadata: { ...binding.metadata, resourceVersion: String(resourceVersion), uid: existing?.metadata.uid ?? randomBytes(8).toString('hex'), creationTimestamp: '2026-01-01T00:00:00Z' }
      })
      delete stored.apiVersion
      delete stored.kind
      bindings.set(key, stored)
      record(existing === undefined ? 'ADDED' : 'MODIFIED', stored)
      return structuredClone(stored)
    },
    deleteRoleBinding (namespace, name) {
      const key = `${namespace}/${name}`
      const existing = bindings.get(key)
      if (existing === undefined) return
      bindings.delete(key)
      resourceVersion++
      record('DELETED', { ...existing, metadata: { ...existing.metadata, resourceVersion: String(resourceVersion) } })
    },
    bookmark () {
      for (const watcher of watchers) if (watcher.bookmarks) sendBookmark(watcher)
    },
    compact () {
      compactedBefore = resourceVersion + 1
      history = []
      resourceVersion++
      for (const watcher of [...watchers]) {
        watchers.delete(watcher)
        clearInterval(watcher.timer)
        watcher.res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version', reason: 'Expired', code: 410 } })}\n`)
      }
    },
    setFault (endpoint, fault) {
      if (fault === undefined) faults.delete(endpoint)
      else faults.set(endpoint, fault)
    },
    openWatches: () => watchers.size,
    lastWatchQuery: () => lastWatchQuery,
    resetCalls () {
      calls.tokenReviews = 0
      calls.roleBindingLists = 0
      calls.roleBindingWatches = 0
      calls.unauthorized = 0
    },
    stop,
    start: async () => { if (!server.listening) await listen(port) },
    async close () {
      await stop()
      await rm(dir, { recursive: true, force: true })
    }
  }
}

function sendJson (res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

async function readBody (req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

async function delay (ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
}
