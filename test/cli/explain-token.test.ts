import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { explainToken } from '../../src/cli/explain-token.ts'
import { loadAuthConfig } from '../../src/config/auth-config.ts'
import { runCli } from '../helpers/cli.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { terminalControls } from '../helpers/terminal.ts'

const NOW = Date.parse('2026-06-01T12:00:00Z')
const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
const jwt = (payload: Record<string, unknown>, header: Record<string, unknown> = { alg: 'RS256', kid: 'key-1' }): string => `${base64url(header)}.${base64url(payload)}.c2lnbmF0dXJl`

function oidcConfig (extra = ''): ReturnType<typeof loadAuthConfig>['auth'] {
  return loadAuthConfig({ yaml: `project: p\nauth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: https://idp.example.com/.well-known/openid-configuration\n${extra}` }).auth
}

describe('inspect --explain: the token next to the configuration', () => {
  test('shows kid, alg, iss, aud, exp as a date with how long ago, the username claim and the roles per claim', () => {
    const text = explainToken(jwt({
      iss: 'https://idp.example.com/realms/feast',
      aud: ['account', 'feast'],
      exp: NOW / 1000 - 7200,
      preferred_username: 'alice',
      resource_access: { feast: { roles: ['reader'] } },
      roles: ['auditor']
    }), oidcConfig(), NOW)
    assert.match(text, /header\.kid +"key-1"/)
    assert.match(text, /header\.alg +"RS256"/)
    assert.match(text, /iss +"https:\/\/idp\.example\.com\/realms\/feast"/)
    assert.match(text, /aud +\["account","feast"\]/)
    assert.match(text, /exp +2026-06-01T10:00:00\.000Z \(expired 2 h ago\)/)
    assert.match(text, /username +"alice" \(from preferred_username\)/)
    assert.match(text, /resource_access\.feast\.roles +\["reader"\]/)
    assert.match(text, /^ {2}roles +\["auditor"\]/m)
    assert.match(text, /auth\.audience +not set: any aud is accepted/)
    assert.match(text, /the token has expired/)
  })

  test('names the username claim used when preferred_username is absent', () => {
    assert.match(explainToken(jwt({ appid: 'batch', exp: NOW / 1000 + 600 }), oidcConfig(), NOW), /username +"batch" \(from appid\)[\s\S]*/)
    assert.match(explainToken(jwt({ exp: NOW / 1000 + 600 }), oidcConfig(), NOW), /exp .*expires in 10 min/)
  })

  test('hints that roles compare case-sensitively when a role has capitals', () => {
    const text = explainToken(jwt({ sub: 'a', exp: NOW / 1000 + 60, roles: ['Reader'] }), oidcConfig(), NOW)
    assert.match(text, /roles are compared exactly, case included/)
  })

  test('hints at an aud mismatch, naming both values', () => {
    const text = explainToken(jwt({ sub: 'a', exp: NOW / 1000 + 60, aud: 'account' }), oidcConfig('  audience: feast-api\n'), NOW)
    assert.match(text, /aud mismatch: the token is for "account" but auth\.audience is "feast-api"/)
  })

  test('hints at an Entra v1 token against a v2.0 configuration', () => {
    const config = loadAuthConfig({ yaml: 'auth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: https://login.microsoftonline.com/tenant-id/v2.0/.well-known/openid-configuration\n' }).auth
    const text = explainToken(jwt({ iss: 'https://sts.windows.net/tenant-id/', upn: 'a@example.com', exp: NOW / 1000 + 60 }), config, NOW)
    assert.match(text, /Entra ID: this is a v1 token/)
    assert.match(text, /requestedAccessTokenVersion/)
  })

  test('hints that GUID groups are object IDs', () => {
    const text = explainToken(jwt({ sub: 'a', exp: NOW / 1000 + 60, groups: ['2f1c3a4b-0000-4000-8000-1234567890ab'] }), oidcConfig(), NOW)
    assert.match(text, /the groups are object IDs \(GUIDs\)/)
  })

  test('hints that realm roles and other clients\' roles are not read', () => {
    const text = explainToken(jwt({ sub: 'a', exp: NOW / 1000 + 60, realm_access: { roles: ['reader'] }, resource_access: { other: { roles: ['writer'] } } }), oidcConfig(), NOW)
    assert.match(text, /roles in realm_access\.roles \(Keycloak realm roles\) are not read/)
    assert.match(text, /roles in resource_access\.other\.roles are not read: auth\.client_id is "feast"/)
  })

  test('a token that is not a JWT is said to be one', () => {
    assert.match(explainToken('opaque-token', oidcConfig(), NOW), /not a JWT/)
  })

  test('says to drop the Bearer scheme when the token was given with it', () => {
    const text = explainToken(`Bearer ${jwt({ sub: 'a' })}`, oidcConfig(), NOW)
    assert.match(text, /not a JWT[^]*Hints:\n {2}- give the token alone: drop the "Bearer " in front of it/)
  })

  test('says a token with a line break inside was wrapped when copied', () => {
    const [head, rest] = [jwt({ sub: 'a' }).slice(0, 20), jwt({ sub: 'a' }).slice(20)]
    assert.match(explainToken(`${head}\n${rest}`, oidcConfig(), NOW), /Hints:\n {2}- the token has spaces or line breaks inside it/)
  })

  test('names the discovery URL by origin and path, never its credentials, query or fragment', () => {
    const config = loadAuthConfig({ auth: { type: 'oidc', client_id: 'feast', auth_discovery_url: 'https://user:hunter2@idp.example.com/.well-known/openid-configuration?secret=x#frag' } }).auth
    const text = explainToken(jwt({ exp: NOW / 1000 + 60, sub: 'alice' }), config, NOW)
    assert.match(text, /auth\.auth_discovery_url +"https:\/\/idp\.example\.com\/\.well-known\/openid-configuration"\n/)
    for (const secret of ['user:', 'hunter2', 'secret=x', 'frag']) assert.ok(!text.includes(secret), `${secret} appears in: ${text}`)
  })

  test('shows control characters of claim names and values as \\uXXXX, one line per claim', () => {
    const hostile = '\u001b]0;owned\u0007\u001b[2J\r\n\u009b31m\u202e'
    const text = explainToken(jwt({ exp: NOW / 1000 + 60, sub: 'alice', resource_access: { [`app${hostile}`]: { roles: [`r${hostile}`] } } }, { alg: `HS256${hostile}`, kid: 'k' }), oidcConfig(), NOW)
    assert.deepEqual(terminalControls(text), [])
    assert.match(text, /^ {2}resource_access\.app\\u001b\]0;owned\\u0007\\u001b\[2J\\u000d\\u000a\\u009b31m\\u202e\.roles +\["r\\u001b/m)
    assert.match(text, /^ {2}- alg HS256\\u001b\]0;owned.* is refused/m)
  })

  test('gives no hint for a token that matches the configuration', () => {
    const text = explainToken(jwt({ sub: 'a', exp: NOW / 1000 + 60, aud: 'feast-api', roles: ['reader'] }), oidcConfig('  audience: feast-api\n'), NOW)
    assert.doesNotMatch(text, /Hints:/)
  })
})

describe('feast-authz inspect prints the explanation', () => {
  let provider: TestProvider
  const dir = mkdtempSync(join(tmpdir(), 'feast-authz-explain-'))
  const config = join(dir, 'feature_store.yaml')
  before(async () => {
    // The provider is started here, not by the OIDC-app fixture: the CLI, no server.
    provider = await startOidcProvider()
    writeFileSync(config, `project: demo\nauth:\n  type: oidc\n  client_id: ${provider.clientId}\n  auth_discovery_url: ${provider.discoveryUrl}\n`)
  })
  after(async () => { await provider.close() })

  test('by default on a rejection, on stderr, after the reason', async () => {
    const token = await provider.sign({ preferred_username: 'alice', roles: ['Reader'], exp: Math.floor(Date.now() / 1000) - 3600 })
    const { code, stdout, stderr } = await runCli(['inspect', '--config', config, '--token', token])
    assert.equal(code, 1)
    assert.equal(stdout, '')
    assert.match(stderr, /^feast-authz inspect: token rejected: token_expired[^\n]*\n[\s\S]*exp +\S+ \(expired \d+ min ago\)[\s\S]*username +"alice"[\s\S]*case included/m)
  })

  test('writes claims holding terminal controls as \\uXXXX on stdout and stderr, the principal JSON reading back the same', async () => {
    const hostile = '\u001b]0;owned\u0007\u009b2J\u202e'
    const token = await provider.issue({ preferred_username: `alice${hostile}`, roles: [`reader${hostile}`] })
    const { code, stdout, stderr } = await runCli(['inspect', '--config', config, '--token', token, '--explain'])
    assert.equal(code, 0, stderr)
    assert.deepEqual(terminalControls(stdout + stderr), [])
    assert.match(stderr, /username +"alice\\u001b\]0;owned\\u0007\\u009b2J\\u202e"/)
    assert.equal(JSON.parse(stdout).username, `alice${hostile}`)
    assert.deepEqual(JSON.parse(stdout).roles, [`reader${hostile}`])
  })

  test('with --explain on success, on stderr, while stdout stays the principal JSON', async () => {
    const token = await provider.issue({ preferred_username: 'alice', roles: ['reader'] })
    const { code, stdout, stderr } = await runCli(['inspect', '--config', config, '--token', token, '--explain'])
    assert.equal(code, 0, stderr)
    assert.equal(JSON.parse(stdout).username, 'alice')
    assert.match(stderr, /header\.kid +"[^"]+"/)
    assert.match(stderr, /Configuration expects:/)
  })
})
