import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi } from '../helpers/fake-kube-api.ts'

interface Run { code: number, stdout: string, stderr: string }

describe('feast-authz inspect in kubernetes mode', () => {
  let api: FakeKubeApi
  let config: string

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.addToken(jwsToken('alice-token'), serviceAccountIdentity('apps', 'alice'))
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    config = join(api.dir, 'feature_store.yaml')
    await writeFile(config, 'project: demo\nauth:\n  type: kubernetes\n')
  })
  after(async () => { await api?.close() })

  /** Runs the CLI with KUBECONFIG pointing at the fake API server, as a developer would. */
  async function inspect (token: string): Promise<Run> {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: api.dir, KUBECONFIG: api.kubeconfigPath }
    return await new Promise((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'inspect', '--config', config, '--token', token], { env, timeout: 60_000 }, (error, stdout, stderr) => {
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
      assert.match(run.stderr, /could not decide: cluster_unavailable: the Kubernetes API server could not be reached: TokenReview: HTTP 403 \(forbidden\): the service account lacks the permission create tokenreviews/)
      assert.doesNotMatch(run.stderr, /^feast-authz inspect: error: /m, 'the verdict says it once; the log line is for --debug')
    } finally {
      api.grant('create', 'tokenreviews')
    }
  })
})
