import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { loadClientAuthConfig } from '../../src/client/validate.ts'
import { ConfigError } from '../../src/config/errors.ts'

const DISCOVERY = 'https://idp.example.com/realms/feast/.well-known/openid-configuration'
const CREDENTIALS = { client_secret: 's3cr3t-value', auth_discovery_url: DISCOVERY, client_id: 'feast' }

function load (auth: Record<string, unknown>): unknown {
  return loadClientAuthConfig({ project: 'p', auth: { type: 'oidc', ...auth } })
}

function rejects (auth: Record<string, unknown>, message: RegExp): void {
  assert.throws(() => load(auth), (error: unknown) => {
    assert.ok(error instanceof ConfigError)
    assert.match(error.message, message)
    assert.doesNotMatch(error.message, /s3cr3t-value|hunter2/)
    return true
  })
}

describe('client OIDC configuration', () => {
  it('accepts a bare type: oidc', () => {
    assert.deepEqual(load({}), { type: 'oidc', verify_ssl: true, jwks_cache_lifespan_seconds: 300, jwks_request_timeout_seconds: 10, token_refresh_margin_seconds: 30 })
  })

  it('accepts token alone, token_env_var alone, and the client-credentials group alone', () => {
    assert.equal((load({ token: 'abc' }) as { token: string }).token, 'abc')
    assert.equal((load({ token_env_var: 'MY_TOKEN' }) as { token_env_var: string }).token_env_var, 'MY_TOKEN')
    assert.equal((load(CREDENTIALS) as { client_id: string }).client_id, 'feast')
  })

  it('accepts the password grant: client credentials plus username and password', () => {
    assert.equal((load({ ...CREDENTIALS, username: 'ann', password: 'hunter2' }) as { username: string }).username, 'ann')
  })

  it('refuses token together with token_env_var', () => {
    rejects({ token: 'abc', token_env_var: 'MY_TOKEN' }, /auth\.token_env_var: only one of token, token_env_var and client_credentials .* got token and token_env_var/)
  })

  it('refuses token together with full client credentials', () => {
    rejects({ token: 'abc', ...CREDENTIALS }, /only one of .* got token and client_credentials/)
  })

  it('refuses client_secret without auth_discovery_url and client_id, naming the fields that go together', () => {
    rejects({ client_secret: 's3cr3t-value' }, /auth\.client_secret: incomplete configuration for 'client_credentials': `client_secret`, `auth_discovery_url` and `client_id` go together .*missing `auth_discovery_url` and `client_id`/)
  })

  it('refuses username and password without client_secret', () => {
    rejects({ auth_discovery_url: DISCOVERY, client_id: 'feast', username: 'ann', password: 'hunter2' }, /incomplete configuration for 'client_credentials'.*`username` and `password` go together.*missing `client_secret`/)
  })

  it('says that a server\'s own auth section is not a client\'s, and what a client sets instead', () => {
    rejects({ auth_discovery_url: DISCOVERY, client_id: 'feast' }, /missing `client_secret`\. This is a server's auth section; a client needs its own: `token`, `token_env_var`, `client_secret` .*docs\/client\.md/)
  })

  it('refuses username without password', () => {
    rejects({ ...CREDENTIALS, username: 'ann' }, /missing `password`/)
  })

  it('refuses the password grant without a discovery URL', () => {
    rejects({ client_secret: 's3cr3t-value', client_id: 'feast', username: 'ann', password: 'hunter2' }, /missing `auth_discovery_url`/)
  })

  it('refuses token with only auth_discovery_url and client_id', () => {
    rejects({ token: 'abc', auth_discovery_url: DISCOVERY, client_id: 'feast' }, /incomplete configuration for 'client_credentials'/)
  })

  it('refuses token_env_var with only auth_discovery_url and client_id', () => {
    rejects({ token_env_var: 'MY_TOKEN', auth_discovery_url: DISCOVERY, client_id: 'feast' }, /incomplete configuration for 'client_credentials'/)
  })

  it('points at the line of the offending field in a YAML file', () => {
    assert.throws(() => loadClientAuthConfig({ yaml: 'project: p\nauth:\n  type: oidc\n  token: abc\n  token_env_var: X\n', source: 'client.yaml' }), /ConfigError: client\.yaml:5:3: auth\.token_env_var: only one of/)
  })

  it('leaves kubernetes and no_auth configurations alone', () => {
    assert.deepEqual(loadClientAuthConfig({ auth: { type: 'no_auth' } }), { type: 'no_auth' })
    assert.equal(loadClientAuthConfig({ auth: { type: 'kubernetes', user_token: 't' } }).type, 'kubernetes')
  })
})
