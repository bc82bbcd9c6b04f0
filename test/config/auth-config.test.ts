/* eslint-disable no-template-curly-in-string -- ${NAME} in plain strings is feature_store.yaml syntax under test, not a template */
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { loadAuthConfig } from '../../src/config/auth-config.ts'
import { ConfigError } from '../../src/config/errors.ts'
import { thrownBy } from '../helpers/errors.ts'

const dir = mkdtempSync(join(tmpdir(), 'feast-authz-config-'))
function writeYaml (name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

const oidcServer = `project: demo
auth:
  type: oidc
  client_id: feast
  auth_discovery_url: https://idp.example.com/realms/feast/.well-known/openid-configuration
`

const configError = (fn: () => unknown): ConfigError => thrownBy(fn, ConfigError)

describe('reading the auth section', () => {
  test('a file without an auth section means no_auth', () => {
    const { auth } = loadAuthConfig(writeYaml('plain.yaml', 'project: demo\nprovider: local\n'))
    assert.deepEqual(auth, { type: 'no_auth' })
  })

  test('an OIDC server config gets the documented defaults', () => {
    const { auth } = loadAuthConfig(writeYaml('oidc.yaml', oidcServer))
    assert.deepEqual(auth, {
      type: 'oidc',
      client_id: 'feast',
      auth_discovery_url: 'https://idp.example.com/realms/feast/.well-known/openid-configuration',
      verify_ssl: true,
      jwks_cache_lifespan_seconds: 300,
      jwks_request_timeout_seconds: 10,
      token_refresh_margin_seconds: 30
    })
  })

  test('YAML text is accepted as well as a path', () => {
    const { auth } = loadAuthConfig(oidcServer)
    assert.equal(auth.type, 'oidc')
  })

  test('an already parsed object is accepted', () => {
    const { auth } = loadAuthConfig({ project: 'demo', auth: { type: 'kubernetes' } })
    assert.deepEqual(auth, { type: 'kubernetes', token_review_cache_ttl_seconds: 60 })
  })

  test('FEATURE_STORE_YAML_BASE64 is read when no source is given', () => {
    const env = { FEATURE_STORE_YAML_BASE64: Buffer.from(oidcServer).toString('base64') }
    const { auth, file } = loadAuthConfig(undefined, { env })
    assert.equal(auth.type, 'oidc')
    assert.equal(file.source, 'FEATURE_STORE_YAML_BASE64')
  })

  test('$NAME and ${NAME} in the file are replaced from the environment, as Feast reads feature_store.yaml', () => {
    const path = writeYaml('env.yaml', 'project: demo\nauth:\n  type: oidc\n  client_id: ${FEAST_CLIENT_ID}\n  auth_discovery_url: $DISCOVERY\n')
    const { auth } = loadAuthConfig(path, { env: { FEAST_CLIENT_ID: 'feast-api', DISCOVERY: 'https://idp.example.com/.well-known/openid-configuration' } })
    assert.equal(auth.type === 'oidc' ? auth.client_id : undefined, 'feast-api')
    assert.equal(auth.type === 'oidc' ? auth.auth_discovery_url : undefined, 'https://idp.example.com/.well-known/openid-configuration')
  })

  test('references in FEATURE_STORE_YAML_BASE64 are replaced too, as Feast writes it to a file and reads that', () => {
    const env = { FEATURE_STORE_YAML_BASE64: Buffer.from('project: demo\nauth:\n  type: kubernetes\n  token_review_cache_ttl_seconds: ${TTL}\n').toString('base64'), TTL: '30' }
    assert.deepEqual(loadAuthConfig(undefined, { env }).auth, { type: 'kubernetes', token_review_cache_ttl_seconds: 30 })
  })

  test('a reference to a variable that is not set stays as written, as in Feast', () => {
    const { auth } = loadAuthConfig('project: demo\nauth:\n  type: oidc\n  client_id: ${UNSET_CLIENT}\n  auth_discovery_url: https://idp.example.com/.well-known/openid-configuration\n', { env: {} })
    assert.equal(auth.type === 'oidc' ? auth.client_id : undefined, '${UNSET_CLIENT}')
  })

  test('an already parsed object is taken as it is: its strings are not expanded', () => {
    const { auth } = loadAuthConfig({ auth: { type: 'oidc', client_id: '$CLIENT', auth_discovery_url: 'https://idp.example.com/.well-known/openid-configuration' } }, { env: { CLIENT: 'no' } })
    assert.equal(auth.type === 'oidc' ? auth.client_id : undefined, '$CLIENT')
  })

  test('an error after a replaced value points at the line and column of the file as written', () => {
    const text = 'project: $PROJECT\nauth:\n  type: oidc\n  client_id: $CLIENT\n  auth_discovery_url: https://idp.example.com/.well-known/openid-configuration\n  verify_ssl: maybe\n'
    const error = configError(() => loadAuthConfig({ yaml: text, source: 'feature_store.yaml' }, { env: { PROJECT: 'a\nb: c\nd: e', CLIENT: 'a-much-longer-client-name' } }))
    assert.match(error.message, /^feature_store\.yaml:6:3: auth\.verify_ssl: /)
  })

  test('a YAML fault inside a replaced value is placed at its reference', () => {
    const error = configError(() => loadAuthConfig({ yaml: 'project: demo\nauth:\n  type: oidc\n  client_id: $CLIENT\n', source: 'feature_store.yaml' }, { env: { CLIENT: 'a: b: c' } }))
    assert.match(error.message, /^feature_store\.yaml:4:14: invalid YAML/)
  })

  test('FEATURE_STORE_YAML_BASE64 that is not base64 is an error naming the variable', () => {
    const error = configError(() => loadAuthConfig(undefined, { env: { FEATURE_STORE_YAML_BASE64: 'not base64 at all!' } }))
    assert.match(error.message, /^FEATURE_STORE_YAML_BASE64: is not valid base64/)
  })

  test('errors in a base64 config name FEATURE_STORE_YAML_BASE64 as the source', () => {
    const env = { FEATURE_STORE_YAML_BASE64: Buffer.from('auth:\n  type: ldap\n').toString('base64') }
    const error = configError(() => loadAuthConfig(undefined, { env }))
    assert.match(error.message, /^FEATURE_STORE_YAML_BASE64:2:3: auth\.type: unknown auth type "ldap"/)
  })

  test('a bare type: oidc is a valid client config', () => {
    const { auth } = loadAuthConfig({ auth: { type: 'oidc' } }, { role: 'client' })
    assert.equal(auth.type, 'oidc')
  })

  test('an empty auth section is an error, not a silent no_auth', () => {
    const error = configError(() => loadAuthConfig('project: demo\nauth:\n'))
    assert.match(error.message, /^2:1: auth: is empty: expected a mapping with a `type` field .*write `type: no_auth`/)
  })

  test('auth fields at the top level without an auth line are an error, not a silent no_auth', () => {
    const error = configError(() => loadAuthConfig('project: demo\ntype: oidc\nclient_id: feast\n'))
    assert.equal(error.message, '2:1: type: is a field of the `auth` section, written at the top level: indent it under `auth:` (there is no `auth:` line: without one the server would run unauthenticated)')
  })

  test('auth fields below an auth line but not indented under it are named, with the fix', () => {
    const error = configError(() => loadAuthConfig('project: demo\nauth:\ntype: oidc\nclient_id: feast\n'))
    assert.equal(error.message, '3:1: type: is a field of the `auth` section, written at the top level: indent it under `auth:`')
  })

  test('an auth field left at the top level beside a valid auth section is refused, not ignored', () => {
    const error = configError(() => loadAuthConfig(`${oidcServer}audience: feast\n`))
    assert.match(error.message, /^6:1: audience: is a field of the `auth` section, written at the top level: indent it under `auth:`$/)
  })

  test('a top-level auth field that starts like auth is named as a field to indent, not as a misspelt auth', () => {
    const error = configError(() => loadAuthConfig('project: demo\nauth_discovery_url: https://idp.example.com/.well-known/openid-configuration\n'))
    assert.match(error.message, /^2:1: auth_discovery_url: is a field of the `auth` section/)
  })

  for (const key of ['Auth', 'AUTH', 'authz', 'authentication', 'aut']) {
    test(`a top-level ${key} section instead of auth is rejected rather than ignored`, () => {
      const error = configError(() => loadAuthConfig(`project: demo\n${key}:\n  type: oidc\n`))
      assert.match(error.message, new RegExp(`^2:1: ${key}: unknown top-level key: did you mean \`auth\`?`))
    })
  }

  test("Feast's other top-level keys are left alone", () => {
    const { auth } = loadAuthConfig('project: demo\nprovider: local\nregistry: data/registry.db\nonline_store:\n  type: sqlite\nentity_key_serialization_version: 3\n')
    assert.deepEqual(auth, { type: 'no_auth' })
  })

  test('an explicit null reads as an unset field', () => {
    const { auth } = loadAuthConfig(oidcServer + '  audience: null\n')
    assert.equal('audience' in auth, false)
  })

  test("Feast's own optional fields load unchanged", () => {
    const { auth } = loadAuthConfig(oidcServer + '  ui_client_id: feast-ui\n  token_refresh_margin_seconds: 45\n')
    assert.equal(auth.type === 'oidc' && auth.token_refresh_margin_seconds, 45)
  })
})

describe('rejecting bad auth sections', () => {
  test('a missing type lists the valid types', () => {
    const error = configError(() => loadAuthConfig({ auth: { client_id: 'x' } }))
    assert.match(error.message, /auth: missing `type`: expected one of no_auth, oidc, kubernetes/)
  })

  test('an unknown type names the file, line, field and the valid types', () => {
    const path = writeYaml('unknown-type.yaml', 'project: demo\nauth:\n  type: saml\n')
    const error = configError(() => loadAuthConfig(path))
    assert.equal(error.message, `${path}:3:3: auth.type: unknown auth type "saml": expected one of no_auth, oidc, kubernetes`)
    assert.equal(error.field, 'auth.type')
    assert.equal(error.source, path)
  })

  test('an unknown key is rejected by name with the keys that are allowed', () => {
    const error = configError(() => loadAuthConfig(oidcServer + '  jwks_cache_lifespan: 10\n'))
    assert.match(error.message, /^6:3: auth\.jwks_cache_lifespan: unknown field for auth type oidc \(did you mean jwks_cache_lifespan_seconds\?\): expected one of client_id, auth_discovery_url/)
  })

  test('a field of another auth type is rejected', () => {
    const error = configError(() => loadAuthConfig({ auth: { type: 'kubernetes', client_id: 'feast' } }))
    assert.match(error.message, /auth\.client_id: unknown field for auth type kubernetes/)
  })

  test('no_auth takes no other field', () => {
    const error = configError(() => loadAuthConfig({ auth: { type: 'no_auth', verify_ssl: false } }))
    assert.match(error.message, /auth\.verify_ssl: unknown field for auth type no_auth: expected no other field/)
  })

  for (const [value, shown] of [[0, '0'], [-5, '-5'], ['300', '"300"'], [true, 'true'], [Number.POSITIVE_INFINITY, 'Infinity'], [Number.NaN, 'NaN']] as const) {
    test(`jwks_cache_lifespan_seconds of ${shown} is rejected as not a finite number > 0`, () => {
      const error = configError(() => loadAuthConfig({ auth: { type: 'oidc', client_id: 'c', auth_discovery_url: 'https://idp/', jwks_cache_lifespan_seconds: value } }))
      assert.equal(error.message, `auth.jwks_cache_lifespan_seconds: expected a finite number of seconds > 0, got ${shown}`)
    })
  }

  test('a YAML .inf duration is rejected with its line', () => {
    const error = configError(() => loadAuthConfig(oidcServer + '  jwks_request_timeout_seconds: .inf\n'))
    assert.match(error.message, /^6:3: auth\.jwks_request_timeout_seconds: expected a finite number of seconds > 0, got Infinity/)
  })

  test('verify_ssl must be a boolean, not the string "false"', () => {
    const error = configError(() => loadAuthConfig(oidcServer + '  verify_ssl: "false"\n'))
    assert.match(error.message, /auth\.verify_ssl: expected true or false, got "false"/)
  })

  test('the server form requires auth_discovery_url', () => {
    const error = configError(() => loadAuthConfig({ auth: { type: 'oidc', client_id: 'feast' } }))
    assert.match(error.message, /auth\.auth_discovery_url: is required for an OIDC server/)
  })

  test('the server form requires client_id', () => {
    const error = configError(() => loadAuthConfig({ auth: { type: 'oidc', auth_discovery_url: 'https://idp/' } }))
    assert.match(error.message, /auth\.client_id: is required for an OIDC server/)
  })

  for (const url of ['ftp://idp/.well-known/openid-configuration', 'not a url', 'file:///etc/passwd', '']) {
    test(`auth_discovery_url ${JSON.stringify(url)} is rejected as not an http(s) URL`, () => {
      const error = configError(() => loadAuthConfig({ auth: { type: 'oidc', client_id: 'c', auth_discovery_url: url } }))
      assert.match(error.message, /auth\.auth_discovery_url: expected an http\(s\) URL/)
    })
  }

  test('an empty client_id is rejected', () => {
    const error = configError(() => loadAuthConfig({ auth: { type: 'oidc', client_id: '  ', auth_discovery_url: 'https://idp/' } }))
    assert.match(error.message, /auth\.client_id: expected a non-empty string/)
  })

  test('the value of a secret field never appears in an error', () => {
    const error = configError(() => loadAuthConfig({ auth: { type: 'oidc', client_secret: 12345678 } }, { role: 'client' }))
    assert.match(error.message, /auth\.client_secret: expected a non-empty string, got a number \(value hidden\)/)
    assert.doesNotMatch(error.message, /12345678/)
  })

  test('audiences of the kubernetes type must be a list of strings', () => {
    const error = configError(() => loadAuthConfig({ auth: { type: 'kubernetes', audiences: 'feast' } }))
    assert.match(error.message, /auth\.audiences: expected a non-empty list of non-empty strings, got "feast"/)
  })

  test('the kubernetes settings of issue 13 load, and a wrong value names the line and field', () => {
    const { auth } = loadAuthConfig('auth:\n  type: kubernetes\n  token_path: /var/run/secrets/feast-authz/token\n  allow_ruleless_roles: true\n  accept_opaque_tokens: false\n  cluster_roles: [feast-viewer]\n  outage_grace_seconds: 120\n')
    assert.deepEqual(auth, { type: 'kubernetes', token_path: '/var/run/secrets/feast-authz/token', allow_ruleless_roles: true, accept_opaque_tokens: false, cluster_roles: ['feast-viewer'], outage_grace_seconds: 120, token_review_cache_ttl_seconds: 60 })
    assert.match(configError(() => loadAuthConfig('auth:\n  type: kubernetes\n  allow_ruleless_roles: "yes"\n')).message, /^3:3: auth\.allow_ruleless_roles: expected true or false, got "yes"/)
    assert.match(configError(() => loadAuthConfig('auth:\n  type: kubernetes\n  cluster_roles: view\n')).message, /^3:3: auth\.cluster_roles: expected a non-empty list/)
    assert.match(configError(() => loadAuthConfig('auth:\n  type: kubernetes\n  outage_grace_second: 5\n')).message, /^3:3: auth\.outage_grace_second: unknown field .*did you mean outage_grace_seconds/)
  })

  test('service_account_audiences of the oidc type must be a list of strings', () => {
    const error = configError(() => loadAuthConfig({ auth: { type: 'oidc', service_account_audiences: 'feast' } }, { role: 'client' }))
    assert.match(error.message, /auth\.service_account_audiences: expected a non-empty list of non-empty strings/)
  })

  describe('token_env_var', () => {
    const clientFile = (value: string): string => writeYaml('token-env-var.yaml', `project: demo\nauth:\n  type: oidc\n  token_env_var: ${value}\n`)
    const EXPECTED = 'expected the name of an environment variable (letters, digits and _, not starting with a digit)'

    for (const name of ['FEAST_TOKEN', 'my_token', '_T0KEN']) {
      test(`accepts ${name}, a name of letters, digits and _`, () => {
        assert.equal((loadAuthConfig(clientFile(name), { role: 'client' }).auth as { token_env_var?: string }).token_env_var, name)
      })
    }

    for (const [yaml, shown] of [['""', '""'], ['42', '42'], ['[A, B]', 'a list'], ['true', 'true']] as const) {
      test(`refuses ${yaml}, naming the file, line and field`, () => {
        const path = clientFile(yaml)
        const error = configError(() => loadAuthConfig(path, { role: 'client' }))
        assert.equal(error.message, `${path}:4:3: auth.token_env_var: ${EXPECTED}, got ${shown}`)
        assert.equal(error.field, 'auth.token_env_var')
      })
    }

    for (const [yaml, length, character] of [
      ['MY-TOKEN', 8, '3 is "-"'], ['"MY TOKEN"', 8, '3 is a space'], ['1TOKEN', 6, '1 is "1"'], ['"TOKEN\\n"', 6, '6 is a line break (U+000A)'], ['"TÖKEN"', 5, '2 is U+00D6']
    ] as const) {
      test(`refuses ${yaml}, which is no variable name, saying which character is wrong`, () => {
        const error = configError(() => loadAuthConfig(clientFile(yaml), { role: 'client' }))
        assert.match(error.message, /:4:3: auth\.token_env_var: /)
        assert.ok(error.message.endsWith(`: ${EXPECTED}, got a string of ${length} characters whose character ${character} (not shown: a token itself goes under \`token\`, not here)`), error.message)
      })
    }

    test('never shows a token written where its variable\'s name belongs', () => {
      const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbm4ifQ.SECRET-SIGNATURE'
      const error = configError(() => loadAuthConfig(clientFile(token), { role: 'client' }))
      assert.match(error.message, /got a string of 56 characters whose character 21 is "\." \(not shown: a token itself goes under `token`, not here\)$/)
      assert.ok(!error.message.includes('eyJ') && !error.message.includes('SECRET'), error.message)
    })

    // The shell's spelling, written in YAML on purpose; MY_TOKEN is not set, so the reference stays as written.
    for (const reference of ['$MY_TOKEN', '"${MY_TOKEN}"']) {
      test(`refuses ${reference}, a shell's reference to the variable, with the name to write instead`, () => {
        const error = configError(() => loadAuthConfig(clientFile(reference), { role: 'client', env: {} }))
        assert.match(error.message, /:4:3: auth\.token_env_var: expected the name of an environment variable, not a shell reference to it: write MY_TOKEN, without \$$/)
      })
    }
  })

  test('an auth section that is a list is rejected', () => {
    const error = configError(() => loadAuthConfig('auth:\n  - type: oidc\n'))
    assert.match(error.message, /auth: expected a mapping with a `type` field, got a list/)
  })
})

describe('reading the file', () => {
  test('a missing file is an error naming the file', () => {
    const path = join(dir, 'nope.yaml')
    const error = configError(() => loadAuthConfig(path))
    assert.equal(error.message, `${path}: cannot read the configuration: file not found`)
  })

  test('a directory instead of a file is an error', () => {
    const error = configError(() => loadAuthConfig(dir))
    assert.match(error.message, /is a directory, expected a file/)
  })

  test('invalid YAML gives the line and column', () => {
    const path = writeYaml('broken.yaml', 'project: demo\nauth:\n  type: oidc\n   client_id: [unclosed\n')
    const error = configError(() => loadAuthConfig(path))
    assert.match(error.message, new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: invalid YAML`))
  })

  test('an unquoted secret that YAML reads as an alias, a block scalar or an escape is refused without being shown', () => {
    const values = ['*do-not-print-me', '>do-not-print-me', '|do-not-print-me', '"\\xdo-not-print-me"']
    for (const text of values.map((value) => `auth:\n  type: oidc\n  client_secret: ${value}\n`)) {
      const error = configError(() => loadAuthConfig(text))
      assert.match(error.message, /invalid YAML: /)
      assert.doesNotMatch(error.message, /do-not|\\xdo/, text)
    }
  })

  test('an alias naming no anchor (an unquoted secret starting with *) is refused at its line and column, without its name', () => {
    const error = configError(() => loadAuthConfig({ yaml: 'project: demo\nauth:\n  type: oidc\n  client_secret: *do-not-print-me\n', source: 'client.yaml' }, { role: 'client' }))
    assert.equal(error.message, 'client.yaml:4:18: invalid YAML: unresolved alias (a value starting with * is an alias: put the value in quotes if it is not meant as one)')
  })

  test('an auth_discovery_url that is not an http(s) URL is shown without its userinfo and query', () => {
    const error = configError(() => loadAuthConfig('auth:\n  type: oidc\n  client_id: c\n  auth_discovery_url: htps://alice:do-not-print-me@idp.example/x?access_token=do-not-print-me\n'))
    assert.equal(error.message, '4:3: auth.auth_discovery_url: expected an http(s) URL, got "htps://idp.example/x"')
  })

  test('a duplicate key is rejected with its position', () => {
    const error = configError(() => loadAuthConfig('auth:\n  type: oidc\n  type: no_auth\n'))
    assert.match(error.message, /^3:3: invalid YAML: duplicate key/)
  })

  test('a top level that is not a mapping is rejected', () => {
    const error = configError(() => loadAuthConfig('- a\n- b\n'))
    assert.match(error.message, /expected a mapping at the top of the file, got a list/)
  })

  test('a list at the top (the permissions file given as the configuration) is refused saying where a list of permissions goes', () => {
    const error = configError(() => loadAuthConfig(writeYaml('permissions.yaml', '- name: readers\n  policy: {allow_all: true}\n')))
    assert.match(error.message, /permissions\.yaml: expected a mapping at the top of the file, got a list \(a list of permissions goes in the permissions file; feature_store\.yaml is a mapping of project, registry, auth\.\.\.\)$/)
  })

  test('an empty file is rejected as empty, not as a mapping of the wrong type', () => {
    const path = writeYaml('empty.yaml', '')
    const error = configError(() => loadAuthConfig(path))
    assert.match(error.message, /: the file is empty \(or holds only comments\): expected a mapping at the top of the file$/)
  })

  test('a file of comments only is rejected as empty', () => {
    const error = configError(() => loadAuthConfig('# project: demo\n# auth:\n#   type: oidc\n'))
    assert.match(error.message, /the file is empty \(or holds only comments\)/)
  })

  test('a top level that is a single string is rejected without showing it, since it may be a token', () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl'
    const error = configError(() => loadAuthConfig(writeYaml('token.txt', `${token}\n`)))
    assert.match(error.message, /expected a mapping at the top of the file, got a string$/)
    assert.doesNotMatch(error.message, /eyJ/)
  })

  test('a YAML alias bomb is rejected instead of expanded', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]']
    for (let i = 0; i < 8; i++) lines.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(', ')}]`)
    const error = configError(() => loadAuthConfig(lines.join('\n') + '\n'))
    assert.match(error.message, /invalid YAML: .*alias/i)
  })

  test('__proto__ in the auth section is an unknown field, not a prototype change', () => {
    const error = configError(() => loadAuthConfig('auth:\n  type: oidc\n  __proto__:\n    verify_ssl: false\n', { role: 'client' }))
    assert.match(error.message, /auth\.__proto__: unknown field/)
    assert.equal(({} as Record<string, unknown>).verify_ssl, undefined)
  })

  test('a file larger than 1 MiB is rejected before parsing', () => {
    const error = configError(() => loadAuthConfig(`project: demo\n# ${'x'.repeat(1024 * 1024)}\n`))
    assert.equal(error.message, 'the configuration is larger than 1048576 bytes')
  })

  test('with no source, no FEATURE_STORE_YAML_BASE64 and no ./feature_store.yaml, the error says what to do', () => {
    const cwd = process.cwd()
    process.chdir(dir)
    try {
      const error = configError(() => loadAuthConfig(undefined, { env: {} }))
      assert.match(error.message, /no configuration given: pass the `config` option, set FEATURE_STORE_YAML_BASE64, or put a feature_store\.yaml in/)
    } finally {
      process.chdir(cwd)
    }
  })
})

describe('suggestions for misspelt fields', () => {
  test('a near miss of a known field is suggested', () => {
    const error = configError(() => loadAuthConfig({ auth: { type: 'oidc', clientid: 'feast' } }, { role: 'client' }))
    assert.match(error.message, /auth\.clientid: unknown field for auth type oidc \(did you mean client_id\?\)/)
  })

  test('an unrelated field gets no suggestion', () => {
    const error = configError(() => loadAuthConfig({ auth: { type: 'oidc', realm: 'feast' } }, { role: 'client' }))
    assert.doesNotMatch(error.message, /did you mean/)
  })
})

describe('loadAuthConfig options', () => {
  test('a role other than server or client is an OptionError, not a config read the wrong way', () => {
    assert.throws(() => loadAuthConfig({ project: 'p', auth: { type: 'no_auth' } }, { role: 'Client' as never }), {
      name: 'OptionError',
      option: 'role',
      message: 'feast-authz: loadAuthConfig: role must be one of "server", "client", got "Client"'
    })
  })
})
