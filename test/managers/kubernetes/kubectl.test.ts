import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { kubernetesRbac } from '../../../src/operator/rbac.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { eventually } from '../../helpers/eventually.ts'
import { kubectlMissing, managerFor, runKubectl, type KubectlRun } from '../../helpers/kubernetes.ts'

const missing = kubectlMissing()

describe('real kubectl against the fake API server', { skip: missing }, () => {
  let api: FakeKubeApi
  let env: NodeJS.ProcessEnv

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    env = { PATH: process.env.PATH, HOME: api.dir, KUBECONFIG: api.kubeconfigPath }
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
  })
  after(async () => { await api?.close() })

  /** kubectl as a cluster admin (the service account may not write RBAC objects). */
  async function asAdmin (...args: string[]): Promise<KubectlRun> {
    return await kubectlWith(await api.writeKubeconfig({ name: 'admin', token: api.adminToken }), ...args)
  }

  /** A RoleBinding as a manifest has it, with its apiVersion and kind. */
  const typed = (binding: ReturnType<typeof roleBinding>): Record<string, unknown> => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', ...binding })

  /** A manifest in the API server's temp directory. */
  async function manifest (name: string, objects: unknown): Promise<string> {
    const path = join(api.dir, name)
    await writeFile(path, JSON.stringify(objects))
    return path
  }

  async function kubectl (...args: string[]): Promise<KubectlRun> {
    return await kubectlWith(api.kubeconfigPath, ...args)
  }

  /** kubectl with another kubeconfig (another user). */
  async function kubectlWith (kubeconfig: string, ...args: string[]): Promise<KubectlRun> {
    return await runKubectl(api, args, kubeconfig)
  }

  test('kubectl get rolebindings lists the bindings of the context namespace', async () => {
    const run = await kubectl('get', 'rolebindings', '-o', 'json')
    assert.equal(run.code, 0, run.stderr)
    const list = JSON.parse(run.stdout)
    assert.deepEqual(list.items.map((item: any) => item.metadata.name), ['alice-reader'])
    assert.ok(api.calls.discovery > 0, 'kubectl went through discovery')
  })

  test('kubectl get rolebinding <name> reads one object by name', async () => {
    const run = await kubectl('get', 'rolebinding', 'alice-reader', '-o', 'jsonpath={.roleRef.name}')
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.stdout, 'reader')
  })

  test('kubectl get of a missing object fails with NotFound', async () => {
    const run = await kubectl('get', 'rolebinding', 'nobody')
    assert.notEqual(run.code, 0)
    assert.match(run.stderr, /NotFound|not found/)
  })

  test('kubectl as the service account may not read another namespace: Forbidden, as RBAC answers', async () => {
    const run = await kubectl('get', 'rolebindings', '-n', 'kube-system')
    assert.notEqual(run.code, 0)
    assert.match(run.stderr, /Error from server \(Forbidden\): rolebindings\.rbac\.authorization\.k8s\.io is forbidden: User "system:serviceaccount:feast:feast" cannot list resource "rolebindings" in API group "rbac\.authorization\.k8s\.io" in the namespace "kube-system"/)
  })

  test('kubectl with a token the API server does not know is told it is Unauthorized', async () => {
    const run = await kubectlWith(await api.writeKubeconfig({ name: 'stranger', token: 'not-a-known-token' }), 'get', 'rolebindings')
    assert.notEqual(run.code, 0)
    assert.match(run.stderr, /Unauthorized|must be logged in/)
  })

  // kubectl validates client-side against the server's OpenAPI documents by default, which the
  // fake does not serve: --validate=false leaves validation to the server, as the real one does it.
  test('kubectl create, replace, patch and delete as an admin, with the refusals a real server gives', async () => {
    const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'carol-reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'carol' }] }
    const file = await manifest('carol.json', binding)
    const created = await asAdmin('create', '--validate=false', '-f', file)
    assert.equal(created.code, 0, created.stderr)
    assert.match(created.stdout, /rolebinding\.rbac\.authorization\.k8s\.io\/carol-reader created/)
    const again = await asAdmin('create', '--validate=false', '-f', file)
    assert.match(again.stderr, /Error from server \(AlreadyExists\).*rolebindings\.rbac\.authorization\.k8s\.io "carol-reader" already exists/)
    const moved = await asAdmin('replace', '--validate=false', '-f', await manifest('carol-writer.json', { ...binding, roleRef: { ...binding.roleRef, name: 'writer' } }))
    assert.notEqual(moved.code, 0)
    assert.match(moved.stderr, /The RoleBinding "carol-reader" is invalid: roleRef: Invalid value: rbac\.RoleRef\{APIGroup:"rbac\.authorization\.k8s\.io", Kind:"Role", Name:"writer"\}: cannot change roleRef/)
    const patched = await asAdmin('patch', 'rolebinding', 'carol-reader', '--type=merge', '-p', '{"subjects":[{"kind":"User","name":"dave"}]}')
    assert.equal(patched.code, 0, patched.stderr)
    assert.equal((await kubectl('get', 'rolebinding', 'carol-reader', '-o', 'jsonpath={.subjects[0].name}/{.subjects[0].apiGroup}')).stdout, 'dave/rbac.authorization.k8s.io')
    const deleted = await asAdmin('delete', 'rolebinding', 'carol-reader')
    assert.match(deleted.stdout, /rolebinding\.rbac\.authorization\.k8s\.io "carol-reader" deleted/)
    const gone = await kubectl('get', 'rolebinding', 'carol-reader')
    assert.match(gone.stderr, /Error from server \(NotFound\): rolebindings\.rbac\.authorization\.k8s\.io "carol-reader" not found/)
  })

  test('kubectl as the service account may not create RoleBindings, nor create in a namespace that does not exist as an admin', async () => {
    const file = await manifest('eve.json', typed(roleBinding('feast', 'eve-reader', 'reader', [{ kind: 'User', name: 'eve' }])))
    const denied = await kubectl('create', '--validate=false', '-f', file)
    assert.match(denied.stderr, /Error from server \(Forbidden\).*cannot create resource "rolebindings"/)
    const nowhere = await asAdmin('create', '--validate=false', '-n', 'nowhere', '-f', await manifest('nowhere.json', typed(roleBinding('nowhere', 'eve-reader', 'reader', [{ kind: 'User', name: 'eve' }]))))
    assert.match(nowhere.stderr, /Error from server \(NotFound\).*namespaces "nowhere" not found/)
  })

  test('the namespaced RBAC that feast-authz operator render emits is accepted by the server\'s validation', async () => {
    const namespaced = kubernetesRbac('demo', 'feast', ['reader-demo', 'Writer:Demo'], { feastCompatible: true })
      .filter((object) => object.kind === 'Role' || object.kind === 'RoleBinding')
    const run = await asAdmin('create', '--validate=false', '-f', await manifest('rendered.json', { apiVersion: 'v1', kind: 'List', items: namespaced }))
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.stdout.trim().split('\n').length, namespaced.length)
  })

  test('a RoleBinding made with kubectl grants its role to a running kubernetes manager, and deleting it takes the role away', async () => {
    api.addToken(jwsToken('frank-token'), serviceAccountIdentity('apps', 'frank'))
    const manager = managerFor(api)
    try {
      await manager.warmUp?.()
      assert.deepEqual((await manager.authenticate(jwsToken('frank-token'))).roles, [])
      const file = await manifest('frank.json', typed(roleBinding('feast', 'frank-reader', 'reader', [{ kind: 'ServiceAccount', name: 'frank', namespace: 'apps' }])))
      assert.equal((await asAdmin('create', '--validate=false', '-f', file)).code, 0)
      await eventually(async () => (await manager.authenticate(jwsToken('frank-token'))).roles.includes('reader'), 'the created binding to reach the informer')
      assert.equal((await asAdmin('delete', 'rolebinding', 'frank-reader')).code, 0)
      await eventually(async () => (await manager.authenticate(jwsToken('frank-token'))).roles.length === 0, 'the deletion to reach the informer')
    } finally {
      await manager.close()
    }
  })

  test('kubectl get -l selects by label, with equality and set-based selectors', async () => {
    api.putRoleBinding({ ...roleBinding('feast', 'labelled-reader', 'reader', [{ kind: 'User', name: 'gina' }]), metadata: { name: 'labelled-reader', namespace: 'feast', labels: { 'feast.dev/team': 'data' } } })
    const run = await kubectl('get', 'rolebindings', '-l', 'feast.dev/team=data', '-o', 'name')
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.stdout.trim(), 'rolebinding.rbac.authorization.k8s.io/labelled-reader')
    const none = await kubectl('get', 'rolebindings', '-l', 'feast.dev/team notin (data)', '-o', 'name')
    assert.doesNotMatch(none.stdout, /labelled-reader/)
  })

  test('kubectl get <name> --watch-only follows that one object (a fieldSelector on metadata.name)', async () => {
    api.putRoleBinding(roleBinding('feast', 'followed', 'reader', [{ kind: 'User', name: 'hal' }]))
    const child = spawn('kubectl', ['get', 'rolebinding', 'followed', '--watch-only', '-o', 'jsonpath={.subjects[0].name}{"\\n"}'], { env })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
    try {
      await eventually(() => api.openWatches('rolebindings') > 0, 'kubectl to open its watch', 30_000)
      assert.equal(api.lastWatchQuery('rolebindings')?.fieldSelector, 'metadata.name=followed')
      api.putRoleBinding(roleBinding('feast', 'not-followed', 'reader', [{ kind: 'User', name: 'ivan' }]))
      api.putRoleBinding(roleBinding('feast', 'followed', 'reader', [{ kind: 'User', name: 'judy' }]))
      await eventually(() => output.includes('judy'), 'the change to reach kubectl', 30_000)
      assert.doesNotMatch(output, /ivan/)
    } finally {
      child.kill()
    }
  })

  test('kubectl get roles shows the marker rule of a Feast role', async () => {
    const run = await kubectl('get', 'role', 'reader', '-o', 'jsonpath={.rules[0].resourceNames[0]}')
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.stdout, 'reader')
  })

  test('kubectl get --watch-only sees a binding created after it started', async () => {
    const child = spawn('kubectl', ['get', 'rolebindings', '--watch-only', '-o', 'name'], { env })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
    try {
      const deadline = Date.now() + 30_000
      while (api.openWatches('rolebindings') === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
      assert.equal(api.openWatches('rolebindings'), 1, 'kubectl opened a watch')
      api.putRoleBinding(roleBinding('feast', 'bob-reader', 'reader', [{ kind: 'User', name: 'bob' }]))
      while (!output.includes('bob-reader') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
      assert.match(output, /rolebinding\.rbac\.authorization\.k8s\.io\/bob-reader/)
      assert.doesNotMatch(output, /alice-reader/, 'watch-only shows no existing object')
    } finally {
      child.kill()
    }
  })
})
