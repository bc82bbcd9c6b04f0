import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { jwsToken, roleBinding, rulelessRole, type FakeKubeApi } from '../helpers/fake-kube-api.ts'
import { startClusterWithAliceReader } from '../helpers/kubernetes.ts'

interface Run { code: number, stdout: string, stderr: string }

describe('feast-authz inspect in kubernetes mode', () => {
  let api: FakeKubeApi
  let config: string

  before(async () => {
    api = await startClusterWithAliceReader()
    config = join(api.dir, 'feature_store.yaml')
    await writeFile(config, 'project: demo\nauth:\n  type: kubernetes\n')
  })
  after(async () => { await api?.close() })

  /** Runs the CLI with KUBECONFIG pointing at the fake API server, as a developer would. */
  async function inspect (token: string, kubeconfig = api.kubeconfigPath): Promise<Run> {
    return await feastAuthz(['inspect', '--config', config, '--token', token], kubeconfig)
  }

  async function feastAuthz (args: string[], kubeconfig = api.kubeconfigPath): Promise<Run> {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: api.dir, KUBECONFIG: kubeconfig }
    return await new Promise((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr })
      })
    })
  }

  test('prints the principal of a service-account token with its roles from the cluster', async () => {
    const run = await inspect(jwsToken('alice-token'))
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual(JSON.parse(run.stdout), {
      username: 'system:serviceaccount:apps:alice',
      roles: ['reader'],
      groups: ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated'],
      namespaces: ['apps'],
      source: 'kubernetes'
    })
  })

  test('exits 1 with the reason when the cluster rejects the token', async () => {
    const run = await inspect(jwsToken('not-a-known-token'))
    assert.equal(run.code, 1)
    assert.match(run.stderr, /token rejected: token_review_rejected/)
  })

  test('exits 3 saying it could not decide when the API server refuses the service', async () => {
    api.revoke('create', 'tokenreviews')
    try {
      const run = await inspect(jwsToken('alice-token'))
      assert.equal(run.code, 3)
      assert.ok(run.stderr.includes(`could not decide: cluster_unavailable: the Kubernetes API server refused feast-authz a permission it needs: TokenReview at ${api.url}: HTTP 403 (forbidden): the kubeconfig user feast-service (context fake) lacks the permission create tokenreviews`), run.stderr)
      assert.doesNotMatch(run.stderr, /^feast-authz inspect: error: /m, 'the verdict says it once; the log line is for --debug')
    } finally {
      api.grant('create', 'tokenreviews')
    }
  })

  test('says which permission to grant when the API server refuses to list RoleBindings', async () => {
    api.revoke('list', 'rolebindings')
    try {
      const run = await inspect(jwsToken('alice-token'))
      assert.equal(run.code, 3)
      assert.ok(run.stderr.includes(`list RoleBindings and Roles in namespace feast at ${api.url}: HTTP 403 (forbidden): the kubeconfig user feast-service (context fake) lacks the permission get, list and watch rolebindings and roles (rbac.authorization.k8s.io) in namespace feast\n  grant that permission to the kubeconfig user feast-service (context fake) on ${api.url}`), run.stderr)
    } finally {
      api.grant('list', 'rolebindings')
    }
  })

  test('against an API server that refuses connections, prints its verdict with the server and the time budget, and no informer warning', async () => {
    await api.stop()
    try {
      const run = await inspect(jwsToken('alice-token'))
      assert.equal(run.code, 3)
      assert.ok(run.stderr.endsWith([
        `feast-authz inspect: could not decide: cluster_unavailable: the Kubernetes API server could not be reached: TokenReview at ${api.url}: unreachable (ECONNREFUSED)`,
        `  check that this machine can reach ${api.url}, the API server of the kubeconfig (KUBECONFIG, else ~/.kube/config), and that it is up; each call to it times out after 5 s (requestTimeoutMs); --debug shows the details`,
        ''
      ].join('\n')), run.stderr)
      assert.doesNotMatch(run.stderr, /informer/)
    } finally {
      await api.start()
    }
  })

  test('says to check the kubeconfig\'s certificate-authority when the API server\'s certificate is signed by a CA it does not trust', async () => {
    const untrusting = join(api.dir, 'kubeconfig-without-ca')
    await writeFile(untrusting, (await readFile(api.kubeconfigPath, 'utf8')).replace(/\n\s*certificate-authority-data: .*/, ''))
    const run = await inspect(jwsToken('alice-token'), untrusting)
    assert.equal(run.code, 3)
    assert.match(run.stderr, /TokenReview at \S+: TLS certificate not trusted \(\w+\)\n {2}the certificate of \S+ is signed by no CA that the kubeconfig \(KUBECONFIG, else ~\/\.kube\/config\) trusts: check the certificate-authority \(or certificate-authority-data\) of its cluster;/)
  })

  test('lists the roles once and opens no watch for an accepted token', async () => {
    api.resetCalls()
    const run = await inspect(jwsToken('alice-token'))
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual([api.calls.roleBindingLists, api.calls.roleLists, api.calls.roleBindingWatches, api.calls.roleWatches], [1, 1, 0, 0])
  })

  test('still warns about RoleBindings to Roles without the Feast marker', async () => {
    api.putRole(rulelessRole('feast', 'legacy'))
    api.putRoleBinding(roleBinding('feast', 'alice-legacy', 'legacy', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    try {
      const run = await inspect(jwsToken('alice-token'))
      assert.equal(run.code, 0, run.stderr)
      assert.match(run.stderr, /^feast-authz inspect: warning: RoleBindings in namespace feast refer to Roles without the Feast marker rule \(1\)/m)
    } finally {
      api.deleteRoleBinding('feast', 'alice-legacy')
      api.deleteRole('feast', 'legacy')
    }
  })

  test('check gives the same verdict as inspect against an API server that refuses connections', async () => {
    const tokenFile = join(api.dir, 'alice.jwt')
    await writeFile(tokenFile, jwsToken('alice-token'))
    await api.stop()
    try {
      const run = await feastAuthz(['check', '--permissions', 'fixtures/permissions/sample.yaml', '--config', config, '--token-file', tokenFile, '--resource', 'FeatureView:x', '--action', 'DESCRIBE'])
      assert.equal(run.code, 3)
      assert.equal(run.stdout, '')
      assert.ok(run.stderr.includes(`feast-authz check: could not decide: cluster_unavailable: the Kubernetes API server could not be reached: TokenReview at ${api.url}: unreachable (ECONNREFUSED)\n  check that this machine can reach ${api.url}`), run.stderr)
      assert.doesNotMatch(run.stderr, /informer/)
    } finally {
      await api.start()
    }
  })
})
