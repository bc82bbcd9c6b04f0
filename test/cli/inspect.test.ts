import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { runCli, type CliRun } from '../helpers/cli.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'

const dir = mkdtempSync(join(tmpdir(), 'feast-authz-inspect-'))

const inspect = async (...args: string[]): Promise<CliRun> => await runCli(['inspect', ...args])

let provider: TestProvider
let configPath: string
before(async () => {
  provider = await startOidcProvider()
  configPath = join(dir, 'feature_store.yaml')
  writeFileSync(configPath, `project: demo\nauth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: ${provider.discoveryUrl}\n`)
})
after(async () => { await provider.close() })

describe('feast-authz inspect', () => {
  test('prints the principal of a Keycloak-shaped token as JSON and exits 0', async () => {
    const token = await provider.issue({
      preferred_username: 'alice',
      resource_access: { feast: { roles: ['reader', 'writer'] }, other: { roles: ['admin'] } },
      roles: ['writer', 'auditor'],
      groups: ['/data-science']
    })
    const { code, stdout, stderr } = await inspect('--config', configPath, '--token', token)
    assert.equal(code, 0, stderr)
    assert.deepEqual(JSON.parse(stdout), {
      username: 'alice',
      roles: ['reader', 'writer', 'auditor'],
      groups: ['/data-science'],
      namespaces: [],
      source: 'oidc'
    })
  })

  test('reads the token from --token-file, ignoring the trailing newline', async () => {
    const token = await provider.issue({ appid: 'batch-job', roles: ['reader'] })
    const tokenFile = join(dir, 'token.jwt')
    writeFileSync(tokenFile, `${token}\n`)
    const { code, stdout } = await inspect('--config', configPath, '--token-file', tokenFile)
    assert.equal(code, 0)
    assert.equal(JSON.parse(stdout).username, 'batch-job')
  })

  test('a rejected token exits 1 with the reason on stderr and nothing on stdout', async () => {
    const token = await provider.sign({ preferred_username: 'eve', exp: Math.floor(Date.now() / 1000) - 3600 })
    const { code, stdout, stderr } = await inspect('--config', configPath, '--token', token)
    assert.equal(code, 1)
    assert.equal(stdout, '')
    assert.match(stderr, /token rejected: token_expired: the token has expired/)
  })

  test('a token that is not a JWT exits 1', async () => {
    const { code, stderr } = await inspect('--config', configPath, '--token', 'not-a-jwt')
    assert.equal(code, 1)
    assert.match(stderr, /token rejected: malformed_token/)
  })

  test('an unreachable provider exits 1 saying it could not authenticate, not that the token is bad', async () => {
    const unreachable = join(dir, 'unreachable.yaml')
    writeFileSync(unreachable, 'auth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: http://127.0.0.1:9/.well-known/openid-configuration\n  jwks_request_timeout_seconds: 2\n')
    const token = await provider.issue({ preferred_username: 'alice' })
    const { code, stderr } = await inspect('--config', unreachable, '--token', token)
    assert.equal(code, 1)
    assert.match(stderr, /could not authenticate: provider_unavailable/)
  })

  test('a bad configuration exits 2 with the config error', async () => {
    const bad = join(dir, 'bad.yaml')
    writeFileSync(bad, 'auth:\n  type: oidc\n  client_id: feast\n')
    const { code, stderr } = await inspect('--config', bad, '--token', 'x')
    assert.equal(code, 2)
    assert.match(stderr, /bad\.yaml:\d+:\d+: auth\.auth_discovery_url: is required for an OIDC server/)
  })

  test('missing --config is a usage error, exit 2', async () => {
    const { code, stderr } = await inspect('--token', 'x')
    assert.equal(code, 2)
    assert.match(stderr, /--config is required/)
  })

  test('giving both --token and --token-file is a usage error, exit 2', async () => {
    const { code, stderr } = await inspect('--config', configPath, '--token', 'x', '--token-file', 'y')
    assert.equal(code, 2)
    assert.match(stderr, /exactly one of --token and --token-file/)
  })

  test('an unreadable --token-file exits 2 naming the problem', async () => {
    const { code, stderr } = await inspect('--config', configPath, '--token-file', join(dir, 'missing.jwt'))
    assert.equal(code, 2)
    assert.match(stderr, /cannot read --token-file: ENOENT/)
  })

  test('the token never appears in the output of a rejection', async () => {
    const token = await provider.sign({ preferred_username: 'eve' }, { noExp: true })
    const { code, stdout, stderr } = await inspect('--config', configPath, '--token', token)
    assert.equal(code, 1)
    assert.match(stderr, /missing_exp/)
    assert.equal(`${stdout}${stderr}`.includes(token.split('.')[2]!), false)
  })
})
