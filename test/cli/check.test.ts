import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { run as check } from '../../src/cli/commands/check.ts'
import { ACTION_GROUPS, ACTIONS, RESOURCE_TYPES } from '../../src/permissions/model.ts'
import { runCli, runInProcess, useOidcConfig, type CliRun } from '../helpers/cli.ts'
import { registryBytes, SAMPLE_REGISTRY } from '../helpers/registry-builder.ts'
import { TWO_PROJECTS } from '../helpers/registry-wiring.ts'

const dir = mkdtempSync(join(tmpdir(), 'feast-authz-check-'))
const FEAST = 'fixtures/permissions/feast-conftest.yaml'
const SAMPLE = 'fixtures/permissions/sample.yaml'
const EMPTY = 'fixtures/permissions/empty-list.yaml'

const spawnCheck = async (...args: string[]): Promise<CliRun> => await runCli(['check', ...args])

/** In-process run, for the many argument errors (each would otherwise cost a process). */
async function runCheck (...args: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  return await runInProcess(check, args)
}

after(() => rmSync(dir, { recursive: true, force: true }))

describe('feast-authz check --help', () => {
  test('describes --permissions and --registry and lists every resource type, action and group, in lines of at most 90 characters', async () => {
    const { code, stdout } = await runCheck('--help')
    assert.equal(code, 0)
    assert.match(stdout, /^ {2}--permissions {2}the permissions YAML file/m)
    assert.match(stdout, /^ {2}--registry {5}or a Feast registry file/m)
    const words = new Set(stdout.split(/[\s,:]+/))
    for (const name of [...RESOURCE_TYPES, ...ACTIONS, ...Object.keys(ACTION_GROUPS)]) assert.ok(words.has(name), `${name} is missing from the help`)
    assert.deepEqual(stdout.split('\n').filter((line) => line.length > 90), [])
  })
})

describe('feast-authz check with --principal (spawned)', () => {
  test('an allowed request prints decision allow with one verdict per permission and exits 0', async () => {
    const { code, stdout, stderr } = await spawnCheck('--permissions', FEAST, '--principal', '{"username":"r","roles":["reader"]}', '--resource', 'FeatureView:secured', '--action', 'DESCRIBE')
    assert.equal(code, 0, stderr)
    const out = JSON.parse(stdout)
    assert.equal(out.decision, 'allow')
    assert.equal(out.resource, 'FeatureView:secured')
    assert.deepEqual(out.explanation.map((v: { permission: string }) => v.permission), ['reader', 'writer', 'special', 'entity_updater', 'entity_creator'])
    assert.deepEqual(out.explanation[0], { permission: 'reader', applied: true, unmatched: [], policyGranted: true })
  })

  test('a denied request prints decision deny, what did not match and what was missing, and exits 1', async () => {
    const { code, stdout } = await spawnCheck('--permissions', FEAST, '--principal', '{"username":"rw","roles":["reader","writer"]}', '--resource', 'FeatureView:secured', '--action', 'DESCRIBE', '--action', 'UPDATE')
    assert.equal(code, 1)
    const out = JSON.parse(stdout)
    assert.equal(out.decision, 'deny')
    assert.deepEqual(out.actions, ['DESCRIBE', 'UPDATE'])
    assert.deepEqual(out.explanation.slice(0, 3), [
      { permission: 'reader', applied: false, unmatched: ['actions'], policyGranted: true },
      { permission: 'writer', applied: false, unmatched: ['actions'], policyGranted: true },
      { permission: 'special', applied: false, unmatched: ['name_pattern'], policyGranted: false, missing: 'requires roles [special-reader]' }
    ])
    assert.match(out.summary, /^No permission applies to \[DESCRIBE, UPDATE\] on FeatureView:secured/)
  })

  test('a bad permissions file exits 2 with the error on stderr and nothing on stdout', async () => {
    const { code, stdout, stderr } = await spawnCheck('--permissions', 'fixtures/permissions/invalid-unknown-action.yaml', '--principal', '{}', '--resource', 'FeatureView:x', '--action', 'DESCRIBE')
    assert.equal(code, 2)
    assert.equal(stdout, '')
    assert.match(stderr, /invalid-unknown-action\.yaml:8:23: permission \[1\] "writers": actions\[1\]: unknown action "WRIT_ONLINE"/)
  })

  test('bad arguments exit 2 with one line saying what is wrong and where the options are', async () => {
    const { code, stdout, stderr } = await spawnCheck('--permissions', FEAST, '--principal', '{}', '--resource', 'FeatureView:x', '--action', 'READ_EVERYTHING')
    assert.equal(code, 2)
    assert.equal(stdout, '')
    assert.match(stderr, /^feast-authz check: --action: unknown action "READ_EVERYTHING"[^\n]*\nRun `feast-authz check --help` for the options\.\n$/)
  })
})

