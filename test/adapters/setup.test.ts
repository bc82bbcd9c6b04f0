/**
 * `setUpAuthz` opens the Feast registry only for the adapters (`openRegistry: true`), never for
 * tools that only authenticate, and never when permissions are given.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { inspect } from 'node:util'
import { setUpAuthz } from '../../src/adapters/setup.ts'
import { silentLogger } from '../../src/base/logging.ts'
import { ConfigError } from '../../src/config/errors.ts'
import { expectError, thrownBy } from '../helpers/errors.ts'
import { captureLogs } from '../helpers/logs.ts'
import { namedPipe } from '../helpers/named-pipe.ts'
import { storeDir, TWO_PROJECTS } from '../helpers/registry-wiring.ts'

const store = storeDir({ type: 'no_auth' })
after(() => { store.cleanup() })

describe('setUpAuthz and the registry', () => {
  test('with openRegistry and no permissions, the registry becomes the permission source', async () => {
    const setup = setUpAuthz({ config: store.config }, silentLogger, { openRegistry: true })
    try {
      assert.equal(setup.registry?.path, store.registry)
      assert.equal(setup.permissions, setup.registry)
    } finally {
      setup.close()
      await setup.manager.close()
    }
  })

  test('given permissions, the registry is not opened', async () => {
    const setup = setUpAuthz({ config: store.config, permissions: [] }, silentLogger, { openRegistry: true })
    assert.equal(setup.registry, undefined)
    assert.deepEqual(setup.permissions, [])
    await setup.manager.close()
  })

  test('without openRegistry (inspect, check), an unsupported registry type is not an error: the registry is not read', async () => {
    const sql = storeDir({ type: 'no_auth' }, TWO_PROJECTS, { registry_type: 'sql', path: 'postgresql://db/feast' })
    try {
      const setup = setUpAuthz({ config: sql.config }, silentLogger)
      assert.equal(setup.registry, undefined)
      await setup.manager.close()
    } finally {
      sql.cleanup()
    }
  })
})

describe('setUpAuthz and the store\'s project', () => {
  test('reads the project feature_store.yaml names, for the permissions\' warnings and the CLI', async () => {
    const setup = setUpAuthz({ config: { project: 'credit_scoring', auth: { type: 'no_auth' } } }, silentLogger)
    assert.equal(setup.project, 'credit_scoring')
    await setup.manager.close()
  })

  test('a project name Feast would refuse stops setup at its line, before the registry is opened', () => {
    const dir = mkdtempSync(join(tmpdir(), 'feast-authz-setup-'))
    try {
      const config = join(dir, 'feature_store.yaml')
      // The registry named does not exist: opening it would be a different error.
      writeFileSync(config, 'registry: missing.db\nproject: credit scoring\nauth:\n  type: no_auth\n')
      expectError(() => setUpAuthz({ config }, silentLogger, { openRegistry: true }), {
        type: ConfigError,
        field: 'project',
        source: config,
        message: `${config}:2:1: project: expected a project name as Feast takes it (letters, digits, _ and -, not starting with _ or -), got "credit scoring"`
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('setUpAuthz logs', () => {
  test('permissions given beside a SQL registry: the notice names the registry without its database password', async () => {
    const sql = storeDir({ type: 'no_auth' }, TWO_PROJECTS, { registry_type: 'sql', path: 'postgresql://feast:do-not-print-me@db:5432/feast?sslpassword=do-not-print-me' })
    const logs = captureLogs()
    try {
      const setup = setUpAuthz({ config: sql.config, permissions: [] }, logs.logger, { openRegistry: true })
      await setup.manager.close()
      const notice = logs.lines.find((line) => line.msg.includes('permissions given explicitly'))
      assert.equal(notice?.registry, 'postgresql://db:5432/feast (registry_type sql)')
      assert.doesNotMatch(logs.raw.join('\n'), /do-not-print-me/)
    } finally {
      sql.cleanup()
    }
  })
})

describe('setUpAuthz and the environment variables feature_store.yaml names', () => {
  test('a reference to a variable that is not set is warned of by file, line and column, never by the name, which may be part of a secret', async () => {
    const logs = captureLogs()
    const setup = setUpAuthz({ config: { yaml: 'project: demo\nauth:\n  type: no_auth\nonline_store:\n  password: pa$sDoNotPrintMe\n', source: 'feature_store.yaml' } }, logs.logger)
    await setup.manager.close()
    const warnings = logs.lines.filter((line) => line.msg.includes('environment variable that is not set'))
    assert.deepEqual(warnings.map(({ source, line, column }) => ({ source, line, column })), [{ source: 'feature_store.yaml', line: 5, column: 15 }])
    assert.doesNotMatch(logs.raw.join('\n'), /DoNotPrintMe/)
  })
})

describe('setUpAuthz options', () => {
  test('a bad option is refused with its name before the config is read or a registry opened', () => {
    assert.throws(() => setUpAuthz({ config: store.config, oidc: { failureBackoffSeconds: Number.POSITIVE_INFINITY } }, silentLogger, { openRegistry: true }), {
      name: 'OptionError',
      option: 'oidc.failureBackoffSeconds',
      message: 'feast-authz: oidc.failureBackoffSeconds must be a number of seconds from 0 to 3600, got Infinity'
    })
  })

  test('permissions of the wrong kind are refused naming every form accepted', () => {
    assert.throws(() => setUpAuthz({ config: store.config, permissions: 42 as never }, silentLogger), {
      name: 'OptionError',
      option: 'permissions',
      message: 'feast-authz: permissions must be a list of permissions, or the path of a permissions YAML file, or a source with permissionsFor(project), got 42'
    })
  })
})

describe('configuration errors found while building the manager', () => {
  test('a ca_cert_path naming a missing file stops startup with an error naming the file, line and field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'feast-authz-setup-'))
    try {
      const config = join(dir, 'feature_store.yaml')
      writeFileSync(config, 'project: demo\nauth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: https://idp.example.com/.well-known/openid-configuration\n  ca_cert_path: /nonexistent/ca.pem\n')
      expectError(() => setUpAuthz({ config }, silentLogger), {
        type: ConfigError,
        field: 'auth.ca_cert_path',
        source: config,
        message: `${config}:6:3: auth.ca_cert_path: cannot read the CA bundle "/nonexistent/ca.pem": file not found`
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a ca_cert_path shaped like a token stops startup without showing it, in the message or the cause', () => {
    const pasted = `eyJhbGciOiJSUzI1NiJ9.${'ZG8tbm90LXByaW50LW1l'.repeat(40)}`
    const config = { project: 'demo', auth: { type: 'oidc', client_id: 'feast', auth_discovery_url: 'https://idp.example.com/.well-known/openid-configuration', ca_cert_path: pasted } }
    const error = thrownBy(() => setUpAuthz({ config }, silentLogger), ConfigError)
    assert.equal(error.field, 'auth.ca_cert_path')
    assert.match(error.message, /cannot read the CA bundle <a path of 821 characters, not shown: it may be a token>: the name is too long for a file$/)
    assert.ok(!inspect(error, { depth: 10 }).includes('ZG8tbm90LXByaW50LW1l'), inspect(error, { depth: 10 }))
  })

  test('a ca_cert_path naming a named pipe stops startup, naming it, instead of waiting for a writer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'feast-authz-setup-'))
    const pipe = namedPipe(dir, 'ca.pem')
    try {
      const config = join(dir, 'feature_store.yaml')
      writeFileSync(config, `project: demo\nauth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: https://idp.example.com/.well-known/openid-configuration\n  ca_cert_path: ${pipe.path}\n`)
      expectError(() => setUpAuthz({ config }, silentLogger), {
        type: ConfigError,
        message: `${config}:6:3: auth.ca_cert_path: cannot read the CA bundle ${JSON.stringify(pipe.path)}: is a named pipe (FIFO), expected a file`
      })
    } finally {
      pipe.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
