/**
 * Property-based tests: for arbitrary input, each parser returns a value or throws its own
 * typed error (AuthError, ConfigError, PermissionError) — never another exception, never a
 * hang, never an allow it should not give. Runs are bounded (numRuns) and each input has a
 * generous time bound that only a hang (catastrophic backtracking, alias expansion) can break.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
import { loadAuthConfig } from '../../src/config/auth-config.ts'
import { ConfigError } from '../../src/config/errors.ts'
import { bearerTokenOf } from '../../src/base/http/bearer.ts'
import { AuthError } from '../../src/base/errors.ts'
import { createOidcManager } from '../../src/managers/oidc/oidc-manager.ts'
import { looksLikeServiceAccountToken } from '../../src/managers/oidc/peek.ts'
import type { AuthManager } from '../../src/managers/types.ts'
import { silentLogger } from '../../src/base/logging.ts'
import { PermissionError } from '../../src/permissions/errors.ts'
import { parsePermissionsYaml } from '../../src/permissions/yaml.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { expectError } from '../helpers/errors.ts'

/** A hang detector, not a performance target: any parse of these small inputs takes milliseconds. */
const MAX_MS_PER_INPUT = 2000
const RUNS = 400

function timed<T> (fn: () => T): T {
  const start = performance.now()
  try {
    return fn()
  } finally {
    const elapsed = performance.now() - start
    assert.ok(elapsed < MAX_MS_PER_INPUT, `one input took ${Math.round(elapsed)} ms`)
  }
}

/** Runs `fn`; a thrown error must be an instance of `errorClass`. Returns the value, or undefined when it threw. */
function valueOrTyped<T> (errorClass: new (...args: never[]) => Error, fn: () => T): T | undefined {
  try {
    return timed(fn)
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error
    assert.ok(error instanceof errorClass, `expected a ${errorClass.name}, got ${String(error)}`)
    return undefined
  }
}

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/
const token68 = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,60}=*$/)
const spaces = fc.integer({ min: 1, max: 4 }).map((n) => ' '.repeat(n))
/** Header values that are near misses of a valid one, plus arbitrary text. */
const headerValue = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.tuple(fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Bearer:', 'Bearer\t', 'Bearerx', ''), fc.constantFrom('', ' ', '  ', '\t'), fc.string({ maxLength: 60 }), fc.constantFrom('', ' ', '=', ' x'))
    .map(([scheme, space, token, tail]) => `${scheme}${space}${token}${tail}`),
  fc.tuple(spaces, token68, spaces).map(([a, t, b]) => `Bearer${a}${t}${b}`)
)
const rawHeaders = fc.option(fc.array(fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION', 'Host', 'x', 'Authorizatio', 'Authorization '), { maxLength: 4 })
  .map((names) => names.flatMap((name) => [name, 'v'])), { nil: undefined })

/** bearerTokenOf with its returned refusal thrown, for the properties written against throws. */
function readBearerToken (...args: Parameters<typeof bearerTokenOf>): string {
  const outcome = bearerTokenOf(...args)
  if (outcome instanceof AuthError) throw outcome
  return outcome
}

describe('the bearer-header parser, for arbitrary headers', () => {
  test('returns a token68 within the length limit, or an AuthError with status 401', () => {
    const headers = fc.oneof(headerValue, fc.constant(undefined), fc.array(headerValue, { maxLength: 3 }))
    fc.assert(fc.property(headers, rawHeaders, fc.integer({ min: 1, max: 100 }), (header, raw, max) => {
      const token = valueOrTyped(AuthError, () => readBearerToken(header, raw, max))
      if (token === undefined) return
      assert.equal(typeof header, 'string')
      assert.match(token, TOKEN68)
      assert.ok(token.length <= max)
      assert.match((header as string).slice(0, 6), /^bearer$/i)
      assert.equal((header as string).slice(6).trim(), token)
    }), { numRuns: RUNS })
  })

  test('never throws: every refusal is a returned 401 AuthError with a stable header or token code', () => {
    fc.assert(fc.property(fc.oneof(headerValue, fc.constant(undefined)), rawHeaders, (header, raw) => {
      const outcome = bearerTokenOf(header, raw)
      if (typeof outcome === 'string') return
      assert.ok(outcome instanceof AuthError)
      assert.equal(outcome.status, 401)
      assert.ok(['missing_token', 'malformed_header', 'token_too_long'].includes(outcome.code), outcome.code)
    }), { numRuns: RUNS })
  })

  test('reads back exactly the token of any well-formed header, whatever the scheme case and spacing', () => {
    fc.assert(fc.property(fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR'), spaces, token68, fc.constantFrom('', ' ', '   '), (scheme, before, token, afterSpaces) => {
      assert.equal(readBearerToken(`${scheme}${before}${token}${afterSpaces}`, ['Authorization', 'x']), token)
    }), { numRuns: RUNS })
  })

  test('refuses any request whose raw headers hold more than one Authorization', () => {
    fc.assert(fc.property(token68, fc.array(fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION'), { minLength: 2, maxLength: 4 }), (token, names) => {
      expectError(() => readBearerToken(`Bearer ${token}`, names.flatMap((name) => [name, `Bearer ${token}`])), { type: AuthError, code: 'malformed_header' })
    }), { numRuns: 100 })
  })
})

