/**
 * RBAC manifests (from the docs, from `operator render`) applied to the fake API server as a
 * user applies them (`kubectl apply` as a cluster admin), under the `rbac` authorizer, so that
 * the kubernetes manager runs with exactly what they grant. Also: the manifests with one
 * permission taken away (each rule, each verb and resource of a rule, each binding), and what
 * a caller holds, asked as `kubectl auth can-i` asks.
 */
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseAllDocuments, stringify } from 'yaml'
import { startFakeKubeApi, type FakeKubeApi } from './fake-kube-api.ts'
import { request } from './fake-kube-request.ts'
import { fakePod, KUBERNETES_CONFIG, managerFor, runKubectl } from './kubernetes.ts'
import { eventually } from './eventually.ts'
import { captureLogs } from './logs.ts'
import type { AuthError } from '../../src/base/errors.ts'
import type { KubernetesAuthConfig } from '../../src/config/auth-config.ts'
import type { KubernetesTuning } from '../../src/managers/kubernetes/tuning.ts'

/** A Kubernetes object of a manifest, as parsed. */
export type Manifest = Record<string, any>

/** One permission: a verb on a resource of an API group. */
export interface Permission { readonly verb: string, readonly group: string, readonly resource: string }

/** The manifests with something taken away, and the permissions that takes from their subjects. */
export interface Variant {
  /** e.g. `the rule 0 of Role feast-authz-rolebinding-reader`, `the verb watch of ...`. */
  readonly without: string
  readonly objects: Manifest[]
  readonly removed: readonly Permission[]
}

/** The objects of a YAML stream (several `---` documents); throws on invalid YAML. */
export function parseManifests (text: string, where: string): Manifest[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`invalid YAML in ${where}: ${document.errors[0]!.message}`)
    const object = document.toJS() as Manifest | null
    return object === null ? [] : [object]
  })
}

const permissionsOf = (rule: Manifest): Permission[] =>
  (rule.apiGroups as string[]).flatMap((group) => (rule.resources as string[])
    .flatMap((resource) => (rule.verbs as string[]).map((verb) => ({ verb, group, resource }))))

const rulesOfRole = (objects: readonly Manifest[], ref: Manifest): Manifest[] =>
  objects.find((object) => object.kind === ref.kind && object.metadata.name === ref.name)?.rules ?? []

/**
 * Every way of taking one thing away from the manifests: each rule of a Role or ClusterRole,
 * each verb and each resource of a rule that has more than one, each binding (with the
 * permissions of the role it binds).
 */
export function variantsWithOneLess (objects: readonly Manifest[]): Variant[] {
  const variants: Variant[] = []
  const replaceRules = (index: number, rules: Manifest[]): Manifest[] => objects.map((object, i) => i === index ? { ...object, rules } : object)
  objects.forEach((object, index) => {
    const name = `${object.kind as string} ${object.metadata.name as string}`
    if (object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding') {
      variants.push({ without: name, objects: objects.filter((_, i) => i !== index), removed: rulesOfRole(objects, object.roleRef).flatMap(permissionsOf) })
      return
    }
    if (object.kind !== 'Role' && object.kind !== 'ClusterRole') return
    const rules = object.rules as Manifest[]
    rules.forEach((rule, r) => {
      const others = rules.filter((_, i) => i !== r)
      variants.push({ without: `the rule ${permissionsOf(rule).map((p) => `${p.verb} ${p.resource}`).join(', ')} of ${name}`, objects: replaceRules(index, others), removed: permissionsOf(rule) })
      for (const field of ['verbs', 'resources'] as const) {
        if ((rule[field] as string[]).length < 2) continue
        for (const value of rule[field] as string[]) {
          const narrowed = { ...rule, [field]: (rule[field] as string[]).filter((one) => one !== value) }
          const removed = permissionsOf(rule).filter((p) => (field === 'verbs' ? p.verb : p.resource) === value)
          variants.push({ without: `the ${field === 'verbs' ? 'verb' : 'resource'} ${value} of ${name}`, objects: replaceRules(index, [...others.slice(0, r), narrowed, ...others.slice(r)]), removed })
        }
      }
    })
  })
  return variants
}

/**
 * A new fake API server (`rbac` authorizer, namespace `feast`) with `objects` (if any) applied
 * by `kubectl apply` as a cluster admin; throws with kubectl's output when it fails.
 */
