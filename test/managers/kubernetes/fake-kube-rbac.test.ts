/**
 * The fake API server's `rbac` authorizer: callers hold what the stored Roles, ClusterRoles and
 * their bindings give them, as kube-apiserver's RBAC authorizer decides, and RBAC writes pass
 * the escalation check a real server applies. Tests elsewhere rely on it to refuse what a real
 * cluster refuses, so each rule of RBAC that they depend on is checked here.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { clusterRoleBinding, jwsToken, roleBinding, startFakeKubeApi, type FakeIdentity, type FakeKubeApi, type PolicyRuleJson } from '../../helpers/fake-kube-api.ts'
import { request, type Answer } from '../../helpers/fake-kube-request.ts'

const RBAC = 'rbac.authorization.k8s.io'
const V1 = `/apis/${RBAC}/v1`
const bindingsIn = (namespace: string): string => `${V1}/namespaces/${namespace}/rolebindings`
const rolesIn = (namespace: string): string => `${V1}/namespaces/${namespace}/roles`
const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews'
const ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'
const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: jwsToken('anything') } }

describe('the fake API server\'s rbac authorizer decides as kube-apiserver\'s RBAC authorizer does', () => {
  let api: FakeKubeApi
  let users = 0
  before(async () => { api = await startFakeKubeApi({ namespace: 'feast', authorizer: 'rbac' }) })
  after(async () => { await api?.close() })

  /** A new user of the cluster (its own name, unless given), and how to call the API as them. */
  function newUser (identity: Partial<FakeIdentity> = {}): { name: string, call: (path: string, body?: unknown, method?: string) => Promise<Answer> } {
    const name = identity.username ?? `user-${++users}`
    const token = jwsToken(`${name}-token`)
    api.addToken(token, { username: name, groups: [], ...identity })
    return { name, call: async (path, body, method) => await request(api, path, body, { authorization: `Bearer ${token}`, ...(method === undefined ? {} : { method }) }) }
  }

  /** A Role `name` in `namespace` with `rules`, bound to the User `user` there. */
  function grantRole (namespace: string, name: string, user: string, rules: PolicyRuleJson[]): void {
    api.putRole({ metadata: { name, namespace }, rules })
    api.putRoleBinding(roleBinding(namespace, `${name}-${user}`, name, [{ kind: 'User', name: user }]))
  }

  const binding = (namespace: string, name: string, role: string, kind: 'Role' | 'ClusterRole' = 'Role'): Record<string, unknown> =>
    ({ apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', ...roleBinding(namespace, name, role, [{ kind: 'User', name: 'someone' }], kind) })

  test('nobody but a cluster admin holds any permission until RBAC objects grant it, the service account included', async () => {
    const service = await request(api, bindingsIn('feast'))
    assert.equal(service.status, 403)
    assert.match(service.body.message, /User "system:serviceaccount:feast:feast" cannot list resource "rolebindings" in API group "rbac\.authorization\.k8s\.io" in the namespace "feast"/)
    assert.equal((await request(api, bindingsIn('feast'), undefined, { authorization: `Bearer ${api.adminToken}` })).status, 200)
  })

  test('a RoleBinding grants its Role\'s verbs on its resources in the binding\'s namespace only', async () => {
    const user = newUser()
    grantRole('feast', 'binding-lister', user.name, [{ apiGroups: [RBAC], resources: ['rolebindings'], verbs: ['list'] }])
    assert.equal((await user.call(bindingsIn('feast'))).status, 200)
    assert.equal((await user.call(bindingsIn('kube-system'))).status, 403, 'another namespace')
    assert.equal((await user.call(rolesIn('feast'))).status, 403, 'another resource')
    assert.equal((await user.call(`${bindingsIn('feast')}?watch=true&timeoutSeconds=1`)).status, 403, 'another verb')
  })

  test('a rule allows only the API groups it names', async () => {
    const user = newUser()
    // rolebindings of the core group ('') do not exist, and are not rbac.authorization.k8s.io's.
    grantRole('feast', 'wrong-group', user.name, [{ apiGroups: [''], resources: ['rolebindings'], verbs: ['list'] }])
    assert.equal((await user.call(bindingsIn('feast'))).status, 403)
  })

  test('resourceNames limit a rule to the objects named: a get of one, or a list selecting it by name, not a plain list', async () => {
    const user = newUser()
    grantRole('feast', 'one-binding', user.name, [{ apiGroups: [RBAC], resources: ['rolebindings'], resourceNames: ['chosen'], verbs: ['get', 'list'] }])
    api.putRoleBinding(roleBinding('feast', 'chosen', 'one-binding', []))
    assert.equal((await user.call(`${bindingsIn('feast')}/chosen`)).status, 200)
    assert.equal((await user.call(`${bindingsIn('feast')}?fieldSelector=metadata.name%3Dchosen`)).status, 200)
    assert.equal((await user.call(`${bindingsIn('feast')}/other`)).status, 403)
    assert.equal((await user.call(bindingsIn('feast'))).status, 403)
  })

  test('wildcards in verbs, apiGroups and resources allow everything, cluster-wide through a ClusterRoleBinding', async () => {
    const user = newUser()
    api.putClusterRole({ metadata: { name: 'everything' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] })
    api.putClusterRoleBinding(clusterRoleBinding('everything-root', 'everything', [{ kind: 'User', name: user.name }]))
    assert.equal((await user.call(TOKEN_REVIEWS, review)).status, 201)
    assert.equal((await user.call(`${V1}/clusterroles`)).status, 200)
    assert.equal((await user.call(bindingsIn('kube-system'))).status, 200)
    assert.equal((await user.call('/api/v1/namespaces')).status, 200)
  })

  test('a RoleBinding to a ClusterRole grants the ClusterRole\'s rules in the binding\'s namespace only', async () => {
    const user = newUser()
    api.putClusterRole({ metadata: { name: 'role-reader' }, rules: [{ apiGroups: [RBAC], resources: ['roles'], verbs: ['list'] }] })
    api.putRoleBinding(roleBinding('feast', 'role-reader-here', 'role-reader', [{ kind: 'User', name: user.name }], 'ClusterRole'))
    assert.equal((await user.call(rolesIn('feast'))).status, 200)
    assert.equal((await user.call(rolesIn('default'))).status, 403)
  })

  test('subjects match as RBAC matches them: a ServiceAccount by namespace and name, a User by name, a Group by any of the caller\'s groups', async () => {
    api.putRole({ metadata: { name: 'lister', namespace: 'apps' }, rules: [{ apiGroups: [RBAC], resources: ['roles'], verbs: ['list'] }] })
    const account = (namespace: string, name: string): Partial<FakeIdentity> =>
      ({ username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] })
    const local = newUser(account('apps', 'local'))
    const remote = newUser(account('ml', 'remote'))
    const grouped = newUser(account('batch', 'worker'))
    const stranger = newUser(account('other', 'local'))
    api.putRoleBinding(roleBinding('apps', 'by-account', 'lister', [
      { kind: 'ServiceAccount', name: 'local' }, // no namespace: the binding's own
      { kind: 'ServiceAccount', name: 'remote', namespace: 'ml' },
      { kind: 'Group', name: 'system:serviceaccounts:batch' }
    ]))
    for (const caller of [local, remote, grouped]) assert.equal((await caller.call(rolesIn('apps'))).status, 200, caller.name)
    assert.equal((await stranger.call(rolesIn('apps'))).status, 403, 'same name, other namespace')
    const everyone = newUser()
    assert.equal((await everyone.call(rolesIn('apps'))).status, 403)
    api.putRoleBinding(roleBinding('apps', 'by-authenticated', 'lister', [{ kind: 'Group', name: 'system:authenticated' }]))
    assert.equal((await everyone.call(rolesIn('apps'))).status, 200, 'every authenticated user')
    assert.equal((await request(api, rolesIn('apps'), undefined, { authorization: null })).status, 403, 'not the anonymous user')
    api.deleteRoleBinding('apps', 'by-authenticated')
  })

  test('ClusterRoles and ClusterRoleBindings are created, read, listed, replaced and deleted over HTTP, and a ClusterRoleBinding\'s roleRef cannot change', async () => {
    const admin = { authorization: `Bearer ${api.adminToken}` }
    const role = { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'crud-role' }, rules: [{ apiGroups: [RBAC], resources: ['roles'], verbs: ['get'] }] }
    assert.equal((await request(api, `${V1}/clusterroles`, role, admin)).status, 201)
    assert.equal((await request(api, `${V1}/clusterroles`, role, admin)).status, 409)
    const crb = { apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', ...clusterRoleBinding('crud-binding', 'crud-role', [{ kind: 'User', name: 'kim' }]) }
    const created = await request(api, `${V1}/clusterrolebindings`, crb, admin)
    assert.equal(created.status, 201)
    assert.equal(created.body.metadata.namespace, undefined, 'cluster-scoped: no namespace')
    const read = await request(api, `${V1}/clusterrolebindings/crud-binding`, undefined, admin)
    assert.deepEqual([read.status, read.body.kind, read.body.roleRef.name], [200, 'ClusterRoleBinding', 'crud-role'])
    const listed = await request(api, `${V1}/clusterroles`, undefined, admin)
    assert.ok(listed.body.items.some((item: any) => item.metadata.name === 'crud-role'))
    assert.equal(listed.body.kind, 'ClusterRoleList')
    const replaced = await request(api, `${V1}/clusterrolebindings/crud-binding`, { ...crb, subjects: [{ kind: 'User', name: 'lee', apiGroup: RBAC }] }, { ...admin, method: 'PUT' })
    assert.equal(replaced.status, 200)
    const moved = await request(api, `${V1}/clusterrolebindings/crud-binding`, { ...crb, roleRef: { ...crb.roleRef, name: 'everything' } }, { ...admin, method: 'PUT' })
    assert.equal(moved.status, 422)
    assert.match(moved.body.message, /^ClusterRoleBinding\.rbac\.authorization\.k8s\.io "crud-binding" is invalid: roleRef: Invalid value: .*cannot change roleRef$/)
    assert.equal((await request(api, `${V1}/clusterrolebindings/crud-binding`, undefined, { ...admin, method: 'DELETE' })).status, 200)
    assert.equal((await request(api, `${V1}/clusterroles/crud-role`, undefined, { ...admin, method: 'DELETE' })).status, 200)
    assert.equal((await request(api, `${V1}/clusterroles/crud-role`, undefined, admin)).status, 404)
  })

  test('a ClusterRoleBinding may refer only to a ClusterRole, and its ServiceAccount subjects must name their namespace', async () => {
    const admin = { authorization: `Bearer ${api.adminToken}` }
    const invalid = await request(api, `${V1}/clusterrolebindings`, {
      apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'invalid' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'lister' }, subjects: [{ kind: 'ServiceAccount', name: 'feast' }]
    }, admin)
    assert.equal(invalid.status, 422)
    assert.deepEqual(invalid.body.details.causes.map((cause: any) => cause.field), ['roleRef.kind', 'subjects[0].namespace'])
  })

  describe('the escalation check on RBAC writes', () => {
    test('a user who may only create RoleBindings can bind a Role that has no rules', async () => {
      const user = newUser()
      grantRole('feast', 'binding-creator', user.name, [{ apiGroups: [RBAC], resources: ['rolebindings'], verbs: ['create'] }])
      api.putRole({ metadata: { name: 'empty', namespace: 'feast' }, rules: [] })
      assert.equal((await user.call(bindingsIn('feast'), binding('feast', 'bound-empty', 'empty'))).status, 201)
    })

    test('binding a Role whose permissions the writer does not hold is a 403 naming what they lack', async () => {
      const user = newUser({ groups: ['team'] })
      grantRole('feast', 'binding-creator-2', user.name, [{ apiGroups: [RBAC], resources: ['rolebindings'], verbs: ['create'] }])
      api.putRole({ metadata: { name: 'marked', namespace: 'feast' }, rules: [{ apiGroups: ['feast.dev'], resources: ['roles'], resourceNames: ['marked'], verbs: ['assume'] }] })
      const refused = await user.call(bindingsIn('feast'), binding('feast', 'bound-marked', 'marked'))
      assert.equal(refused.status, 403)
      assert.equal(refused.body.reason, 'Forbidden')
      assert.equal(refused.body.message, `rolebindings.rbac.authorization.k8s.io "bound-marked" is forbidden: user "${user.name}" (groups=["team" "system:authenticated"]) ` +
        'is attempting to grant RBAC permissions not currently held:\n{APIGroups:["feast.dev"], Resources:["roles"], ResourceNames:["marked"], Verbs:["assume"]}')
      assert.equal((await request(api, `${bindingsIn('feast')}/bound-marked`, undefined, { authorization: `Bearer ${api.adminToken}` })).status, 404, 'nothing was written')
    })

    test('binding a Role that does not exist is a 404, and a ClusterRole that does not exist too', async () => {
      const user = newUser()
      grantRole('feast', 'binding-creator-3', user.name, [{ apiGroups: [RBAC], resources: ['rolebindings'], verbs: ['create'] }])
      const missing = await user.call(bindingsIn('feast'), binding('feast', 'bound-missing', 'no-such-role'))
      assert.deepEqual([missing.status, missing.body.message], [404, 'roles.rbac.authorization.k8s.io "no-such-role" not found'])
      const missingCluster = await user.call(bindingsIn('feast'), binding('feast', 'bound-missing-cluster', 'no-such-cluster-role', 'ClusterRole'))
      assert.deepEqual([missingCluster.status, missingCluster.body.message], [404, 'clusterroles.rbac.authorization.k8s.io "no-such-cluster-role" not found'])
    })

    test('a writer who holds every permission of the Role may bind it; bind on the Role lets them bind it without holding them', async () => {
      const marker = { apiGroups: ['feast.dev'], resources: ['roles'], resourceNames: ['marked-2'], verbs: ['assume'] }
      api.putRole({ metadata: { name: 'marked-2', namespace: 'feast' }, rules: [marker] })
      const holder = newUser()
      grantRole('feast', 'holder', holder.name, [{ apiGroups: [RBAC], resources: ['rolebindings'], verbs: ['create'] }, marker])
      assert.equal((await holder.call(bindingsIn('feast'), binding('feast', 'by-holder', 'marked-2'))).status, 201)
      const binder = newUser()
      grantRole('feast', 'binder', binder.name, [{ apiGroups: [RBAC], resources: ['rolebindings'], verbs: ['create'] }, { apiGroups: [RBAC], resources: ['roles'], resourceNames: ['marked-2'], verbs: ['bind'] }])
      assert.equal((await binder.call(bindingsIn('feast'), binding('feast', 'by-binder', 'marked-2'))).status, 201)
      assert.equal((await binder.call(bindingsIn('feast'), binding('feast', 'by-binder-other', 'marked'))).status, 403, 'bind names one Role only')
    })

    test('a Role granting what its writer does not hold is a 403, unless they may escalate roles', async () => {
      const wanted = { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'wider' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] }
      const writer = newUser()
      grantRole('feast', 'role-writer', writer.name, [{ apiGroups: [RBAC], resources: ['roles'], verbs: ['create', 'update'] }])
      const refused = await writer.call(rolesIn('feast'), wanted)
      assert.equal(refused.status, 403)
      assert.match(refused.body.message, /^roles\.rbac\.authorization\.k8s\.io "wider" is forbidden: .* not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}$/)
      const narrow = await writer.call(rolesIn('feast'), { ...wanted, metadata: { name: 'narrow' }, rules: [{ apiGroups: [RBAC], resources: ['roles'], verbs: ['create'] }] })
      assert.equal(narrow.status, 201, 'what the writer holds may be granted')
      const widened = await writer.call(`${rolesIn('feast')}/narrow`, { ...wanted, metadata: { name: 'narrow' } }, 'PUT')
      assert.equal(widened.status, 403, 'an update is checked too')
      const escalator = newUser()
      grantRole('feast', 'role-escalator', escalator.name, [{ apiGroups: [RBAC], resources: ['roles'], verbs: ['create', 'escalate'] }])
      assert.equal((await escalator.call(rolesIn('feast'), wanted)).status, 201)
    })
  })

  test('a SelfSubjectAccessReview (kubectl auth can-i) is answered from the same rules, for any authenticated user', async () => {
    const user = newUser()
    grantRole('feast', 'asker', user.name, [{ apiGroups: [RBAC], resources: ['roles'], verbs: ['watch'] }])
    const ask = async (resourceAttributes: Record<string, string>): Promise<unknown> =>
      (await user.call(ACCESS_REVIEWS, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } })).body.status.allowed
    assert.equal(await ask({ namespace: 'feast', verb: 'watch', group: RBAC, resource: 'roles' }), true)
    assert.equal(await ask({ namespace: 'feast', verb: 'list', group: RBAC, resource: 'roles' }), false)
    assert.equal(await ask({ namespace: 'feast', verb: 'get', group: '', resource: 'secrets' }), false)
    assert.equal((await request(api, ACCESS_REVIEWS, { spec: { resourceAttributes: { verb: 'get' } } }, { authorization: null })).status, 403)
  })

  test('grant and revoke refuse to run: permissions come from RBAC objects only', () => {
    assert.throws(() => { api.grant('list', 'rolebindings', 'feast') }, /rbac authorizer/)
    assert.throws(() => { api.revoke('list', 'rolebindings') }, /rbac authorizer/)
  })
})