const segment = (value: fc.Arbitrary<unknown>): fc.Arbitrary<string> => value.map((v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v) ?? '').toString('base64url'))

describe('the kubernetes.io routing peek, for arbitrary tokens', () => {
  test('never throws and answers a boolean', () => {
    fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), fc.tuple(fc.string(), fc.string(), fc.string()).map((parts) => parts.join('.'))), (token) => {
      assert.equal(typeof timed(() => looksLikeServiceAccountToken(token)), 'boolean')
    }), { numRuns: RUNS })
  })

  test('says yes only for three segments whose payload has an own kubernetes.io object', () => {
    const payload = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('kubernetes.io', '__proto__', 'constructor')), fc.jsonValue()),
      fc.jsonValue().map((value) => ({ 'kubernetes.io': value })),
      fc.constant('{"__proto__":{"kubernetes.io":{"namespace":"x"}}}')
    )
    fc.assert(fc.property(segment(fc.jsonValue()), segment(payload), fc.string({ maxLength: 20 }), (header, body, signature) => {
      const token = `${header}.${body}.${signature}`
      const answer = timed(() => looksLikeServiceAccountToken(token))
      if (!answer) return
      assert.equal(signature.includes('.'), false)
      const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>
      assert.ok(Object.hasOwn(parsed, 'kubernetes.io'))
      const claim = parsed['kubernetes.io']
      assert.ok(typeof claim === 'object' && claim !== null && !Array.isArray(claim))
    }), { numRuns: RUNS })
  })
})

const FIELD_NAMES = ['type', 'client_id', 'auth_discovery_url', 'verify_ssl', 'ca_cert_path', 'audience', 'issuer', 'jwks_cache_lifespan_seconds',
  'jwks_request_timeout_seconds', 'token', 'token_env_var', 'client_secret', 'username', 'password', 'token_refresh_margin_seconds',
  'user_token', 'audiences', 'namespace', 'token_review_cache_ttl_seconds', '__proto__', 'constructor', 'prototype', 'toString']
const fieldValue = fc.oneof(
  fc.constantFrom('oidc', 'kubernetes', 'no_auth', 'OIDC', '', ' ', 'https://idp.example/.well-known/openid-configuration', 'http://127.0.0.1:1/x', 'file:///etc/passwd', 'javascript:alert(1)'),
  fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 20 }),
  fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }), fc.anything({ maxDepth: 2 })
)
const authSection = fc.dictionary(fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 12 })), fieldValue, { maxKeys: 6 })
const POSITIVE_FIELDS = ['jwks_cache_lifespan_seconds', 'jwks_request_timeout_seconds', 'token_refresh_margin_seconds', 'token_review_cache_ttl_seconds']

