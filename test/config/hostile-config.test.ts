/**
 * Config hardening beyond test/config/auth-config.test.ts: every hostile or nonsensical
 * `feature_store.yaml` (and permissions file) is refused at startup with a ConfigError /
 * PermissionError that says where and why — never another exception, never a silent default.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { inspect } from 'node:util'
import { loadAuthConfig, MAX_DURATION_SECONDS } from '../../src/config/auth-config.ts'
import { ConfigError } from '../../src/config/errors.ts'
import { PermissionError } from '../../src/permissions/errors.ts'
import { loadPermissionsFile, parsePermissionsYaml } from '../../src/permissions/yaml.ts'
import { thrownBy } from '../helpers/errors.ts'
import { namedPipe } from '../helpers/named-pipe.ts'

const dir = mkdtempSync(join(tmpdir(), 'feast-authz-hardening-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

const oidcServer = 'project: demo\nauth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: https://idp.example/.well-known/openid-configuration\n'

const configError = (fn: () => unknown): ConfigError => thrownBy(fn, ConfigError)

const permissionError = (fn: () => unknown): PermissionError => thrownBy(fn, PermissionError)

describe('durations', () => {
  const fields = {
    oidc: ['jwks_cache_lifespan_seconds', 'jwks_request_timeout_seconds', 'token_refresh_margin_seconds'],
    kubernetes: ['token_review_cache_ttl_seconds']
  } as const
  const section = (type: 'oidc' | 'kubernetes', field: string, value: string): string =>
    type === 'oidc' ? `${oidcServer}  ${field}: ${value}\n` : `project: demo\nauth:\n  type: kubernetes\n  ${field}: ${value}\n`

  for (const [type, names] of Object.entries(fields) as Array<['oidc' | 'kubernetes', readonly string[]]>) {
    for (const field of names) {
      for (const [yaml, shown] of [['.nan', 'NaN'], ['-.inf', '-Infinity'], ['-1', '-1'], ['-0.0', '0'], ['1e-400', '0'], ['"10"', '"10"'], ['[10]', 'a list'], ['{seconds: 10}', 'a mapping'], ['true', 'true']] as const) {
        test(`${type} ${field}: ${yaml} is rejected as not a finite number of seconds > 0`, () => {
          const error = configError(() => loadAuthConfig(section(type, field, yaml)))
          assert.match(error.message, new RegExp(`^\\d+:3: auth\\.${field}: expected a finite number of seconds > 0, got ${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`))
        })
      }
      test(`${type} ${field}: a duration longer than Node's longest timer is rejected (it would fire at once)`, () => {
        const error = configError(() => loadAuthConfig(section(type, field, String(MAX_DURATION_SECONDS + 1))))
        assert.match(error.message, new RegExp(`auth\\.${field}: expected at most ${MAX_DURATION_SECONDS} seconds .*got ${MAX_DURATION_SECONDS + 1}$`))
      })
      test(`${type} ${field}: the longest timer Node can set is accepted`, () => {
        const { auth } = loadAuthConfig(section(type, field, String(MAX_DURATION_SECONDS)))
        assert.equal((auth as unknown as Record<string, unknown>)[field], MAX_DURATION_SECONDS)
      })
    }
  }

  test('the largest accepted duration still fits a timer that waits (it does not fire after 1 ms)', async () => {
    const signal = AbortSignal.timeout(MAX_DURATION_SECONDS * 1000)
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(signal.aborted, false)
  })
})

describe('values of the wrong type', () => {
  for (const [field, yaml, expected] of [
    ['verify_ssl', 'no', 'expected true or false, got "no"'],
    ['verify_ssl', 'off', 'expected true or false, got "off"'],
    ['verify_ssl', '0', 'expected true or false, got 0'],
    ['audience', '[feast, other]', 'expected a non-empty string, got a list'],
    ['issuer', '{url: x}', 'expected a non-empty string, got a mapping'],
    ['client_id', '!!binary ZmVhc3Q=', 'expected a non-empty string, got a mapping'],
    ['client_secret', '12345', 'expected a non-empty string, got a number (value hidden)'],
    ['auth_discovery_url', 'javascript:alert(1)', 'expected an http(s) URL, got "javascript:alert(1)"'],
    ['auth_discovery_url', 'http://', 'expected an http(s) URL, got "http://"']
  ] as const) {
    test(`${field}: ${yaml} is rejected: ${expected}`, () => {
      const text = field === 'client_id' || field === 'auth_discovery_url'
        ? oidcServer.replace(new RegExp(`  ${field}: .*\\n`), `  ${field}: ${yaml}\n`)
        : `${oidcServer}  ${field}: ${yaml}\n`
      const error = configError(() => loadAuthConfig(text))
      assert.match(error.message, new RegExp(`auth\\.${field}: ${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`))
    })
  }

  test('YAML 1.1 "no" is not read as false: verify_ssl cannot be switched off by accident', () => {
    const error = configError(() => loadAuthConfig(`${oidcServer}  verify_ssl: NO\n`))
    assert.match(error.message, /auth\.verify_ssl: expected true or false/)
  })

  test('an auth section that is a bare string is rejected', () => {
    const error = configError(() => loadAuthConfig('auth: oidc\n'))
    assert.match(error.message, /^1:1: auth: expected a mapping with a `type` field, got "oidc"$/)
  })

  test('a type given as a list is rejected', () => {
    const error = configError(() => loadAuthConfig('auth:\n  type: [oidc]\n'))
    assert.match(error.message, /auth\.type: unknown auth type a list/)
  })

  test('a null configuration object is a ConfigError, not a TypeError', () => {
    const error = configError(() => loadAuthConfig(null as unknown as Record<string, unknown>))
    assert.equal(error.message, 'expected a path, YAML text or an object for a feature_store.yaml, got null')
  })
})

describe('prototype-pollution keys', () => {
  test('constructor in the auth section is an unknown field', () => {
    const error = configError(() => loadAuthConfig(`${oidcServer}  constructor: {prototype: {verify_ssl: false}}\n`))
    assert.match(error.message, /auth\.constructor: unknown field/)
  })

  test('__proto__ at the top level changes no prototype and gives no auth section', () => {
    const { auth, file } = loadAuthConfig('__proto__:\n  auth:\n    type: oidc\n')
    assert.deepEqual(auth, { type: 'no_auth' })
    assert.equal(Object.getPrototypeOf(file.data), Object.prototype)
    assert.equal(({} as Record<string, unknown>).auth, undefined)
  })

  test('an object whose auth comes only from its prototype is read as having no auth section', () => {
    const input = Object.create({ auth: { type: 'no_auth', verify_ssl: false } }) as Record<string, unknown>
    const { auth } = loadAuthConfig(input)
    assert.deepEqual(auth, { type: 'no_auth' })
  })

  test('an inherited type is not a type', () => {
    const section = Object.create({ type: 'no_auth' }) as Record<string, unknown>
    const error = configError(() => loadAuthConfig({ auth: section }))
    assert.match(error.message, /auth: missing `type`/)
  })

  test('a YAML merge key (<<) does not smuggle fields into the auth section', () => {
    const error = configError(() => loadAuthConfig('base: &b {type: oidc, client_id: c}\nauth:\n  <<: *b\n  auth_discovery_url: https://idp/x\n'))
    assert.match(error.message, /auth: missing `type`/)
  })

  test('__proto__ inside a permission is an unknown field and grants nothing', () => {
    const error = permissionError(() => parsePermissionsYaml('- name: p\n  __proto__: {policy: {allow_all: true}}\n  policy: {role_based_policy: {roles: [r]}}\n'))
    assert.match(error.message, /__proto__: unknown field/)
    assert.equal(({} as Record<string, unknown>).policy, undefined)
  })
})

describe('enormous and hostile files', () => {
  test('a feature_store.yaml on disk larger than 1 MiB is refused before it is read, naming the file', () => {
    const path = join(dir, 'huge.yaml')
    writeFileSync(path, `project: demo\n#${'x'.repeat(1024 * 1024)}\n`)
    const error = configError(() => loadAuthConfig(path))
    assert.match(error.message, new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: file is \\d+ bytes, larger than the 1048576 bytes`))
  })

  test('a feature_store.yaml path naming a named pipe is refused, naming the file, instead of waiting for a writer', () => {
    const pipe = namedPipe(dir, 'feature_store.yaml')
    try {
      const error = configError(() => loadAuthConfig(pipe.path))
      assert.equal(error.message, `${pipe.path}: cannot read the configuration: is a named pipe (FIFO), expected a file`)
    } finally {
      pipe.close()
    }
  })

  test('a FEATURE_STORE_YAML_BASE64 that decodes to more than 1 MiB is refused before decoding', () => {
    const encoded = Buffer.from(`project: demo\n#${'x'.repeat(1024 * 1024)}\n`).toString('base64')
    const error = configError(() => loadAuthConfig(undefined, { env: { FEATURE_STORE_YAML_BASE64: encoded } }))
    assert.match(error.message, /^FEATURE_STORE_YAML_BASE64: is larger than 1048576 bytes once decoded$/)
  })

  test('a permissions file larger than 1 MiB is refused', () => {
    const path = join(dir, 'huge-permissions.yaml')
    writeFileSync(path, `[]\n#${'x'.repeat(1024 * 1024)}\n`)
    const error = permissionError(() => loadPermissionsFile(path))
    assert.match(error.message, /larger than the 1048576 bytes/)
  })

  test('an alias bomb built of mappings is refused', () => {
    const refs = (name: string, n: number): string => Array.from({ length: n }, (_, i) => `${name}${i}: *${name}`).join(', ')
    const text = `a: &a {x: 1, y: 2}\nb: &b {${refs('a', 10)}}\nc: &c {${refs('b', 10)}}\nd: [${Array(50).fill('*c').join(', ')}]\n`
    const error = configError(() => loadAuthConfig(text))
    assert.match(error.message, /invalid YAML: .*alias/i)
  })

  test('an alias bomb in a permissions file is refused', () => {
    const lines = ['- &a {name: a, policy: {allow_all: true}, tags: {k: v}}']
    let previous = 'a'
    for (let i = 0; i < 6; i++) {
      const name = `n${i}`
      lines.push(`- &${name} {name: ${name}, policy: {allow_all: true}, tags: {${Array.from({ length: 10 }, (_, j) => `k${j}: *${previous}`).join(', ')}}}`)
      previous = name
    }
    const error = permissionError(() => parsePermissionsYaml(lines.join('\n')))
    assert.match(error.message, /alias|expected a string|tags/i)
  })

  test('deeply nested flow collections are refused with a ConfigError, not a stack overflow', () => {
    const depth = 100_000
    const error = configError(() => loadAuthConfig(`x: ${'['.repeat(depth)}${']'.repeat(depth)}\n`))
    assert.match(error.message, /invalid YAML/)
  })

  test('deeply nested flow collections in a permissions file are refused with a PermissionError', () => {
    const error = permissionError(() => parsePermissionsYaml(`- ${'['.repeat(100_000)}`))
    assert.match(error.message, /invalid YAML/)
  })

  test('several YAML documents in one file are refused (a second auth section cannot hide behind ---)', () => {
    const error = configError(() => loadAuthConfig(`${oidcServer}---\nauth:\n  type: no_auth\n`))
    assert.match(error.message, /invalid YAML: .*multiple documents/)
  })

  test('a file starting with a byte-order mark loads normally', () => {
    const { auth } = loadAuthConfig(`\ufeff${oidcServer}`)
    assert.equal(auth.type, 'oidc')
  })
})

describe('a token given where a file\'s path goes', () => {
  // A service-account token is some 900 characters: as a path, too long a name (ENAMETOOLONG),
  // and Node's error for it repeats it in its message and its `path`, which a logger printing causes shows.
  const pasted = `eyJhbGciOiJSUzI1NiJ9.${'ZG8tbm90LXByaW50LW1l'.repeat(40)}`
  const shownNowhere = (error: Error): void => {
    const everything = inspect(error, { depth: 10 })
    assert.ok(!everything.includes('ZG8tbm90LXByaW50LW1l'), everything)
  }

  test('is in neither the error nor its cause for feature_store.yaml, whose cause keeps the code', () => {
    const error = configError(() => loadAuthConfig(pasted))
    shownNowhere(error)
    assert.equal((error.cause as NodeJS.ErrnoException).code, 'ENAMETOOLONG')
  })

  test('is in neither the error nor its cause for a permissions file', () => {
    shownNowhere(permissionError(() => loadPermissionsFile(pasted)))
  })
})
