import { feastRoleMarker } from '../base/feast-role-marker.ts'
import { boolean, checkOptions } from '../base/option-rules.ts'
import { OptionError } from '../base/errors.ts'
import { describeValue } from '../base/describe-value.ts'
import { isNamespaceName, isRbacName, isStoreName } from './kube-names.ts'

/** A Kubernetes object as plain data, ready for `kubectl apply`. */
export type KubeObject = Record<string, unknown>

const RBAC = 'rbac.authorization.k8s.io/v1'
const RBAC_GROUP = 'rbac.authorization.k8s.io'

/** Name of the service account every pod of the store runs as, as the Feast operator names it. */
export function serviceAccountName (store: string): string {
  return `feast-${store}`
}

/**
 * The labels of an object: a per-store one names its store, and a cluster-scoped per-store one
 * (a ClusterRoleBinding) also the store's namespace, which its name alone does not let `-l` select.
 */
function labels (store?: string, namespace?: string): Record<string, string> {
  return {
    'app.kubernetes.io/managed-by': 'feast-authz',
    'feast.dev/service-type': 'authorization',
    ...(store === undefined ? {} : { 'feast.dev/name': store }),
    ...(namespace === undefined ? {} : { 'feast.dev/namespace': namespace })
  }
}

/**
 * Name of a store's ClusterRoleBinding, `feast-authz:<namespace>:<store>:<purpose>`. It is
 * cluster-scoped while stores are namespaced: a name without the namespace (as the Feast
 * operator's) is one object for `prod` of team-a and `prod` of team-b, and applying one store's
 * replaces the other's subjects. Colons keep the parts apart, as in the built-in
 * `system:controller:...`: neither a namespace nor a store name may hold one (so no two pairs
 * give one name), and RBAC names are path segments (ValidateRBACName), which may. At most
 * 12 + 63 + 1 + 63 + 18 = 157 characters; path segments have no limit of their own.
 */
function clusterBindingName (store: string, namespace: string, purpose: 'token-review' | 'oidc-token-review'): string {
  return `feast-authz:${namespace}:${store}:${purpose}`
}

/** The store's name and namespace, which name objects and label values: refused as the API server would refuse them. */
function checkStore (owner: string, store: string, namespace: string): void {
  if (!isStoreName(store)) throw new OptionError(`${owner}: expected the store's name, a lower-case DNS name of at most 63 characters, got ${describeValue(store)}`, { option: 'store' })
  if (!isNamespaceName(namespace)) throw new OptionError(`${owner}: expected a namespace name (a lower-case DNS label), got ${describeValue(namespace)}`, { option: 'namespace' })
}

/**
 * The Feast roles as Role names, once each: refused as the API server would refuse a Role's name
 * (renderFeatureStore checks its field by the same rule first, to name it by its place in the file).
 */
function checkRoles (owner: string, roles: unknown): readonly string[] {
  if (!Array.isArray(roles)) throw new OptionError(`${owner}: roles must be a list of Role names, got ${describeValue(roles)}`, { option: 'roles' })
  roles.forEach((role: unknown, index) => {
    if (!isRbacName(role)) throw new OptionError(`${owner}: roles[${index}]: expected a Role's name (not empty, . or .., without / or %), got ${describeValue(role)}`, { option: `roles[${index}]` })
  })
  return [...new Set(roles as string[])]
}

function subject (store: string, namespace: string): Record<string, string> {
  return { kind: 'ServiceAccount', name: serviceAccountName(store), namespace }
}

/** Options of {@link kubernetesRbac}. */
export interface KubernetesRbacOptions {
  /**
   * Emit the Feast operator's objects instead of the minimal ones: its Role with five rules and
   * the shared ClusterRole `feast-token-review-cluster-role`, which also grants cluster-wide
   * `rolebindings` list, `namespaces` get/list/watch and `clusterroles`/`clusterrolebindings`
   * get/list. feast-authz uses none of those; Feast's Python server does. Default false.
   */
  readonly feastCompatible?: boolean | undefined
}

/** Shared ClusterRole of the minimal Kubernetes-mode RBAC: TokenReview creation only. */
const TOKEN_REVIEW_CLUSTER_ROLE = 'feast-authz-token-review'
/** Shared ClusterRole of the Feast operator (kept under its name for the compatible RBAC). */
const FEAST_CLUSTER_ROLE = 'feast-token-review-cluster-role'

// Functions, not constants: every rendered object gets its own arrays, which callers may edit.
const tokenReviewRule = (): KubeObject => ({ apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] })
/** The cluster-scoped reads Feast's Python server makes and feast-authz does not. */
const feastExtraRules = (): KubeObject[] => [
  { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [RBAC_GROUP], resources: ['clusterroles'], verbs: ['get', 'list'] },
  { apiGroups: [RBAC_GROUP], resources: ['clusterrolebindings'], verbs: ['get', 'list'] }
]