/** The invariants of any config the loader accepts. */
function checkAccepted (input: Record<string, unknown>, auth: Record<string, unknown>): void {
  const section = Object.hasOwn(input, 'auth') ? input.auth : undefined
  // Never an allow: a present auth section of another type can never come out as no_auth.
  if (auth.type === 'no_auth') {
    assert.ok(section === undefined || section === null || (section as Record<string, unknown>).type === 'no_auth', 'an auth section became no_auth')
  } else {
    assert.equal(auth.type, (section as Record<string, unknown>).type)
  }
  for (const field of POSITIVE_FIELDS) {
    if (Object.hasOwn(auth, field)) assert.ok(typeof auth[field] === 'number' && Number.isFinite(auth[field]) && (auth[field] as number) > 0, `${field} = ${String(auth[field])}`)
  }
  if (Object.hasOwn(auth, 'verify_ssl')) assert.equal(typeof auth.verify_ssl, 'boolean')
  assert.equal(Object.getPrototypeOf(auth), Object.prototype)
  assert.equal(({} as Record<string, unknown>).type, undefined, 'Object.prototype was polluted')
}

describe('the config loader, for arbitrary objects and YAML text', () => {
  test('an arbitrary object loads to a checked config or throws a ConfigError', () => {
    fc.assert(fc.property(fc.oneof(fc.anything({ maxDepth: 3 }), fc.record({ project: fc.string(), auth: fc.oneof(authSection, fc.anything({ maxDepth: 2 })) })), fc.constantFrom('server', 'client') as fc.Arbitrary<'server' | 'client'>, (input, role) => {
      // Strings are paths and YAML text: covered by the YAML property below.
      if (typeof input === 'string' || input === undefined) return
      const loaded = valueOrTyped(ConfigError, () => loadAuthConfig(input as Record<string, unknown>, { role, env: {} }))
      if (loaded !== undefined) checkAccepted(input as Record<string, unknown>, loaded.auth as unknown as Record<string, unknown>)
    }), { numRuns: RUNS })
  })

  test('an auth section built from real field names loads only with every value valid', () => {
    fc.assert(fc.property(authSection, (section) => {
      const loaded = valueOrTyped(ConfigError, () => loadAuthConfig({ auth: section }, { role: 'client', env: {} }))
      if (loaded !== undefined) checkAccepted({ auth: section }, loaded.auth as unknown as Record<string, unknown>)
    }), { numRuns: RUNS })
  })

  const yamlPiece = fc.oneof(
    fc.constantFrom('auth:', 'auth: &a', '  type: oidc', '  type: kubernetes', '  type: no_auth', '  client_id: c', '  auth_discovery_url: https://idp/x',
      '  jwks_cache_lifespan_seconds: .nan', '  jwks_request_timeout_seconds: -.inf', '  verify_ssl: no', '  __proto__: {verify_ssl: false}',
      '  <<: *a', 'b: &b [*a, *a, *a]', 'c: [*b, *b, *b, *b]', 'x: !!binary aGVsbG8=', 'y: !!js/function "() => 1"', 'z: !!timestamp 2001-12-14',
      '{', '[', '- ', '? complex', ': value', '---', '...', '%YAML 1.2', '"unterminated', "'", '\t', 'k: |', '  block', 'k: >-', 'anchor: &x y', 'ref: *x', 'ref: *missing'),
    fc.string({ maxLength: 30 })
  )
  test('arbitrary YAML text loads to a checked config or throws a ConfigError', () => {
    fc.assert(fc.property(fc.array(yamlPiece, { maxLength: 12 }), fc.constantFrom('server', 'client') as fc.Arbitrary<'server' | 'client'>, (lines, role) => {
      const text = `${lines.join('\n')}\n`
      const loaded = valueOrTyped(ConfigError, () => loadAuthConfig({ yaml: text }, { role, env: {} }))
      if (loaded !== undefined) checkAccepted(loaded.file.data as Record<string, unknown>, loaded.auth as unknown as Record<string, unknown>)
    }), { numRuns: RUNS })
  })
})

