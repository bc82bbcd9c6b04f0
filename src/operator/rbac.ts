/** A Kubernetes object as plain data, ready for `kubectl apply`. */
export type KubeObject = Record<string, unknown>

const RBAC = 'rbac.authorization.k8s.io/v1'
const RBAC_GROUP = 'rbac.authorization.k8s.io'

/** Name of the service account every pod of the store runs as, as the Feast operator names it. */
export function serviceAccountName (store: string): string {
  return `feast-${store}`
}

function labels (store: string | undefined): Record<string, string> {
  return {
    'app.kubernetes.io/managed-by': 'feast-authz',
    'feast.dev/service-type': 'authorization',
    ...(store === undefined ? {} : { 'feast.dev/name': store })
  }
}

function subject (store: string, namespace: string): Record<string, string> {
  return { kind: 'ServiceAccount', name: serviceAccountName(store), namespace }
}

/**
 * RBAC for `kubernetes` auth, the objects the Feast operator creates: a Role and RoleBinding
 * `feast-<store>` (reading Roles and RoleBindings of the namespace), the shared ClusterRole
 * `feast-token-review-cluster-role` (TokenReviews, namespaces, cluster roles and bindings)
 * bound by `feast-<store>-cluster-binding`, and one rule-less Role per `roles` entry: the
 * role names `Permission` objects refer to, which users bind their service accounts to.
 */
export function kubernetesRbac (store: string, namespace: string, roles: readonly string[]): KubeObject[] {
  const name = serviceAccountName(store)
  return [
    {
      apiVersion: RBAC,
      kind: 'Role',
      metadata: { name, namespace, labels: labels(store) },
      // The same five rules as the Feast operator. In a namespaced Role only the first takes
      // effect; the ClusterRole below is what grants the cluster-scoped ones.
      rules: [
        { apiGroups: [RBAC_GROUP], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [RBAC_GROUP], resources: ['clusterroles'], verbs: ['get', 'list'] },
        { apiGroups: [RBAC_GROUP], resources: ['clusterrolebindings'], verbs: ['get', 'list'] }
      ]
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
      metadata: { name: 'feast-token-review-cluster-role', labels: labels(undefined) },
      rules: [
        { apiGroups: [RBAC_GROUP], resources: ['rolebindings'], verbs: ['list'] },
        { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [RBAC_GROUP], resources: ['clusterroles'], verbs: ['get', 'list'] },
        { apiGroups: [RBAC_GROUP], resources: ['clusterrolebindings'], verbs: ['get', 'list'] }
      ]
    },
    {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: `${name}-cluster-binding`, labels: labels(store) },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'feast-token-review-cluster-role' },
      subjects: [subject(store, namespace)]
    },
    ...roles.map((role) => ({ apiVersion: RBAC, kind: 'Role', metadata: { name: role, namespace, labels: labels(store) }, rules: [] }))
  ]
}

/**
 * RBAC for `oidc` auth: TokenReview creation only, for service-account tokens the server
 * accepts beside provider tokens (spec 5.3): the shared ClusterRole `feast-oidc-token-review`
 * and the binding `feast-<store>-oidc-token-review`.
 */
export function oidcRbac (store: string, namespace: string): KubeObject[] {
  return [
    {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'feast-oidc-token-review', labels: labels(undefined) },
      rules: [{ apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] }]
    },
    {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: `${serviceAccountName(store)}-oidc-token-review`, labels: labels(store) },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'feast-oidc-token-review' },
      subjects: [subject(store, namespace)]
    }
  ]
}
