import assert from 'node:assert/strict'
import { execFile, execFileSync, spawn } from 'node:child_process'
import { after, before, describe, test } from 'node:test'
import { feastRole, roleBinding, startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'

/** kubectl on PATH, or why not. CI installs it (.ci/run), so there the tests always run. */
function findKubectl (): string | undefined {
  try {
    execFileSync('kubectl', ['version', '--client', '--output=json'], { stdio: 'pipe', timeout: 20_000 })
    return undefined
  } catch (error) {
    return `kubectl is not installed (${(error as NodeJS.ErrnoException).code ?? 'failed'}); install the Debian package kubectl to run these tests`
  }
}
const missing = findKubectl()
if (missing !== undefined && process.env.CI !== undefined) throw new Error(`CI must run the kubectl tests: ${missing}`)

interface Run { code: number, stdout: string, stderr: string }

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

  async function kubectl (...args: string[]): Promise<Run> {
    return await kubectlWith(api.kubeconfigPath, ...args)
  }

  /** kubectl with another kubeconfig (another user). */
  async function kubectlWith (kubeconfig: string, ...args: string[]): Promise<Run> {
    return await new Promise((resolve) => {
      execFile('kubectl', args, { env: { ...env, KUBECONFIG: kubeconfig }, timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr })
      })
    })
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