describe('the permissions-file loader, for arbitrary YAML text', () => {
  const piece = fc.oneof(
    fc.constantFrom('- name: p', '  types: [FeatureView]', '  name_patterns: [".*"]', '  name_patterns: ["(a+)+$"]', '  actions: [READ]', '  actions: [ALL]',
      '  policy:', '    role_based_policy: {roles: [reader]}', '    group_based_policy: {groups: []}', '    allow_all: true', '    allow_all: "true"',
      '  required_tags: {team: a}', '  required_tags: {__proto__: x}', '  __proto__: {policy: {allow_all: true}}', '- &a {name: q, policy: {allow_all: false}}', '- *a',
      '[]', '{}', '- ', '- null', '-', '  tags: !!binary aGk=', '"', '[', '  - [[[[', '---'),
    fc.string({ maxLength: 30 })
  )
  test('loads permissions or throws a PermissionError, and grants allow_all only when the text says so', () => {
    fc.assert(fc.property(fc.array(piece, { maxLength: 12 }), (lines) => {
      const text = `${lines.join('\n')}\n`
      const permissions = valueOrTyped(PermissionError, () => parsePermissionsYaml(text, 'fuzz.yaml'))
      if (permissions === undefined) return
      assert.ok(Array.isArray(permissions))
      for (const permission of permissions) {
        if (permission.policy.kind === 'allow_all') {
          assert.match(text, /allow_all:\s*true/, 'an allow-all permission came out of a file that grants none')
        }
      }
      assert.equal(({} as Record<string, unknown>).policy, undefined, 'Object.prototype was polluted')
    }), { numRuns: RUNS })
  })
})

describe('the OIDC manager, for arbitrary and mutated tokens', () => {
  let provider: TestProvider
  let manager: AuthManager
  let valid: string
  before(async () => {
    // The provider is started here, not by the OIDC-app fixture: managers on their own, no server.
    provider = await startOidcProvider()
    manager = createOidcManager({
      type: 'oidc',
      client_id: provider.clientId,
      auth_discovery_url: provider.discoveryUrl,
      verify_ssl: true,
      jwks_cache_lifespan_seconds: 300,
      jwks_request_timeout_seconds: 5,
      token_refresh_margin_seconds: 30
    }, { logger: silentLogger, unknownKidCooldownSeconds: 60 })
    valid = await provider.issue({ preferred_username: 'alice' })
    assert.equal((await manager.authenticate(valid)).username, 'alice')
  })
  after(async () => {
    await manager?.close()
    await provider?.close()
  })

  const rejects401 = async (token: string): Promise<void> => {
    await expectError(async () => await manager.authenticate(token), { type: AuthError, status: 401 })
  }

  test('an arbitrary token-shaped string is always a 401 AuthError', async () => {
    await fc.assert(fc.asyncProperty(fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._~+/=-]{0,300}$/),
      fc.tuple(segment(fc.jsonValue()), segment(fc.jsonValue()), fc.stringMatching(/^[A-Za-z0-9_-]{0,64}$/)).map((parts) => parts.join('.')),
      fc.tuple(segment(fc.record({ alg: fc.constantFrom('RS256', 'none', 'HS256', 'ES256', 'PS256', 'EdDSA'), kid: fc.string() }, { requiredKeys: [] })), segment(fc.jsonValue())).map(([h, p]) => `${h}.${p}.`)
    ), async (token) => { await rejects401(token) }), { numRuns: 300 })
  })

  test('a valid token changed in one character is refused unless every segment still decodes to the same bytes', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const decode = (token: string): string[] => token.split('.').map((part) => Buffer.from(part, 'base64url').toString('hex'))
    await fc.assert(fc.asyncProperty(fc.nat({ max: valid.length - 1 }), fc.constantFrom(...alphabet.split('')), async (position, char) => {
      const changed = `${valid.slice(0, position)}${char}${valid.slice(position + 1)}`
      if (changed === valid || valid[position] === '.') return
      try {
        await manager.authenticate(changed)
      } catch (error) {
        assert.ok(error instanceof AuthError && error.status === 401, String(error))
        return
      }
      assert.deepEqual(decode(changed), decode(valid), 'a token with different content was accepted')
    }), { numRuns: 300 })
  })
})