export async function clusterWith (objects: readonly Manifest[]): Promise<FakeKubeApi> {
  const api = await startFakeKubeApi({ namespace: 'feast', authorizer: 'rbac' })
  try {
    if (objects.length > 0) await applyAsAdmin(api, stringify({ apiVersion: 'v1', kind: 'List', items: objects }))
    return api
  } catch (error) {
    await api.close()
    throw error
  }
}

/** Runs `use` on a {@link clusterWith} cluster, closed after it. */
export async function withCluster (objects: readonly Manifest[], use: (api: FakeKubeApi) => Promise<void>): Promise<void> {
  const api = await clusterWith(objects)
  try {
    await use(api)
  } finally {
    await api.close()
  }
}

/**
 * What the minimal RBAC (docs/kubernetes.md, `operator render`) must give the service account of
 * `serviceNamespace`, as {@link heldPermissions} words it when asked in `namespaces`: `create
 * tokenreviews` wherever asked (a ClusterRoleBinding), and `get`, `list`, `watch` of rolebindings
 * and roles in its own namespace only. Nothing more.
 */
export function minimalServicePermissions (serviceNamespace: string, namespaces: readonly string[]): string[] {
  const held = namespaces.map((namespace) => `create tokenreviews.authentication.k8s.io ${namespace === '' ? '(cluster)' : namespace}`)
  if (namespaces.includes(serviceNamespace)) {
    for (const verb of ['get', 'list', 'watch']) for (const resource of ['rolebindings', 'roles']) held.push(`${verb} ${resource}.rbac.authorization.k8s.io ${serviceNamespace}`)
  }
  return held.sort()
}

/** `kubectl apply -f <file>` of a YAML text as a cluster admin (kubectl's client-side validation needs OpenAPI, which the fake does not serve). */
export async function applyAsAdmin (api: FakeKubeApi, yaml: string): Promise<string> {
  const file = join(api.dir, `manifest-${Date.now()}-${Math.random().toString(36).slice(2)}.yaml`)
  await writeFile(file, yaml)
  const admin = await api.writeKubeconfig({ name: 'admin', token: api.adminToken })
  const run = await runKubectl(api, ['apply', '--validate=false', '-f', file], admin)
  if (run.code !== 0) throw new Error(`kubectl apply failed: ${run.stderr}`)
  return run.stdout
}

/** The service accounts (`namespace/name`) the bindings of the manifests name. */
export function boundServiceAccounts (objects: readonly Manifest[]): string[] {
  const found = objects.filter((object) => object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding')
    .flatMap((binding) => (binding.subjects as Manifest[]).filter((subject) => subject.kind === 'ServiceAccount').map((subject) => `${subject.namespace as string}/${subject.name as string}`))
  return [...new Set(found)]
}

/** Verbs and resources whose every combination, in each namespace, {@link heldPermissions} asks about. */
export const PROBED = {
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'bind', 'escalate', 'impersonate'],
  resources: [
    { group: 'rbac.authorization.k8s.io', resource: 'rolebindings' },
    { group: 'rbac.authorization.k8s.io', resource: 'roles' },
    { group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
    { group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' },
    { group: 'authentication.k8s.io', resource: 'tokenreviews' },
    { group: 'authorization.k8s.io', resource: 'subjectaccessreviews' },
    { group: '', resource: 'secrets' },
    { group: '', resource: 'serviceaccounts' },
    { group: '', resource: 'pods' },
    { group: '', resource: 'namespaces' },
    { group: '', resource: 'users' },
    { group: 'feast.dev', resource: 'roles' }
  ]
} as const

/**
 * What the caller of `token` may do, asked with one SelfSubjectAccessReview (as `kubectl auth
 * can-i`) per verb and resource of {@link PROBED} in each of `namespaces` (`''`: cluster-wide):
 * `verb resource.group namespace` for each one allowed, sorted.
 */
export async function heldPermissions (api: FakeKubeApi, token: string, namespaces: readonly string[]): Promise<string[]> {
  const held: string[] = []
  for (const namespace of namespaces) {
    for (const { group, resource } of PROBED.resources) {
      for (const verb of PROBED.verbs) {
        const resourceAttributes = { namespace, verb, group, resource }
        const answer = await request(api, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } }, { authorization: `Bearer ${token}` })
        if (answer.status !== 201) throw new Error(`SelfSubjectAccessReview answered ${answer.status}: ${JSON.stringify(answer.body)}`)
        if (answer.body.status.allowed === true) held.push(`${verb} ${group === '' ? resource : `${resource}.${group}`} ${namespace === '' ? '(cluster)' : namespace}`)
      }
    }
  }
  return held.sort()
}