describe('feast-authz check: requests and arguments (in process)', () => {
  test('--tag gives the resource the tags required_tags are matched against', async () => {
    const principal = '{"username":"ana","roles":["reader"]}'
    const tagged = await runCheck('--permissions', SAMPLE, '--principal', principal, '--resource', 'FeatureView:driver_stats', '--tag', 'team=drivers', '--action', 'READ_ONLINE')
    const untagged = await runCheck('--permissions', SAMPLE, '--principal', principal, '--resource', 'FeatureView:driver_stats', '--action', 'READ_ONLINE')
    assert.deepEqual([tagged.code, untagged.code], [0, 1])
    assert.deepEqual(JSON.parse(untagged.stdout).explanation[0].unmatched, ['tags'])
  })

  test('action groups are accepted and expanded', async () => {
    const { code, stdout } = await runCheck('--permissions', SAMPLE, '--principal', '{"roles":["writer"]}', '--resource', 'StreamFeatureView:live', '--action', 'WRITE')
    assert.equal(code, 0)
    assert.deepEqual(JSON.parse(stdout).actions, ['WRITE_ONLINE', 'WRITE_OFFLINE'])
  })

  test('the output of `inspect` is accepted as the principal', async () => {
    const principal = JSON.stringify({ username: 'job', roles: [], groups: [], namespaces: ['batch-jobs'], source: 'kubernetes' })
    const { code, stdout } = await runCheck('--permissions', SAMPLE, '--principal', principal, '--resource', 'DataSource:trips', '--action', 'READ_OFFLINE')
    assert.equal(code, 0)
    assert.equal(JSON.parse(stdout).principal.source, 'kubernetes')
  })

  test('with no permissions defined the request is allowed and a warning goes to stderr', async () => {
    const { code, stdout, stderr } = await runCheck('--permissions', EMPTY, '--principal', '{}', '--resource', 'Project:p', '--action', 'DELETE')
    assert.equal(code, 0)
    assert.equal(JSON.parse(stdout).noPermissionsDefined, true)
    assert.match(stderr, /^feast-authz check: warning: No permissions defined in fixtures\/permissions\/empty-list\.yaml: /)
  })

  test('the warning names the project checked, a Project resource, in the words of the server\'s warning', async () => {
    const { stderr } = await runCheck('--permissions', EMPTY, '--principal', '{}', '--resource', 'Project:driver_ranking', '--action', 'DELETE')
    assert.equal(stderr, 'feast-authz check: warning: No permissions defined in fixtures/permissions/empty-list.yaml: every authenticated caller has full access to ' +
      'project "driver_ranking". Define permissions to enforce fine-grained authorization.\n')
  })

  test('without a project to name, the warning says the permissions leave open every project they are used for', async () => {
    const { stderr } = await runCheck('--permissions', EMPTY, '--principal', '{}', '--resource', 'FeatureView:stats', '--action', 'READ_ONLINE')
    assert.match(stderr, /: every authenticated caller has full access to every project these permissions are used for\. Define permissions/)
  })

  const usage: readonly [string, string[], RegExp][] = [
    ['neither --permissions nor --registry', ['--principal', '{}', '--resource', 'Project:p', '--action', 'DESCRIBE'], /give --permissions <permissions\.yaml>, or --registry <registry\.db>/],
    ['neither principal nor token', ['--permissions', FEAST, '--resource', 'Project:p', '--action', 'DESCRIBE'], /give --principal, or --token or --token-file \(with --config\)/],
    ['both principal and token', ['--permissions', FEAST, '--principal', '{}', '--config', 'x', '--token-file', 'y', '--resource', 'Project:p', '--action', 'DESCRIBE'], /not both/],
    ['--config without a token', ['--permissions', FEAST, '--config', 'x', '--resource', 'Project:p', '--action', 'DESCRIBE'], /--config needs --token or --token-file/],
    ['both --token and --token-file', ['--permissions', FEAST, '--config', 'x', '--token', 'x.y.z', '--token-file', 'y', '--resource', 'Project:p', '--action', 'DESCRIBE'], /give one of --token and --token-file, not both/],
    ['actions written as one list', ['--permissions', FEAST, '--principal', '{}', '--resource', 'Project:p', '--action', 'READ, DESCRIBE'], /--action: one action per --action: write --action READ --action DESCRIBE$/m],
    ['a missing --resource', ['--permissions', FEAST, '--principal', '{}', '--action', 'DESCRIBE'], /--resource is required/],
    ['a resource without a type', ['--permissions', FEAST, '--principal', '{}', '--resource', 'secured', '--action', 'DESCRIBE'], /--resource: expected <Type>:<name>, got "secured"/],
    ['an unknown resource type', ['--permissions', FEAST, '--principal', '{}', '--resource', 'View:secured', '--action', 'DESCRIBE'], /--resource: unknown resource type "View"/],
    ['a misspelt resource type', ['--permissions', FEAST, '--principal', '{}', '--resource', 'FeatureVeiw:secured', '--action', 'DESCRIBE'], /unknown resource type "FeatureVeiw" \(did you mean FeatureView\?\)/],
    ['a misspelt action', ['--permissions', FEAST, '--principal', '{}', '--resource', 'Project:p', '--action', 'READ_ONLNE'], /unknown action "READ_ONLNE" \(did you mean READ_ONLINE\?\)/],
    ['an action in lower case', ['--permissions', FEAST, '--principal', '{}', '--resource', 'Project:p', '--action', 'read_online'], /unknown action "read_online" \(did you mean READ_ONLINE\?\)/],
    ['an action as Feast\'s Python enum', ['--permissions', FEAST, '--principal', '{}', '--resource', 'Project:p', '--action', 'AuthzedAction.READ_ONLINE'], /unknown action "AuthzedAction\.READ_ONLINE" \(did you mean READ_ONLINE\?\)/],
    ['a missing --action', ['--permissions', FEAST, '--principal', '{}', '--resource', 'Project:p'], /at least one --action is required/],
    ['a tag without =', ['--permissions', FEAST, '--principal', '{}', '--resource', 'Project:p', '--tag', 'team', '--action', 'DESCRIBE'], /--tag: expected key=value, got "team"/],
    ['a tag given twice', ['--permissions', FEAST, '--principal', '{}', '--resource', 'Project:p', '--tag', 'a=1', '--tag', 'a=2', '--action', 'DESCRIBE'], /--tag: "a" given twice/],
    ['an unknown option', ['--permissions', FEAST, '--principal', '{}', '--resource', 'Project:p', '--action', 'DESCRIBE', '--quiet'], /unknown option --quiet; options: --permissions/],
    ['a misspelt option', ['--permissions', FEAST, '--principal', '{}', '--resource', 'Project:p', '--actoin', 'DESCRIBE'], /unknown option --actoin \(did you mean --action\?\)/]
  ]
  for (const [what, args, message] of usage) {
    test(`${what} exits 2`, async () => {
      const { code, stdout, stderr } = await runCheck(...args)
      assert.deepEqual([code, stdout], [2, ''])
      assert.match(stderr, message)
    })
  }

  const principals: readonly [string, string, RegExp][] = [
    ['invalid JSON', '{roles:', /--principal: not valid JSON/],
    ['a list', '[]', /--principal: expected a JSON object, got a list/],
    ['an unknown field', '{"role":["reader"]}', /--principal: unknown field "role" \(did you mean roles\?\) \(expected /],
    ['roles that are not strings', '{"roles":[1]}', /--principal: roles: expected a list of strings, got a list/],
    ['a non-string username', '{"username":7}', /--principal: username: expected a string, got 7/],
    ['an unknown source', '{"source":"ldap"}', /--principal: source: expected one of oidc, kubernetes, intra, no_auth, got "ldap"/]
  ]
  for (const [what, json, message] of principals) {
    test(`a principal with ${what} exits 2`, async () => {
      const { code, stderr } = await runCheck('--permissions', FEAST, '--principal', json, '--resource', 'Project:p', '--action', 'DESCRIBE')
      assert.equal(code, 2)
      assert.match(stderr, message)
    })
  }

  test('a token given as --principal by mistake is refused without being echoed (V8\'s JSON error quotes the text)', async () => {
    for (const token of ['do-not-print-me.eyJzdWIiOiJhIn0.c2ln', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.do-not-print-me', '{"username": do-not-print-me}']) {
      const { code, stderr } = await runCheck('--permissions', FEAST, '--principal', token, '--resource', 'Project:p', '--action', 'DESCRIBE')
      assert.equal(code, 2)
      assert.match(stderr, /--principal: not valid JSON \(expected an object such as /)
      assert.doesNotMatch(stderr, /do-not|-print-|eyJ/)
    }
  })

  test('a token given where no argument is expected is refused by its place, never echoed', async () => {
    const { code, stderr } = await runCheck('--permissions', FEAST, 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.do-not-print-me', '--resource', 'Project:p')
    assert.equal(code, 2)
    assert.match(stderr, /^feast-authz check: unexpected argument: the 3rd \(not shown: it may be a token\); options are given as --name value\n/)
    assert.doesNotMatch(stderr, /do-not-print-me|eyJ/)
  })

  test('--help prints the usage and exits 0', async () => {
    const { code, stdout } = await runCheck('--help')
    assert.equal(code, 0)
    assert.match(stdout, /^usage: feast-authz check \(--permissions <permissions\.yaml> \|\n +--registry <registry\.db> \[--project <name>\]\)/)
  })
})

describe('feast-authz check with a token (spawned, real OpenID provider)', () => {
  const oidc = useOidcConfig(dir)

  test('the principal is taken from the token, as inspect does, and the decision made on it', async () => {
    const tokenFile = join(dir, 'reader.jwt')
    writeFileSync(tokenFile, `${await oidc.provider.issue({ preferred_username: 'rita', resource_access: { feast: { roles: ['reader'] } } })}\n`)
    const { code, stdout, stderr } = await spawnCheck('--permissions', FEAST, '--config', oidc.configPath, '--token-file', tokenFile, '--resource', 'FeatureView:secured', '--action', 'DESCRIBE')
    assert.equal(code, 0, stderr)
    const out = JSON.parse(stdout)
    assert.deepEqual([out.decision, out.principal.username, out.principal.roles], ['allow', 'rita', ['reader']])
  })

  test('with no permissions defined, the warning names the configuration\'s project', async () => {
    const token = await oidc.provider.issue({ preferred_username: 'rita' })
    const { code, stderr } = await spawnCheck('--permissions', EMPTY, '--config', oidc.configPath, '--token', token, '--resource', 'FeatureView:secured', '--action', 'DESCRIBE')
    assert.equal(code, 0, stderr)
    assert.match(stderr, /warning: No permissions defined in fixtures\/permissions\/empty-list\.yaml: every authenticated caller has full access to project "demo"\. /)
  })

  test('with --registry and no --project, the token is checked against the project of --config, as the server would', async () => {
    const registry = join(dir, 'two-projects-for-token.db')
    writeFileSync(registry, registryBytes(TWO_PROJECTS))
    const token = await oidc.provider.issue({ preferred_username: 'rita', resource_access: { feast: { roles: ['reader'] } } })
    const { code, stdout, stderr } = await spawnCheck('--registry', registry, '--config', oidc.configPath, '--token', token, '--resource', 'FeatureView:driver_stats', '--action', 'READ_ONLINE')
    assert.equal(code, 0, stderr)
    const out = JSON.parse(stdout)
    assert.deepEqual([out.decision, out.principal.username, out.tags], ['allow', 'rita', { team: 'drivers' }])
  })

  test('--token takes the token itself, as inspect does', async () => {
    const token = await oidc.provider.issue({ preferred_username: 'rita', resource_access: { feast: { roles: ['reader'] } } })
    const { code, stdout, stderr } = await spawnCheck('--permissions', FEAST, '--config', oidc.configPath, '--token', token, '--resource', 'FeatureView:secured', '--action', 'DESCRIBE')
    assert.equal(code, 0, stderr)
    assert.equal(JSON.parse(stdout).principal.username, 'rita')
  })

  test('a rejected token is a deny (exit 1) with the reason', async () => {
    const tokenFile = join(dir, 'expired.jwt')
    writeFileSync(tokenFile, await oidc.provider.sign({ preferred_username: 'eve', exp: Math.floor(Date.now() / 1000) - 3600 }))
    const { code, stdout, stderr } = await spawnCheck('--permissions', FEAST, '--config', oidc.configPath, '--token-file', tokenFile, '--resource', 'FeatureView:secured', '--action', 'DESCRIBE')
    assert.equal(code, 1)
    assert.deepEqual(JSON.parse(stdout), { decision: 'deny', authenticated: false, reason: 'token_expired: the token has expired', explanation: [] })
    assert.match(stderr, /token rejected: token_expired/)
  })

  test('a missing token file exits 2 naming the path', async () => {
    const missing = join(dir, 'missing.jwt')
    const { code, stderr } = await runCheck('--permissions', FEAST, '--config', oidc.configPath, '--token-file', missing, '--resource', 'FeatureView:secured', '--action', 'DESCRIBE')
    assert.equal(code, 2)
    assert.match(stderr, new RegExp(`cannot read --token-file ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: file not found`))
  })

  test('an unreachable provider exits 3 (could not decide), as inspect does', async () => {
    const unreachable = join(dir, 'unreachable.yaml')
    writeFileSync(unreachable, 'auth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: http://127.0.0.1:9/.well-known/openid-configuration\n  jwks_request_timeout_seconds: 2\n')
    const tokenFile = join(dir, 'any-user.jwt')
    writeFileSync(tokenFile, await oidc.provider.issue({ preferred_username: 'rita' }))
    const { code, stdout, stderr } = await spawnCheck('--permissions', FEAST, '--config', unreachable, '--token-file', tokenFile, '--resource', 'FeatureView:secured', '--action', 'DESCRIBE')
    assert.equal(code, 3)
    assert.equal(stdout, '')
    assert.match(stderr, /^feast-authz check: could not decide: provider_unavailable: the discovery document of the identity provider could not be fetched: request to http:\/\/127\.0\.0\.1:9\/\.well-known\/openid-configuration failed: ECONNREFUSED\n {2}check that .*jwks_request_timeout_seconds \(2 s\); --debug shows the details\n$/)
  })

  test('--token-file - reads the token from standard input', async () => {
    const token = await oidc.provider.issue({ preferred_username: 'rita', resource_access: { feast: { roles: ['reader'] } } })
    const { code, stdout, stderr } = await runCli(['check', '--permissions', FEAST, '--config', oidc.configPath, '--token-file', '-', '--resource', 'FeatureView:secured', '--action', 'DESCRIBE'], { input: token })
    assert.equal(code, 0, stderr)
    assert.equal(JSON.parse(stdout).principal.username, 'rita')
  })
})

describe('feast-authz check --registry: the permissions of a Feast registry file (in process)', () => {
  // Project demo: readers may describe and read driver_stats (tagged team=drivers); project other: auditors may describe audit_log.
  const twoProjects = join(dir, 'two-projects.db')
  writeFileSync(twoProjects, registryBytes(TWO_PROJECTS))
  const as = (roles: string[]): string => JSON.stringify({ username: 'pat', roles })

  test('decides with the permissions of --project, on the resource as the registry holds it, tags included', async () => {
    const { code, stdout, stderr } = await runCheck('--registry', twoProjects, '--project', 'demo', '--principal', as(['reader']), '--resource', 'FeatureView:driver_stats', '--action', 'READ_ONLINE')
    assert.equal(code, 0, stderr)
    const out = JSON.parse(stdout)
    assert.deepEqual([out.decision, out.resource, out.tags], ['allow', 'FeatureView:driver_stats', { team: 'drivers' }])
    assert.equal(stderr, '')
  })

  test('denies what that project\'s permissions do not grant, though another project\'s would', async () => {
    const { code, stdout } = await runCheck('--registry', twoProjects, '--project', 'demo', '--principal', as(['auditor']), '--resource', 'FeatureView:driver_stats', '--action', 'DESCRIBE')
    assert.equal(code, 1)
    assert.equal(JSON.parse(stdout).decision, 'deny')
  })

  test('asks for --project when the file holds several projects, naming them', async () => {
    const { code, stderr } = await runCheck('--registry', twoProjects, '--principal', as(['reader']), '--resource', 'FeatureView:driver_stats', '--action', 'DESCRIBE')
    assert.equal(code, 2)
    assert.equal(stderr, `feast-authz check: ${twoProjects}: holds 2 projects ("demo", "other"): say which with --project\n`)
  })

  test('takes the only project of a file that holds one, and warns, naming it, when it defines no permissions', async () => {
    const { code, stdout, stderr } = await runCheck('--registry', SAMPLE_REGISTRY, '--principal', as([]), '--resource', 'FeatureView:credit_history', '--action', 'READ_ONLINE')
    assert.equal(code, 0)
    assert.equal(JSON.parse(stdout).decision, 'allow')
    assert.match(stderr, /^feast-authz check: warning: No permissions defined in project "credit_scoring_aws" of \S+ui-sample-registry\.db: every authenticated caller has full access to project "credit_scoring_aws"/)
  })

  test('a resource the project does not have exits 2, naming the project and the nearest name', async () => {
    const { code, stdout, stderr } = await runCheck('--registry', twoProjects, '--project', 'demo', '--principal', as(['reader']), '--resource', 'FeatureView:driver_stat', '--action', 'DESCRIBE')
    assert.deepEqual([code, stdout], [2, ''])
    assert.match(stderr, /: project "demo" has no FeatureView "driver_stat" \(did you mean driver_stats\?\)\n$/)
  })

  test('a token pasted as the resource\'s name is not echoed in the error', async () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwYXQifQ.c2lnbmF0dXJlLW5vdC10by1lY2hv'
    const { code, stdout, stderr } = await runCheck('--registry', twoProjects, '--project', 'demo', '--principal', as([]), '--resource', `FeatureView:${token}`, '--action', 'DESCRIBE')
    assert.deepEqual([code, stdout], [2, ''])
    assert.equal(stderr.includes(token), false, stderr)
    assert.match(stderr, /has no FeatureView a string of \d+ characters \(not shown: it may be a token\)\n$/)
  })

  test('a token given as --registry by mistake is not echoed in the missing file\'s error', async () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwYXQifQ.c2lnbmF0dXJlLW5vdC10by1lY2hv'
    const { code, stderr } = await runCheck('--registry', token, '--principal', as([]), '--resource', 'FeatureView:x', '--action', 'DESCRIBE')
    assert.equal(code, 2)
    assert.equal(stderr.includes(token), false, stderr)
    assert.match(stderr, /<a path of \d+ characters, not shown: it may be a token>: cannot read the Feast registry: file not found\n$/)
  })

  test('a token pasted as --project is not echoed in the missing project\'s error', async () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwYXQifQ.c2lnbmF0dXJlLW5vdC10by1lY2hv'
    const { code, stderr } = await runCheck('--registry', twoProjects, '--project', token, '--principal', as([]), '--resource', 'FeatureView:driver_stats', '--action', 'DESCRIBE')
    assert.equal(code, 2)
    assert.equal(stderr.includes(token), false, stderr)
    assert.match(stderr, /: has no project a string of \d+ characters \(not shown: it may be a token\) \(it has "demo", "other"\); check --project\n$/)
  })

  test('a misspelt --project exits 2 with the nearest project the file has', async () => {
    const { code, stderr } = await runCheck('--registry', twoProjects, '--project', 'dmeo', '--principal', as([]), '--resource', 'FeatureView:driver_stats', '--action', 'DESCRIBE')
    assert.equal(code, 2)
    assert.match(stderr, /: has no project "dmeo" \(did you mean demo\?\) \(it has "demo", "other"\); check --project\n$/)
  })

  test('a project the file does not have exits 2, listing those it has', async () => {
    const { code, stderr } = await runCheck('--registry', twoProjects, '--project', 'prod', '--principal', as([]), '--resource', 'FeatureView:driver_stats', '--action', 'DESCRIBE')
    assert.equal(code, 2)
    assert.match(stderr, /: has no project "prod" \(it has "demo", "other"\); check --project\n$/)
  })

  test('a file that is no Feast registry exits 2 naming it', async () => {
    const notRegistry = join(dir, 'notes.db')
    writeFileSync(notRegistry, 'not a registry\n')
    const { code, stderr } = await runCheck('--registry', notRegistry, '--principal', as([]), '--resource', 'FeatureView:x', '--action', 'DESCRIBE')
    assert.equal(code, 2)
    assert.match(stderr, /notes\.db: cannot use the Feast registry: not a serialized feast\.core\.Registry/)
  })

  test('a YAML file given as --registry exits 2 pointing at --permissions, the flag a permissions file goes with', async () => {
    const { code, stdout, stderr } = await runCheck('--registry', FEAST, '--principal', as([]), '--resource', 'FeatureView:x', '--action', 'DESCRIBE')
    assert.deepEqual([code, stdout], [2, ''])
    assert.equal(stderr, `feast-authz check: ${FEAST}: is a YAML file, not a Feast registry file (registry.db): a permissions YAML file goes with --permissions\n`)
  })

  test('with a token, the project of --config is the one checked when --project is not given, and one the file lacks exits 2 before any token is sent', async () => {
    const config = join(dir, 'prod-store.yaml')
    // The provider is unreachable: reaching authentication would exit 3, not 2.
    writeFileSync(config, 'project: prod\nauth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: http://127.0.0.1:9/.well-known/openid-configuration\n')
    const { code, stdout, stderr } = await runCheck('--registry', twoProjects, '--config', config, '--token', 'x.y.z', '--resource', 'FeatureView:driver_stats', '--action', 'DESCRIBE')
    assert.deepEqual([code, stdout], [2, ''])
    assert.equal(stderr, `feast-authz check: ${twoProjects}: has no project "prod", the project of ${config} (it has "demo", "other"); say which with --project\n`)
  })

  test('--project wins over the project of --config', async () => {
    const config = join(dir, 'prod-store.yaml')
    const { code, stderr } = await runCheck('--registry', twoProjects, '--project', 'demo', '--config', config, '--token', 'x.y.z', '--resource', 'FeatureView:nothing', '--action', 'DESCRIBE')
    assert.equal(code, 2)
    assert.match(stderr, /: project "demo" has no FeatureView "nothing"\n$/)
  })

  test('--registry with --permissions, --tag with --registry and --project without it are usage errors', async () => {
    const cases = [
      [['--registry', twoProjects, '--permissions', FEAST], 'give one of --permissions and --registry, not both'],
      [['--registry', twoProjects, '--tag', 'team=x'], '--tag: with --registry, the resource\'s tags are the registry\'s'],
      [['--permissions', FEAST, '--project', 'demo'], '--project names a project of the Feast registry given with --registry'],
      [[], 'give --permissions <permissions.yaml>, or --registry <registry.db> (a Feast registry file)']
    ] as const
    for (const [flags, message] of cases) {
      const { code, stderr } = await runCheck(...flags, '--principal', as([]), '--resource', 'FeatureView:driver_stats', '--action', 'DESCRIBE')
      assert.equal(code, 2, message)
      assert.equal(stderr.split('\n')[0], `feast-authz check: ${message}`)
    }
  })
})

describe('feast-authz check: identities requirePermission does not check (in process)', () => {
  test('under auth type no_auth the request is allowed, since the server checks no permissions', async () => {
    const configPath = join(dir, 'no-auth.yaml')
    const tokenFile = join(dir, 'any.jwt')
    writeFileSync(configPath, 'project: demo\nauth:\n  type: no_auth\n')
    writeFileSync(tokenFile, 'anything\n')
    const { code, stdout } = await runCheck('--permissions', FEAST, '--config', configPath, '--token-file', tokenFile, '--resource', 'FeatureView:secured', '--action', 'DELETE')
    assert.equal(code, 0)
    assert.match(JSON.parse(stdout).note, /no_auth/)
  })

  test('the intra-server identity is allowed without a permission check', async () => {
    const { code, stdout } = await runCheck('--permissions', FEAST, '--principal', '{"username":"registry","source":"intra"}', '--resource', 'FeatureView:secured', '--action', 'DELETE')
    assert.equal(code, 0)
    assert.deepEqual(JSON.parse(stdout).explanation, [])
  })
})
