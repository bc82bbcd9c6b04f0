/* eslint-disable no-template-curly-in-string -- ${NAME} in plain strings is feature_store.yaml syntax under test, not a template */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { parse, parseAllDocuments } from 'yaml'
import { terminalControls } from '../helpers/terminal.ts'
import { run as operator } from '../../src/cli/commands/operator.ts'
import { runCli, runInProcess, type CliRun } from '../helpers/cli.ts'

const cli = (args: string[]): Promise<CliRun> => runCli(['operator', ...args])
const dir = mkdtempSync(join(tmpdir(), 'feast-authz-operator-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

/** `kind/name` of every RBAC object the readable output lists. */
function rbacObjects (stdout: string): string[] {
  const rbacPart = stdout.slice(stdout.indexOf('# RBAC objects'))
  return parseAllDocuments(rbacPart)
    .map((document) => document.toJS() as { kind?: string, metadata?: { name?: string } } | null)
    .filter((object) => object?.kind !== undefined)
    .map((object) => `${object?.kind ?? ''}/${object?.metadata?.name ?? ''}`)
}

describe('feast-authz operator render', () => {
  it('prints {server, client, feature_store_yaml_base64, rbac, clientPod} with --json', async () => {
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-oidc.yaml', '--secret', 'fixtures/operator/secret-oidc.yaml', '--json'])
    assert.equal(run.code, 0, run.stderr)
    const output = JSON.parse(run.stdout) as Record<string, unknown>
    assert.deepEqual(Object.keys(output), ['server', 'client', 'feature_store_yaml_base64', 'rbac', 'clientPod'])
    assert.equal((output.server as { client_secret: string }).client_secret, 'sample-client-secret')
    assert.deepEqual(output.client, { type: 'oidc', token_env_var: 'FEAST_USER_TOKEN' })
  })

  it('keeps the $NAME and ${NAME} references of --base as written, for Feast to replace where the server runs', async () => {
    const base = join(dir, 'base-feature_store.yaml')
    writeFileSync(base, 'project: old\nregistry: ${REGISTRY_PATH}\nonline_store:\n  type: redis\n  connection_string: $REDIS_URL\n')
    const run = await runCli(['operator', 'render', '--resource', 'fixtures/operator/featurestore-noauth.yaml', '--base', base, '--json'], { env: { REGISTRY_PATH: 'not/this', REDIS_URL: 'redis://not-this' } })
    assert.equal(run.code, 0, run.stderr)
    const yaml = Buffer.from((JSON.parse(run.stdout) as { feature_store_yaml_base64: string }).feature_store_yaml_base64, 'base64').toString('utf8')
    const written = parse(yaml) as { registry?: unknown, online_store?: { connection_string?: unknown } }
    assert.equal(written.registry, '${REGISTRY_PATH}')
    assert.equal(written.online_store?.connection_string, '$REDIS_URL')
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
    assert.deepEqual(rbacObjects(run.stdout), [
      'Role/feast-sample-kubernetes-auth',
      'RoleBinding/feast-sample-kubernetes-auth',
      'ClusterRole/feast-authz-token-review',
      'ClusterRoleBinding/feast-authz:feast:sample-kubernetes-auth:token-review',
      'Role/feast-writer',
      'Role/feast-reader'
    ])
  })

  it('prints the Feast operator\'s RBAC objects with --feast-compatible-rbac', async () => {
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-kubernetes.yaml', '--feast-compatible-rbac'])
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual(rbacObjects(run.stdout).slice(2, 4), [
      'ClusterRole/feast-token-review-cluster-role',
      'ClusterRoleBinding/feast-sample-kubernetes-auth-cluster-binding'
    ])
  })

  it('lists --feast-compatible-rbac in its help', async () => {
    const run = await cli(['render', '--help'])
    assert.equal(run.code, 0)
    assert.match(run.stdout, /--feast-compatible-rbac\s+kubernetes mode: emit the Feast operator's RBAC objects/)
  })

  it('exits 2 with the error on stderr for an invalid resource', async () => {
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-two-members.yaml', '--secret', 'fixtures/operator/secret-oidc.yaml', '--json'])
    assert.equal(run.code, 2)
    assert.equal(run.stdout, '')
    assert.match(run.stderr, /spec\.authz: set exactly one of kubernetes, oidc or noAuth/)
  })

  it('writes a Secret value holding controls, separators and bidi marks so that it reads back the same, with nothing raw for the terminal', async () => {
    // ESC, a C1 CSI, a line separator (a line break to kubectl's libyaml and Feast's PyYAML), a right-to-left override.
    const value = 'se\u001b[2Jcr\u009bet\u2028two\u202eeno'
    const path = join(dir, 'odd-secret.yaml')
    writeFileSync(path, [
      'apiVersion: v1', 'kind: Secret', 'metadata: { name: oidc-secret, namespace: feast }',
      `data: { auth_discovery_url: ${Buffer.from('https://idp.example.com/.well-known/openid-configuration').toString('base64')}, client_id: ZmVhc3Q=, client_secret: ${Buffer.from(value).toString('base64')} }`
    ].join('\n'))
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-oidc.yaml', '--secret', path])
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual(terminalControls(run.stdout), [])
    assert.doesNotMatch(run.stdout, /[\u2028\u2029]/)
    const section = run.stdout.slice(run.stdout.indexOf('auth:'), run.stdout.indexOf('\n\n'))
    assert.equal((parse(section) as { auth: { client_secret: string } }).auth.client_secret, value)
    const base64 = run.stdout.split('\n')[run.stdout.split('\n').indexOf('# feature_store_yaml_base64: the whole server feature_store.yaml, base64') + 1] ?? ''
    assert.equal((parse(Buffer.from(base64, 'base64').toString('utf8')) as { auth: { client_secret: string } }).auth.client_secret, value)
  })

  it('says the server section carries the Secret\'s credentials only when it does', async () => {
    const kubernetes = await cli(['render', '--resource', 'fixtures/operator/featurestore-kubernetes.yaml'])
    assert.equal(kubernetes.code, 0, kubernetes.stderr)
    assert.match(kubernetes.stdout, /^# Server feature_store\.yaml, auth section\n/)
    const oidc = await cli(['render', '--resource', 'fixtures/operator/featurestore-oidc.yaml', '--secret', 'fixtures/operator/secret-oidc.yaml'])
    assert.equal(oidc.code, 0, oidc.stderr)
    assert.match(oidc.stdout, /^# Server feature_store\.yaml, auth section \(carries the credentials of the Secret\)\n/)
  })

  it('exits 2 when the Secret named by secretRef is not given', async () => {
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-oidc.yaml'])
    assert.equal(run.code, 2)
    assert.match(run.stderr, /names Secret "oidc-secret", which was not given \(pass it with --secret\)/)
  })

  it('exits 2 naming the Secret file when it does not exist', async () => {
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-oidc.yaml', '--secret', 'fixtures/operator/no-such-secret.yaml'])
    assert.equal(run.code, 2)
    assert.match(run.stderr, /fixtures\/operator\/no-such-secret\.yaml: cannot read the Secret file: file not found/)
  })

  it('exits 2 naming the line and column of invalid YAML in a Secret file', async () => {
    const path = join(dir, 'broken-secret.yaml')
    writeFileSync(path, 'apiVersion: v1\nkind: Secret\nkind: Secret\n')
    const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-oidc.yaml', '--secret', path])
    assert.equal(run.code, 2)
    assert.match(run.stderr, /broken-secret\.yaml:3:1: invalid YAML: /)
  })

  it('exits 2 on a Secret value that YAML reads as an alias or a block scalar, without printing it', async () => {
    for (const [name, value] of [['alias', '*do-not-print-me'], ['block', '>do-not-print-me']]) {
      const path = join(dir, `${name}-secret.yaml`)
      writeFileSync(path, `apiVersion: v1\nkind: Secret\nmetadata:\n  name: oidc-secret\nstringData:\n  client_secret: ${value}\n`)
      const run = await cli(['render', '--resource', 'fixtures/operator/featurestore-oidc.yaml', '--secret', path])
      assert.equal(run.code, 2)
      assert.match(run.stderr, new RegExp(`${name}-secret\\.yaml(:6:\\d+)?: invalid YAML: `))
      assert.doesNotMatch(run.stderr, /do-not-print-me/)
    }
  })

  it('exits 2 on an unknown subcommand', async () => {
    const run = await cli(['apply'])
    assert.equal(run.code, 2)
    assert.match(run.stderr, /unknown subcommand "apply": expected render/)
  })
})

describe('feast-authz operator: arguments around the subcommand (in process)', () => {
  it('counts an argument beyond `render` from the command\'s name, as registry show does (a path given without --resource)', async () => {
    const { code, stderr } = await runInProcess(operator, ['render', 'fixtures/operator/featurestore-noauth.yaml'])
    assert.equal(code, 2)
    assert.match(stderr, /^feast-authz operator: unexpected argument: the 2nd \(not shown: it may be a token\)/)
  })

  it('takes options before `render` too', async () => {
    const { code, stdout, stderr } = await runInProcess(operator, ['--resource', 'fixtures/operator/featurestore-noauth.yaml', '--json', 'render'])
    assert.equal(code, 0, stderr)
    assert.equal((JSON.parse(stdout) as { server: { type: string } }).server.type, 'no_auth')
  })
})
