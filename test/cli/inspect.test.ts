import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, test } from 'node:test'
import { run } from '../../src/cli/commands/inspect.ts'
import { runCli, runCliInBash, runCliOnTerminal, runInProcess, scriptMissing, useOidcConfig, type CliRun } from '../helpers/cli.ts'
import { TERMINAL_PROMPT } from '../../src/cli/inputs.ts'
import { listenOnLoopback } from '../helpers/listen.ts'
import { startScriptedServer } from '../helpers/scripted-server.ts'

const dir = mkdtempSync(join(tmpdir(), 'feast-authz-inspect-'))

const emptyDir = mkdtempSync(join(tmpdir(), 'feast-authz-inspect-empty-'))

/** In process (spawning costs seconds a test); the tests of the working directory, environment and stdin spawn. */
async function inspect (...args: string[]): Promise<CliRun> {
  return await runInProcess(run, args)
}

const oidc = useOidcConfig(dir)
const terminalMissing = scriptMissing()

function unreachableConfig (): string {
  const path = join(dir, 'unreachable.yaml')
  writeFileSync(path, 'auth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: http://127.0.0.1:9/.well-known/openid-configuration\n  jwks_request_timeout_seconds: 2\n')
  return path
}

describe('feast-authz inspect', () => {
  test('prints the principal of a Keycloak-shaped token as JSON and exits 0', async () => {
    const token = await oidc.provider.issue({
      preferred_username: 'alice',
      resource_access: { feast: { roles: ['reader', 'writer'] }, other: { roles: ['admin'] } },
      roles: ['writer', 'auditor'],
      groups: ['/data-science']
    })
    const { code, stdout, stderr } = await inspect('--config', oidc.configPath, '--token', token)
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
    const token = await oidc.provider.issue({ appid: 'batch-job', roles: ['reader'] })
    const tokenFile = join(dir, 'token.jwt')
    writeFileSync(tokenFile, `${token}\n`)
    const { code, stdout } = await inspect('--config', oidc.configPath, '--token-file', tokenFile)
    assert.equal(code, 0)
    assert.equal(JSON.parse(stdout).username, 'batch-job')
  })

  test('a rejected token exits 1 with the reason on stderr and nothing on stdout', async () => {
    const token = await oidc.provider.sign({ preferred_username: 'eve', exp: Math.floor(Date.now() / 1000) - 3600 })
    const { code, stdout, stderr } = await inspect('--config', oidc.configPath, '--token', token)
    assert.equal(code, 1)
    assert.equal(stdout, '')
    assert.match(stderr, /token rejected: token_expired: the token has expired/)
  })

  test('a token that is not a JWT exits 1', async () => {
    const { code, stderr } = await inspect('--config', oidc.configPath, '--token', 'not-a-jwt')
    assert.equal(code, 1)
    assert.match(stderr, /token rejected: malformed_token/)
  })

  test('an unreachable provider exits 3 with one verdict: the discovery URL, the reason, what to check and the timeout, and no log lines', async () => {
    const token = await oidc.provider.issue({ preferred_username: 'alice' })
    const { code, stdout, stderr } = await inspect('--config', unreachableConfig(), '--token', token)
    assert.equal(code, 3)
    assert.equal(stdout, '')
    assert.equal(stderr,
      'feast-authz inspect: could not decide: provider_unavailable: the discovery document of the identity provider could not be fetched: ' +
      'request to http://127.0.0.1:9/.well-known/openid-configuration failed: ECONNREFUSED\n' +
      '  check that this machine can reach that URL (DNS, proxy, firewall) and that the provider is up; ' +
      'requests time out after jwks_request_timeout_seconds (2 s); --debug shows the details\n')
  })

  test('a key set that cannot be fetched is named as the key set, with its URL', async () => {
    const discovery = await listenOnLoopback(createServer((_request, response) => {
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ issuer: 'http://127.0.0.1', jwks_uri: 'http://127.0.0.1:9/keys' }))
    }))
    try {
      const path = join(dir, 'keys-unreachable.yaml')
      writeFileSync(path, `auth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: ${discovery.url}/.well-known/openid-configuration\n`)
      const { code, stderr } = await inspect('--config', path, '--token', await oidc.provider.issue({ preferred_username: 'alice' }))
      assert.equal(code, 3)
      assert.match(stderr, /^feast-authz inspect: could not decide: provider_unavailable: the signing keys of the identity provider could not be fetched: request to http:\/\/127\.0\.0\.1:9\/keys failed: ECONNREFUSED\n {2}check that/)
    } finally {
      discovery.server.close()
    }
  })

  /** inspect against a discovery URL answered by a scripted loopback server. */
  async function inspectAgainstDiscovery (reply: { status: number, headers?: Record<string, string> }): Promise<CliRun> {
    const server = await startScriptedServer([reply])
    try {
      const path = join(dir, `discovery-${reply.status}.yaml`)
      writeFileSync(path, `auth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: ${server.url}/realms/feast\n`)
      return await inspect('--config', path, '--token', await oidc.provider.issue({ preferred_username: 'alice' }))
    } finally {
      await server.close()
    }
  }

  const WRONG_URL_HINT = "  that URL answered, but with no discovery document: auth_discovery_url must be the provider's /.well-known/openid-configuration " +
    '(Keycloak: https://<host>/realms/<realm>/.well-known/openid-configuration), whose JSON names a jwks_uri and a token_endpoint; open it in a browser to compare; --debug shows the details\n'

  test('a discovery URL answering 404 points at auth_discovery_url, not at the network', async () => {
    const { code, stderr } = await inspectAgainstDiscovery({ status: 404 })
    assert.equal(code, 3)
    assert.match(stderr, /^feast-authz inspect: could not decide: provider_unavailable: the discovery document of the identity provider could not be fetched: discovery document http:\/\/127\.0\.0\.1:\d+\/realms\/feast answered HTTP 404\n/)
    assert.ok(stderr.endsWith(WRONG_URL_HINT), stderr)
  })

  test('a discovery URL answering a page that is not JSON (a login page) points at auth_discovery_url too', async () => {
    const { code, stderr } = await inspectAgainstDiscovery({ status: 200, headers: { 'content-type': 'text/html' } })
    assert.equal(code, 3)
    assert.match(stderr, /discovery document http:\/\/127\.0\.0\.1:\d+\/realms\/feast is not JSON\n/)
    assert.ok(stderr.endsWith(WRONG_URL_HINT), stderr)
  })

  test('a discovery URL answering 503 points at the provider, whose URL is right', async () => {
    const { code, stderr } = await inspectAgainstDiscovery({ status: 503 })
    assert.equal(code, 3)
    assert.match(stderr, /answered HTTP 503\n {2}check that this machine can reach that URL \(DNS, proxy, firewall\) and that the provider is up;/)
  })

  test('the verdict never shows the user and password of the discovery URL', async () => {
    const path = join(dir, 'credentials.yaml')
    writeFileSync(path, 'auth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: http://alice:s3cret@127.0.0.1:9/.well-known/openid-configuration\n')
    const { code, stderr } = await inspect('--config', path, '--token', await oidc.provider.issue({ preferred_username: 'alice' }))
    assert.equal(code, 3)
    assert.match(stderr, /request to http:\/\/127\.0\.0\.1:9\/\.well-known\/openid-configuration failed/)
    assert.doesNotMatch(stderr, /alice|s3cret/)
  })

  test('--verbose adds the stack traces of what failed', async () => {
    const token = await oidc.provider.issue({ preferred_username: 'alice' })
    const { code, stderr } = await inspect('--config', unreachableConfig(), '--token', token, '--verbose')
    assert.equal(code, 3)
    assert.match(stderr, /\n\s+at /)
  })

  test('--debug adds the log line of the failed discovery before the verdict', async () => {
    const token = await oidc.provider.issue({ preferred_username: 'alice' })
    const { code, stderr } = await inspect('--config', unreachableConfig(), '--token', token, '--debug')
    assert.equal(code, 3)
    assert.match(stderr, /^feast-authz inspect: error: OIDC discovery failed [^]*^feast-authz inspect: could not decide: /m)
  })

  test('a bad configuration exits 2 with the config error', async () => {
    const bad = join(dir, 'bad.yaml')
    writeFileSync(bad, 'auth:\n  type: oidc\n  client_id: feast\n')
    const { code, stderr } = await inspect('--config', bad, '--token', 'x')
    assert.equal(code, 2)
    assert.match(stderr, /bad\.yaml:\d+:\d+: auth\.auth_discovery_url: is required for an OIDC server/)
  })

  test('without --config and with no fallback, the usage error names all three places', async () => {
    const { code, stderr } = await runCli(['inspect', '--token', 'x'], { cwd: emptyDir })
    assert.equal(code, 2)
    assert.match(stderr, /^feast-authz inspect: no configuration: give --config <feature_store\.yaml>, set FEATURE_STORE_YAML_BASE64, or run where a feature_store\.yaml is/)
  })

  test('without --config it reads FEATURE_STORE_YAML_BASE64', async () => {
    const token = await oidc.provider.issue({ preferred_username: 'alice' })
    const yaml = `project: demo\nauth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: ${oidc.provider.discoveryUrl}\n`
    const { code, stdout, stderr } = await runCli(['inspect', '--token', token], { cwd: emptyDir, env: { FEATURE_STORE_YAML_BASE64: Buffer.from(yaml).toString('base64') } })
    assert.equal(code, 0, stderr)
    assert.equal(JSON.parse(stdout).username, 'alice')
  })

  test('without --config it reads ./feature_store.yaml', async () => {
    const token = await oidc.provider.issue({ preferred_username: 'alice' })
    const { code, stdout, stderr } = await runCli(['inspect', '--token', token], { cwd: dir })
    assert.equal(code, 0, stderr)
    assert.equal(JSON.parse(stdout).username, 'alice')
  })

  test('--token-file - reads the token from standard input', async () => {
    const token = await oidc.provider.issue({ preferred_username: 'stdin-user' })
    const { code, stdout, stderr } = await runCli(['inspect', '--config', oidc.configPath, '--token-file', '-'], { input: `${token}\n` })
    assert.equal(code, 0, stderr)
    assert.equal(JSON.parse(stdout).username, 'stdin-user')
  })

  describe('--token-file - at a terminal', { skip: terminalMissing }, () => {
    // Long enough to pass the 4095 bytes a terminal keeps of a line in its usual mode, short of the 8 KiB token limit.
    const longToken = async (): Promise<string> => await oidc.provider.issue({
      preferred_username: 'terminal-user',
      groups: Array.from({ length: 120 }, (_, i) => `group-${i}-of-a-large-directory`)
    })

    test('reads a pasted token whole, past the 4095 bytes a terminal keeps of a line, and echoes none of it', async () => {
      const token = await longToken()
      assert.ok(token.length > 4096 && token.length < 8192, `token of ${token.length} bytes`)
      const { code, screen } = await runCliOnTerminal(['inspect', '--config', oidc.configPath, '--token-file', '-'], `${token}\r`, TERMINAL_PROMPT)
      assert.equal(code, 0, screen)
      assert.match(screen, /"username": "terminal-user"/)
      assert.ok(!screen.includes(token.split('.')[2] ?? ''), 'the token was echoed')
      assert.ok(screen.includes(`${TERMINAL_PROMPT}\r\n{`), 'the answer starts on a line of its own')
    })

    test('a character taken back with Backspace is not part of the token', async () => {
      const token = await longToken()
      const { code, screen } = await runCliOnTerminal(['inspect', '--config', oidc.configPath, '--token-file', '-'], `x\x7f${token}\r`, TERMINAL_PROMPT)
      assert.equal(code, 0, screen)
      assert.match(screen, /"username": "terminal-user"/)
    })

    test('Ctrl-C at the prompt cancels, exit 2', async () => {
      const { code, screen } = await runCliOnTerminal(['inspect', '--config', oidc.configPath, '--token-file', '-'], 'eyJ\x03', TERMINAL_PROMPT)
      assert.equal(code, 2, screen)
      assert.match(screen, /feast-authz inspect: cannot read --token-file - \(standard input\): cancelled with Ctrl-C/)
    })
  })

  test('--token-file <(command) reads the token the command writes', async () => {
    const token = await oidc.provider.issue({ preferred_username: 'pipe-user' })
    const { code, stdout, stderr } = await runCliInBash('feast-authz inspect --config "$1" --token-file <(printf "%s\\n" "$2")', [oidc.configPath, token])
    assert.equal(code, 0, stderr)
    assert.equal(JSON.parse(stdout).username, 'pipe-user')
  })

  test('--token-file - stops reading a standard input that never ends, exit 2 naming the bound', async () => {
    const endless = new Readable({ read () { this.push('x'.repeat(16 * 1024)) } })
    try {
      const { code, stdout, stderr } = await runCli(['inspect', '--config', oidc.configPath, '--token-file', '-'], { input: endless })
      assert.equal(code, 2)
      assert.equal(stdout, '')
      assert.equal(stderr.split('\n')[0], 'feast-authz inspect: cannot read --token-file - (standard input): it holds more than the 65536 bytes a token file may have')
    } finally {
      endless.destroy()
    }
  })

  test('giving both --token and --token-file is a usage error, exit 2', async () => {
    const { code, stderr } = await inspect('--config', oidc.configPath, '--token', 'x', '--token-file', 'y')
    assert.equal(code, 2)
    assert.match(stderr, /one of --token and --token-file, not both/)
  })

  test('a missing --token-file exits 2 naming the path', async () => {
    const missing = join(dir, 'missing.jwt')
    const { code, stderr } = await inspect('--config', oidc.configPath, '--token-file', missing)
    assert.equal(code, 2)
    assert.equal(stderr.split('\n')[0], `feast-authz inspect: cannot read --token-file ${missing}: file not found`)
  })

  test('a misspelt option exits 2 with a did-you-mean on one line', async () => {
    const { code, stderr } = await inspect('--config', oidc.configPath, '--tokn', 'x')
    assert.equal(code, 2)
    assert.match(stderr, /^feast-authz inspect: unknown option --tokn \(did you mean --token\?\)/)
    assert.match(stderr, /Run `feast-authz inspect --help` for the options/)
  })

  test('the token never appears in the output of a rejection', async () => {
    const token = await oidc.provider.sign({ preferred_username: 'eve' }, { noExp: true })
    const { code, stdout, stderr } = await inspect('--config', oidc.configPath, '--token', token)
    assert.equal(code, 1)
    assert.match(stderr, /missing_exp/)
    assert.equal(`${stdout}${stderr}`.includes(token.split('.')[2]!), false)
  })
})
