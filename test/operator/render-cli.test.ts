import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { describe, it } from 'node:test'
import { parseAllDocuments } from 'yaml'

interface Run { code: number | null, stdout: string, stderr: string }

function cli (args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'operator', ...args], { env: { PATH: process.env.PATH } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('feast-authz operator render', () => {
  it('prints {server, client, feature_store_yaml_base64, rbac} with --json', async () => {
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-oidc.yaml', '--secret', 'fixtures/operator/secret-oidc.yaml', '--json'])
    assert.equal(run.code, 0, run.stderr)
    const output = JSON.parse(run.stdout) as Record<string, unknown>
    assert.deepEqual(Object.keys(output), ['server', 'client', 'feature_store_yaml_base64', 'rbac'])
    assert.equal((output.server as { client_secret: string }).client_secret, 'sample-client-secret')
    assert.deepEqual(output.client, { type: 'oidc', token_env_var: 'FEAST_USER_TOKEN' })
  })

  it('warns on stderr for noAuth and still succeeds', async () => {
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-noauth.yaml', '--json'])
    assert.equal(run.code, 0)
    assert.match(run.stderr, /warning: spec\.authz\.noAuth is true: .*every endpoint is public/)
    assert.deepEqual((JSON.parse(run.stdout) as { server: unknown }).server, { type: 'no_auth' })
  })

  it('prints readable YAML by default, with RBAC objects kubectl can apply', async () => {
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-kubernetes.yaml'])
    assert.equal(run.code, 0)
    assert.match(run.stdout, /# Server feature_store\.yaml, auth section[^\n]*\nauth:\n {2}type: kubernetes\n/)
    const rbacPart = run.stdout.slice(run.stdout.indexOf('# RBAC objects'))
    const kinds = parseAllDocuments(rbacPart).map((document) => (document.toJS() as { kind?: string } | null)?.kind).filter((kind) => kind !== undefined)
    assert.deepEqual(kinds, ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'Role'])
  })

  it('exits 2 with the error on stderr for an invalid resource', async () => {
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-two-members.yaml', '--secret', 'fixtures/operator/secret-oidc.yaml', '--json'])
    assert.equal(run.code, 2)
    assert.equal(run.stdout, '')
    assert.match(run.stderr, /spec\.authz: set exactly one of kubernetes, oidc or noAuth/)
  })

  it('exits 2 when the Secret named by secretRef is not given', async () => {
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-oidc.yaml'])
    assert.equal(run.code, 2)
    assert.match(run.stderr, /names Secret "oidc-secret", which was not given \(pass it with --secret\)/)
  })

  it('exits 2 on an unknown subcommand', async () => {
    const run = await cli(['apply'])
    assert.equal(run.code, 2)
    assert.match(run.stderr, /unknown subcommand "apply": expected render/)
  })
})