/**
 * What the kubernetes manager does without some permissions: `unavailable`, a 503
 * `cluster_unavailable` whose cause names `permission`; `never-ready`, roles still served (from
 * direct lists) but the informers never sync and the log names `permission`; `none`, nothing
 * changes (feast-authz never uses it).
 */
export type Consequence =
  | { readonly kind: 'unavailable' | 'never-ready', readonly permission: RegExp }
  | { readonly kind: 'none' }

/** How the manager names what it needs (src/managers/kubernetes/token-review.ts, role-source.ts). */
const TOKEN_REVIEW_PERMISSION = /create tokenreviews\.authentication\.k8s\.io/
const readPermission = (namespace: string): RegExp => new RegExp(`get, list and watch rolebindings and roles \\(rbac\\.authorization\\.k8s\\.io\\) in namespace ${namespace}`)

/** The {@link Consequence} of losing `removed` for a manager whose service namespace is `namespace`. */
export function consequenceOf (removed: readonly Permission[], namespace: string): Consequence {
  const lost = (verb: string, resources: readonly string[]): boolean => removed.some((one) => one.verb === verb && resources.includes(one.resource))
  if (lost('create', ['tokenreviews'])) return { kind: 'unavailable', permission: TOKEN_REVIEW_PERMISSION }
  if (lost('list', ['rolebindings', 'roles'])) return { kind: 'unavailable', permission: readPermission(namespace) }
  if (lost('watch', ['rolebindings', 'roles'])) return { kind: 'never-ready', permission: readPermission(namespace) }
  return { kind: 'none' }
}

/** The consequence in words, for test names. */
export function describeConsequence (consequence: Consequence): string {
  switch (consequence.kind) {
    case 'unavailable': return 'the manager answers 503 cluster_unavailable naming the missing permission'
    case 'never-ready': return 'the manager serves roles from direct lists but never becomes ready, and logs the missing permission'
    case 'none': return 'the manager still authenticates and becomes ready (feast-authz never uses it)'
  }
}

// Short waits for a refused API server, long enough for a loaded machine (as cluster-failures.test.ts).
const FAST: KubernetesTuning = { requestTimeoutMs: 1500, informer: { restartBackoffMs: { initial: 50, max: 200 } } }

/**
 * Runs the real kubernetes manager in a pod of the fake cluster as `serviceAccount`
 * (`namespace/name`; its namespace is the service namespace) and checks what `consequence` says
 * of a request with `client.token`, which otherwise gets `client.roles`.
 */
export async function checkManager (
  api: FakeKubeApi,
  serviceAccount: string,
  client: { readonly token: string, readonly roles: readonly string[] },
  consequence: Consequence,
  config: KubernetesAuthConfig = KUBERNETES_CONFIG
): Promise<void> {
  const [namespace, name] = serviceAccount.split('/') as [string, string]
  const pod = fakePod(api, namespace, name)
  const { logger, lines } = captureLogs()
  const manager = managerFor(api, { config, logger, connection: pod.connection, serviceAccountDir: pod.serviceAccountDir, tuning: FAST })
  try {
    if (consequence.kind === 'unavailable') {
      await assert.rejects(async () => await manager.authenticate(client.token), (error: AuthError) => {
        assert.deepEqual([error.code, error.status], ['cluster_unavailable', 503])
        assert.match(String((error.cause as Error | undefined)?.message), consequence.permission)
        return true
      })
      return
    }
    assert.deepEqual((await manager.authenticate(client.token)).roles, client.roles)
    await manager.warmUp()
    if (consequence.kind === 'none') {
      await eventually(() => manager.health().ready, 'the informers to sync')
    } else {
      await eventually(() => lines.some((line) => line.status === 403 && consequence.permission.test(String(line.missingPermission))), 'a log line naming the missing permission')
      assert.equal(manager.health().ready, false)
    }
  } finally {
    await manager.close()
  }
}