/**
 * RBAC for `kubernetes` auth. By default the minimum feast-authz needs (docs/kubernetes.md):
 * a Role and RoleBinding `feast-<store>` reading the RoleBindings of the store's namespace,
 * the shared ClusterRole `feast-authz-token-review` (TokenReview create) bound by
 * `feast-authz:<namespace>:<store>:token-review`, and one Role per `roles` entry: the role
 * names `Permission` objects refer to, which users bind their service accounts to. Each holds
 * the Feast marker rule of its name (`feast.dev` `roles`, `resourceNames: [<role>]`, verb
 * `assume`), so that Kubernetes' escalation check stops anyone who does not hold it from binding it.
 *
 * With `feastCompatible`, the Feast operator's objects instead (its five-rule Role and the
 * shared ClusterRole `feast-token-review-cluster-role` bound by `feast-<store>-cluster-binding`),
 * for clusters that also run Feast's Python server under the same service account. That binding
 * has no namespace in its name, as in Feast: two stores of one name in two namespaces share it,
 * and the last applied holds it.
 *
 * A Feast role named `feast-<other>` is the same object as the own Role of a store `<other>` in
 * the namespace, if there is one: this function sees one store only, and refuses `feast-<store>`.
 * Throws {@link OptionError} for a store name, namespace or role name the API server would refuse;
 * a role given twice is one Role.
 */
export function kubernetesRbac (store: string, namespace: string, roles: readonly string[], options: KubernetesRbacOptions = {}): KubeObject[] {
  checkOptions(options, { feastCompatible: boolean() }, { owner: 'kubernetesRbac' })
  checkStore('kubernetesRbac', store, namespace)
  const feastRoles = checkRoles('kubernetesRbac', roles)
  const name = serviceAccountName(store)
  // Both would be one object: the Feast role would replace the rules the service needs (renderFeatureStore says the same, with the field's path).
  if (feastRoles.includes(name)) throw new OptionError(`kubernetesRbac: "${name}" is the store's own Role (the one that lets the service read RoleBindings): give this Feast role another name`, { option: 'roles' })
  const feast = options.feastCompatible === true
  const clusterRole = feast ? FEAST_CLUSTER_ROLE : TOKEN_REVIEW_CLUSTER_ROLE
  return [
    {
      apiVersion: RBAC,
      kind: 'Role',
      metadata: { name, namespace, labels: labels(store) },
      rules: feast
        // The Feast operator's five rules. In a namespaced Role only the first takes effect;
        // the ClusterRole below is what grants the cluster-scoped ones.
        ? [{ apiGroups: [RBAC_GROUP], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'watch'] }, tokenReviewRule(), ...feastExtraRules()]
        // The role index lists and watches RoleBindings and Roles here; nothing else is read.
        : [{ apiGroups: [RBAC_GROUP], resources: ['rolebindings', 'roles'], verbs: ['get', 'list', 'watch'] }]
    },
    {
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: { name, namespace, labels: labels(store) },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name },
      subjects: [subject(store, namespace)]
    },
    {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      // A distinct name for the minimal role: applying it must never narrow the Feast
      // operator's shared ClusterRole, which other stores' Python servers may rely on.
      metadata: { name: clusterRole, labels: labels() },
      rules: feast
        ? [{ apiGroups: [RBAC_GROUP], resources: ['rolebindings'], verbs: ['list'] }, tokenReviewRule(), ...feastExtraRules()]
        : [tokenReviewRule()]
    },
    {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      // The Feast operator's name, for its object: it clashes across namespaces as Feast's does
      // (docs/operator.md), so it carries no namespace label, which would name whichever store was applied last.
      metadata: feast
        ? { name: `${name}-cluster-binding`, labels: labels(store) }
        : { name: clusterBindingName(store, namespace, 'token-review'), labels: labels(store, namespace) },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: clusterRole },
      subjects: [subject(store, namespace)]
    },
    // One object for every store of the namespace that lists the role: no label names a store,
    // which would be whichever was applied last (and `kubectl delete -l` of that store would take it from the others).
    ...feastRoles.map((role) => ({ apiVersion: RBAC, kind: 'Role', metadata: { name: role, namespace, labels: labels() }, rules: [{ ...feastRoleMarker(role) }] }))
  ]
}

/**
 * RBAC for `oidc` auth: TokenReview creation only, for service-account tokens the server
 * accepts beside provider tokens (spec 5.3): the shared ClusterRole `feast-oidc-token-review`
 * and the binding `feast-authz:<namespace>:<store>:oidc-token-review`. Throws
 * {@link OptionError} for a store name or namespace the API server would refuse.
 */
export function oidcRbac (store: string, namespace: string): KubeObject[] {
  checkStore('oidcRbac', store, namespace)
  return [
    {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'feast-oidc-token-review', labels: labels() },
      rules: [tokenReviewRule()]
    },
    {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: clusterBindingName(store, namespace, 'oidc-token-review'), labels: labels(store, namespace) },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'feast-oidc-token-review' },
      subjects: [subject(store, namespace)]
    }
  ]
}
