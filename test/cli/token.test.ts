import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { startScriptedServer } from '../helpers/scripted-server.ts'
import { startTokenEndpointStub } from '../helpers/token-endpoint-stub.ts'

interface Run { code: number | null, stdout: string, stderr: string }

function cli (args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    // A clean environment: no token variable of the machine running the tests leaks in.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'token', ...args], { env: { PATH: process.env.PATH, ...env }, cwd: process.cwd() })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('feast-authz token', () => {
  let dir: string
  let idp: TestProvider
  const file = async (name: string, yaml: string): Promise<string> => {
    const path = join(dir, name)
    await writeFile(path, yaml)
    return path
  }
  const noSa = ['--service-account-token-file', '/nonexistent/sa-token']

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'feast-authz-token-cli-'))
    // The provider is started here, not by the OIDC-app fixture: the CLI, no server.
    idp = await startOidcProvider()
  })
  after(async () => {
    await idp?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('prints only the token from the variable named by token_env_var', async () => {
    const config = await file('env.yaml', 'project: p\nauth:\n  type: oidc\n  token_env_var: MY_TOKEN\n')
    assert.deepEqual(await cli(['--config', config, ...noSa], { MY_TOKEN: 'abc.def.ghi' }), { code: 0, stdout: 'abc.def.ghi\n', stderr: '' })
  })

  it('prints a token fetched from the provider with client credentials', async () => {
    const config = await file('cc.yaml', `project: p\nauth:\n  type: oidc\n  auth_discovery_url: ${idp.discoveryUrl}\n  client_id: ${idp.clientId}\n  client_secret: ${idp.clientSecret}\n`)
    const run = await cli(['--config', config, ...noSa])
    assert.equal(run.code, 0)
    assert.match(run.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/)
  })

  it('warns on stderr of a variable the file refers to that is not set, by file, line and column, and still prints the token', async () => {
    const config = await file('unset-ref.yaml', 'project: p\nauth:\n  type: oidc\n  token: $UNSET_TOKEN_VARIABLE\n')
    const run = await cli(['--config', config, ...noSa])
    assert.equal(run.code, 0)
    assert.equal(run.stdout, '$UNSET_TOKEN_VARIABLE\n')
    assert.equal(run.stderr, `feast-authz token: warning: ${config}:4:10: refers to an environment variable that is not set ($NAME, or the same in braces); the text is kept as written, as Feast keeps it\n`)
  })

  it('exits 1 with the reason when no source yields a token, printing nothing on stdout', async () => {
    const config = await file('bare.yaml', 'project: p\nauth:\n  type: oidc\n')
    const run = await cli(['--config', config, ...noSa])
    assert.equal(run.code, 1)
    assert.equal(run.stdout, '')
    assert.match(run.stderr, /no_token_source: no OIDC token source configured/)
  })

  it('exits 1 naming the variable when token_env_var is unset', async () => {
    const config = await file('unset.yaml', 'project: p\nauth:\n  type: oidc\n  token_env_var: MISSING_VAR\n')
    const run = await cli(['--config', config, ...noSa], { FEAST_OIDC_TOKEN: 'would-be-wrong' })
    assert.equal(run.code, 1)
    assert.match(run.stderr, /MISSING_VAR is not set or is empty/)
  })

  it('exits 1 with the provider status and error code when the provider refuses, without the secret', async () => {
    const config = await file('bad-secret.yaml', `project: p\nauth:\n  type: oidc\n  auth_discovery_url: ${idp.discoveryUrl}\n  client_id: ${idp.clientId}\n  client_secret: definitely-wrong\n`)
    const run = await cli(['--config', config, ...noSa])
    assert.equal(run.code, 1)
    assert.match(run.stderr, /provider_rejected: .*HTTP 401 invalid_client/)
    assert.doesNotMatch(run.stderr, /definitely-wrong/)
  })

  it('exits 3 (could not decide) when the provider cannot be reached', async () => {
    const config = await file('unreachable.yaml', 'project: p\nauth:\n  type: oidc\n  auth_discovery_url: http://127.0.0.1:9/.well-known/openid-configuration\n  client_id: feast\n  client_secret: s\n')
    const run = await cli(['--config', config, ...noSa])
    assert.equal(run.code, 3)
    assert.equal(run.stdout, '')
    assert.match(run.stderr, /^feast-authz token: provider_unavailable: request to http:\/\/127\.0\.0\.1:9\/\.well-known\/openid-configuration failed: ECONNREFUSED\n {2}check that this machine can reach that URL .*; requests time out after 10 s\n$/)
  })

  it('exits 3 pointing at auth_discovery_url, not at the network, when the discovery URL answers 404', async () => {
    const server = await startScriptedServer([{ status: 404 }])
    try {
      const config = await file('not-found.yaml', `project: p\nauth:\n  type: oidc\n  auth_discovery_url: ${server.url}/realms/feast\n  client_id: feast\n  client_secret: s\n`)
      const run = await cli(['--config', config, ...noSa])
      assert.equal(run.code, 3)
      assert.match(run.stderr, /^feast-authz token: provider_unavailable: discovery document http:\/\/127\.0\.0\.1:\d+\/realms\/feast answered HTTP 404\n {2}that URL answered, but with no discovery document: auth_discovery_url must be/)
    } finally {
      await server.close()
    }
  })

  it('exits 3 saying the provider limits its clients, not pointing at the URL, when the token endpoint answers 429', async () => {
    const stub = await startTokenEndpointStub([{ status: 429, body: {}, headers: { 'retry-after': '7' } }])
    try {
      const config = await file('limited.yaml', `project: p\nauth:\n  type: oidc\n  auth_discovery_url: ${stub.discoveryUrl}\n  client_id: feast\n  client_secret: s\n`)
      const run = await cli(['--config', config, ...noSa])
      assert.equal(run.code, 3)
      assert.match(run.stderr, /^feast-authz token: provider_unavailable: token endpoint http:\/\/127\.0\.0\.1:\d+\/token answered HTTP 429 \(it asks to wait 7 s\)\n {2}the provider is limiting its clients \(HTTP 429, too many requests\): try again later; /)
    } finally {
      await stub.close()
    }
  })

  it('exits 2 on a configuration error, pointing at the field', async () => {
    const config = await file('both.yaml', 'project: p\nauth:\n  type: oidc\n  token: a\n  token_env_var: B\n')
    const run = await cli(['--config', config])
    assert.equal(run.code, 2)
    assert.equal(run.stdout, '')
    assert.match(run.stderr, /both\.yaml:5:3: auth\.token_env_var: only one of/)
  })

  it('exits 2 on a ca_cert_path naming a missing file, pointing at the file, line and field', async () => {
    const config = await file('missing-ca.yaml', `project: p\nauth:\n  type: oidc\n  client_id: ${idp.clientId}\n  client_secret: s\n  auth_discovery_url: ${idp.discoveryUrl}\n  ca_cert_path: /nonexistent/ca.pem\n`)
    const run = await cli(['--config', config])
    assert.equal(run.code, 2)
    assert.equal(run.stdout, '')
    assert.match(run.stderr, /missing-ca\.yaml:7:3: auth\.ca_cert_path: cannot read the CA bundle/)
  })

  it('exits 2 naming --service-account-token-file when it is given empty, not the option of the code underneath', async () => {
    const config = await file('k8s-empty-sa.yaml', 'project: p\nauth:\n  type: kubernetes\n')
    const run = await cli(['--config', config, '--service-account-token-file', ''])
    assert.equal(run.code, 2)
    assert.match(run.stderr, /^feast-authz token: --service-account-token-file: expected the path of a file, got an empty string\n/)
  })

  it('exits 2 without --config when there is no FEATURE_STORE_YAML_BASE64 or ./feature_store.yaml either', async () => {
    const run = await cli([])
    assert.equal(run.code, 2)
    assert.match(run.stderr, /no configuration: give --config <feature_store\.yaml>, set FEATURE_STORE_YAML_BASE64/)
  })

  it('reads FEATURE_STORE_YAML_BASE64 without --config', async () => {
    const yaml = 'project: p\nauth:\n  type: kubernetes\n'
    const run = await cli([...noSa], { LOCAL_K8S_TOKEN: 'sa.token.value', FEATURE_STORE_YAML_BASE64: Buffer.from(yaml).toString('base64') })
    assert.deepEqual(run, { code: 0, stdout: 'sa.token.value\n', stderr: '' })
  })

  it('prints the kubernetes token from LOCAL_K8S_TOKEN outside a pod', async () => {
    const config = await file('k8s.yaml', 'project: p\nauth:\n  type: kubernetes\n')
    assert.deepEqual(await cli(['--config', config, ...noSa], { LOCAL_K8S_TOKEN: 'sa.token.value' }), { code: 0, stdout: 'sa.token.value\n', stderr: '' })
  })

  it('exits 1 under no_auth: there is no token to send', async () => {
    const config = await file('none.yaml', 'project: p\nauth:\n  type: no_auth\n')
    const run = await cli(['--config', config])
    assert.equal(run.code, 1)
    assert.match(run.stderr, /no_auth/)
  })
})
