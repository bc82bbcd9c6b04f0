import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { groupBasedPolicy, permission, roleBasedPolicy } from '../../src/permissions/define.ts'
import { everyKindRegistry, wire, writeFeastRegistry } from '../helpers/feast-registry-writer.ts'
import { registryBytes, SAMPLE_REGISTRY, tempDir } from '../helpers/registry-builder.ts'
import { terminalControls } from '../helpers/terminal.ts'
import { runCli } from '../helpers/cli.ts'

const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname
const { dir, cleanup } = tempDir()
after(cleanup)

async function cli (...args: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', MAIN, 'registry', ...args], { timeout: 60_000 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number, stdout: string, stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

function store (name: string, yaml: string): string {
  const path = join(dir, `${name}.yaml`)
  writeFileSync(path, yaml)
  return path
}

const sample = store('sample', `project: credit_scoring_aws\nregistry: ${SAMPLE_REGISTRY}\n`)

describe('feast-authz registry show', () => {
  it('prints the projects, resources with their tags, and the permissions as tables', async () => {
    const { code, stdout } = await cli('show', '--config', sample)
    assert.equal(code, 0)
    assert.match(stdout, /^Registry {2}.*ui-sample-registry\.db$/m)
    assert.match(stdout, /^== Project credit_scoring_aws \(the server's project\)$/m)
    assert.match(stdout, /^ {2}FeatureView +credit_history +date_added=2022-02-6, access_group=feast-team@feast\.ai, experiments=experiment-A +features: credit_card_due/m)
    assert.match(stdout, /^ {2}FeatureService +zipcode_model +owner=amanda@feast\.ai, stage=dev +zipcode_features\[city, state/m)
    assert.match(stdout, /^Permissions\n {2}\(none: every authenticated user is allowed everything in this project/m)
  })

  it('prints JSON for scripts with --json', async () => {
    const { code, stdout } = await cli('show', '--config', sample, '--json')
    assert.equal(code, 0)
    const shown = JSON.parse(stdout) as {
      project: string
      projects: Array<{ name: string, resources: Array<{ type: string, name: string, tags: Record<string, string> }>, permissions: unknown[] }>
    }
    assert.equal(shown.project, 'credit_scoring_aws')
    assert.deepEqual(shown.projects.map((project) => project.name), ['credit_scoring_aws'])
    const view = shown.projects[0]?.resources.find((resource) => resource.type === 'FeatureView' && resource.name === 'zipcode_features')
    assert.equal(view?.tags.access_group, 'feast-team@feast.ai')
    assert.deepEqual(shown.projects[0]?.permissions, [])
  })

  it('shows each permission with its types, patterns, tags, actions and policy', async () => {
    const path = join(dir, 'with-permissions.db')
    writeFileSync(path, registryBytes({
      projects: ['demo'],
      permissions: {
        demo: [
          permission({ name: 'readers', types: ['FeatureView'], namePatterns: 'driver_.*', requiredTags: { team: 'a' }, actions: ['DESCRIBE', 'READ_ONLINE'], policy: roleBasedPolicy(['reader']) }),
          permission({ name: 'admins', policy: groupBasedPolicy(['admins']) })
        ]
      }
    }))
    const { code, stdout } = await cli('show', '--config', store('perms', `project: demo\nregistry:\n  path: ${path}\n`))
    assert.equal(code, 0)
    assert.match(stdout, /^ {2}readers +FeatureView +driver_\.\* +team=a +DESCRIBE, READ_ONLINE +roles: reader$/m)
    assert.match(stdout, /^ {2}admins +all types +any name +- +ALL_ACTIONS +groups: admins$/m)
    const json = JSON.parse((await cli('show', '--config', store('perms2', `project: demo\nregistry: ${path}\n`), '--json')).stdout) as { projects: { permissions: unknown[] }[] }
    assert.deepEqual(json.projects[0]?.permissions[0], {
      name: 'readers', types: ['FeatureView'], name_patterns: ['driver_.*'], required_tags: { team: 'a' }, actions: ['DESCRIBE', 'READ_ONLINE'], policy: { role_based_policy: { roles: ['reader'] } }
    })
  })

  it('shows terminal controls in names and tags as \\uXXXX, one table row per object, and --json reads back the names', async () => {
    const hostile = '\u001b]0;owned\u0007\u001b[2J\r\n  FeatureView  forged\u009b31m\u202e'
    const path = join(dir, 'hostile-names.db')
    writeFileSync(path, registryBytes({
      projects: ['demo', `p${hostile}`],
      featureViews: [{ name: `v${hostile}`, project: `p${hostile}`, tags: { [`k${hostile}`]: `t${hostile}` } }],
      permissions: { [`p${hostile}`]: [permission({ name: `perm${hostile}`, policy: roleBasedPolicy([`r${hostile}`]) })] }
    }))
    const config = store('hostile-names', `project: demo\nregistry: ${path}\n`)
    const { code, stdout } = await cli('show', '--config', config)
    assert.equal(code, 0)
    assert.deepEqual(terminalControls(stdout), [])
    assert.match(stdout, /^== Project p\\u001b\]0;owned\\u0007\\u001b\[2J\\u000d\\u000a {2}FeatureView {2}forged\\u009b31m\\u202e$/m)
    assert.deepEqual(stdout.split('\n').filter((line) => /^ {2}FeatureView /.test(line)).length, 1)
    const json = JSON.parse((await cli('show', '--config', config, '--json')).stdout) as { projects: Array<{ name: string, permissions: Array<{ name: string }> }> }
    assert.deepEqual(json.projects.map((project) => project.name), ['demo', `p${hostile}`])
    assert.equal(json.projects[1]?.permissions[0]?.name, `perm${hostile}`)
  })

  it('exits 2 and names the registry type when it is not supported', async () => {
    const { code, stderr } = await cli('show', '--config', store('sql', 'project: demo\nregistry:\n  registry_type: sql\n  path: postgresql://db/feast\n'))
    assert.equal(code, 2)
    assert.match(stderr, /registry\.registry_type: registry type "sql" is not supported yet/)
  })

  it('exits 2 and names the file when the registry cannot be decoded', async () => {
    const path = join(dir, 'corrupt.db')
    writeFileSync(path, 'garbage, not protobuf')
    const { code, stderr } = await cli('show', '--config', store('corrupt', `project: demo\nregistry: ${path}\n`))
    assert.equal(code, 2)
    assert.ok(stderr.includes(`${path}: cannot use the Feast registry`), stderr)
  })

  it('exits 2 with the usage when the subcommand is missing', async () => {
    const { code, stderr } = await cli('--config', sample)
    assert.equal(code, 2)
    assert.match(stderr, /missing subcommand: expected show/)
  })
})

describe('feast-authz registry show --registry', () => {
  // A folder without feature_store.yaml: --registry needs none.
  const bare = join(dir, 'bare')
  mkdirSync(bare)

  it('shows a Feast registry file with no feature_store.yaml anywhere, every project, and no server project', async () => {
    const { code, stdout, stderr } = await runCli(['registry', 'show', '--registry', SAMPLE_REGISTRY], { cwd: bare })
    assert.equal(code, 0, stderr)
    assert.match(stdout, /^Registry {2}.*ui-sample-registry\.db$/m)
    assert.match(stdout, /^== Project credit_scoring_aws$/m)
    assert.doesNotMatch(stdout, /^Project {3}/m)
    assert.match(stdout, /^ {2}FeatureView +credit_history /m)
  })

  it('warns of a variable --config\'s file refers to that is not set, by file, line and column, and still shows the registry', async () => {
    const config = store('unset-reference', 'project: credit_scoring_aws\noffline_store:\n  path: $FEAST_AUTHZ_UNSET_IN_TEST/offline\n')
    const { code, stdout, stderr } = await runCli(['registry', 'show', '--registry', SAMPLE_REGISTRY, '--config', config], { cwd: bare })
    assert.equal(code, 0, stderr)
    assert.equal(stderr, `feast-authz registry: warning: ${config}:3:9: refers to an environment variable that is not set ($NAME, or the same in braces); the text is kept as written, as Feast keeps it\n`)
    assert.match(stdout, /^Project {3}credit_scoring_aws/m)
  })

  it('reads a relative path against the working directory', async () => {
    writeFileSync(join(bare, 'registry.db'), readFileSync(SAMPLE_REGISTRY))
    const { code, stdout } = await runCli(['registry', 'show', '--registry', 'registry.db'], { cwd: bare })
    assert.equal(code, 0)
    assert.match(stdout, new RegExp(`^Registry {2}${join(bare, 'registry.db').replace(/[.\\/]/g, '\\$&')}$`, 'm'))
  })

  it('leaves the server\'s project out of --json when no feature_store.yaml names one', async () => {
    const { code, stdout } = await runCli(['registry', 'show', '--registry', SAMPLE_REGISTRY, '--json'], { cwd: bare })
    assert.equal(code, 0)
    const shown = JSON.parse(stdout) as Record<string, unknown>
    assert.equal('project' in shown, false)
    assert.deepEqual((shown.projects as Array<{ name: string }>).map((project) => project.name), ['credit_scoring_aws'])
  })

  it('takes the server\'s project from the feature_store.yaml --config names, and marks it', async () => {
    const config = store('registry-flag-home', 'project: credit_scoring_aws\n')
    const { code, stdout } = await runCli(['registry', 'show', '--registry', SAMPLE_REGISTRY, '--config', config], { cwd: bare })
    assert.equal(code, 0)
    assert.match(stdout, /^Project {3}credit_scoring_aws \(feature_store\.yaml\)$/m)
    assert.match(stdout, /^== Project credit_scoring_aws \(the server's project\)$/m)
  })

  it('exits 2 when the project --config names is not in the file, naming both', async () => {
    const config = store('registry-flag-other', 'project: fraud\n')
    const { code, stderr } = await runCli(['registry', 'show', '--registry', SAMPLE_REGISTRY, '--config', config], { cwd: bare })
    assert.equal(code, 2)
    assert.match(stderr, /ui-sample-registry\.db: cannot use the Feast registry: the registry has no project "fraud" \(it has "credit_scoring_aws"\)/)
  })

  it('exits 2 when --project names a project the file does not have, listing those it has', async () => {
    const { code, stdout, stderr } = await runCli(['registry', 'show', '--registry', SAMPLE_REGISTRY, '--project', 'fraud'], { cwd: bare })
    assert.deepEqual([code, stdout], [2, ''])
    assert.match(stderr, /ui-sample-registry\.db: no project "fraud" \(it has "credit_scoring_aws"\)\n$/)
  })

  it('exits 2 for a misspelt --project, with the nearest project the file has', async () => {
    const { code, stderr } = await runCli(['registry', 'show', '--registry', SAMPLE_REGISTRY, '--project', 'credit_scoring'], { cwd: bare })
    assert.equal(code, 2)
    assert.match(stderr, /no project "credit_scoring" \(did you mean credit_scoring_aws\?\) \(it has "credit_scoring_aws"\)\n$/)
  })

  it('exits 2 naming the field when the feature_store.yaml --config names has no project', async () => {
    const config = store('registry-flag-no-project', 'auth:\n  type: no_auth\n')
    const { code, stderr } = await runCli(['registry', 'show', '--registry', SAMPLE_REGISTRY, '--config', config], { cwd: bare })
    assert.equal(code, 2)
    assert.match(stderr, /registry-flag-no-project\.yaml.*project.*expected the project name: the Feast registry given with --registry is read for this project/)
  })

  it('exits 2 naming the path when the file is not there', async () => {
    const { code, stderr } = await runCli(['registry', 'show', '--registry', 'missing.db'], { cwd: bare })
    assert.equal(code, 2)
    assert.equal(stderr, `feast-authz registry: ${join(bare, 'missing.db')}: cannot read the Feast registry: file not found\n`)
  })

  it('exits 2 for a --project the file lacks without echoing one shaped like a token', async () => {
    const pasted = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'
    const { code, stderr } = await runCli(['registry', 'show', '--registry', SAMPLE_REGISTRY, '--project', pasted], { cwd: bare })
    assert.equal(code, 2)
    assert.doesNotMatch(stderr, /abcdefghijklmnopqrstuvwxyz/)
    assert.match(stderr, /no project a string of 40 characters \(not shown: it may be a token\) \(it has "credit_scoring_aws"\)/)
  })

  it('exits 2 for the server\'s YAML registry, saying which file registry show reads', async () => {
    const { code, stderr } = await runCli(['registry', 'show', '--registry', store('yaml-registry', 'project: p\nfeature_views: []\n')], { cwd: bare })
    assert.equal(code, 2)
    assert.match(stderr, /yaml-registry\.yaml: is the reference server's YAML registry \(for `feast-authz serve`\), not a Feast registry file\. .* or --registry at the file\.\n$/)
  })
})

describe('feast-authz registry show on a registry Feast wrote with every kind of object', () => {
  const path = join(dir, 'every-kind.db')
  writeFileSync(path, writeFeastRegistry(everyKindRegistry()))
  const config = store('every-kind', `project: fraud\nregistry: ${path}\n`)

  it('lists every resource with Feast\'s type and its tags, and every permission field by field (--json)', async () => {
    const { code, stdout } = await cli('show', '--config', config, '--json')
    assert.equal(code, 0)
    const shown = JSON.parse(stdout) as {
      projects: Array<{
        name: string
        resources: Array<{ type: string, name: string, tags: Record<string, string> }>
        permissions: Array<Record<string, unknown>>
      }>
    }
    const fraud = shown.projects.find((project) => project.name === 'fraud')
    const types = new Map(fraud?.resources.map((resource) => [resource.name, resource.type]))
    assert.equal(types.get('user_stats_batch'), 'BatchFeatureView')
    assert.equal(types.get('user_stream'), 'StreamFeatureView')
    assert.equal(types.get('amount_ratio'), 'OnDemandFeatureView')
    assert.equal(types.get('fraud_labels'), 'LabelView')
    assert.equal(types.get('fraud_model'), 'FeatureService')
    assert.equal(types.get('training_profile'), 'ValidationReference')
    assert.deepEqual(fraud?.resources.find((resource) => resource.name === 'training_profile'), {
      type: 'ValidationReference', name: 'training_profile', project: 'fraud', tags: { checked_by: 'great_expectations' }, description: 'expectations for the training set', referenceDataset: 'training_set'
    })
    assert.deepEqual(fraud?.resources.find((resource) => resource.name === 'fraud_labels')?.tags, { team: 'fraud', kind: 'labels' })
    assert.deepEqual(fraud?.permissions.map((permission) => permission.policy), [
      { role_based_policy: { roles: ['analyst', 'auditor'] } },
      { group_based_policy: { groups: ['etl'] } },
      { namespace_based_policy: { namespaces: ['labeling'] } },
      { combined_group_namespace_policy: { groups: ['platform'], namespaces: ['feast-system'] } }
    ])
    assert.deepEqual(fraud?.permissions[0], {
      name: 'analysts-read',
      types: ['FeatureView', 'OnDemandFeatureView', 'FeatureService'],
      name_patterns: ['user_.*', 'amount_.*'],
      required_tags: { team: 'fraud' },
      actions: ['DESCRIBE', 'READ_ONLINE', 'READ_OFFLINE'],
      policy: { role_based_policy: { roles: ['analyst', 'auditor'] } },
      tags: { managed_by: 'platform' }
    })
  })

  it('shows batch and label views in the tables', async () => {
    const { code, stdout } = await cli('show', '--config', config)
    assert.equal(code, 0)
    assert.match(stdout, /^ {2}BatchFeatureView +user_stats_batch +team=fraud, kind=batch +features: amount_zscore/m)
    assert.match(stdout, /^ {2}LabelView +fraud_labels +team=fraud, kind=labels +features: is_fraud; entities: user; source: fraud_labels_source$/m)
  })

  it('shows a lifecycle state in which Feast serves a view nothing online', async () => {
    const { code, stdout } = await cli('show', '--config', config)
    assert.equal(code, 0)
    assert.match(stdout, /^ {2}FeatureView +user_history .*; state: GENERATED \(not served online\)$/m)
    assert.doesNotMatch(stdout, /^ {2}FeatureView +user_stats +.*state:/m)
  })

  it('shows the push source of a label view fed by one', async () => {
    const { code, stdout } = await cli('show', '--config', config)
    assert.equal(code, 0)
    assert.match(stdout, /^ {2}LabelView +chargeback_labels +- +features: charged_back; entities: user; push source: chargeback_push$/m)
  })

  it('shows an on-demand view\'s source under its alias with its join_key_map, and its request sources apart', async () => {
    const { code, stdout } = await cli('show', '--config', config)
    assert.equal(code, 0)
    assert.match(stdout, /^ {2}OnDemandFeatureView +amount_ratio +.*; sources: user_stats as customer_stats \(join_key_map: user_id=customer_id\); request sources: request_amount$/m)
  })

  it('shows the join_key_map of a feature service\'s projection after its features', async () => {
    const { code, stdout } = await cli('show', '--config', config)
    assert.equal(code, 0)
    assert.match(stdout, /^ {2}FeatureService +fraud_model +stage=prod +user_stats\[txn_count_7d\], amount_ratio as ratio_view\[ratio\] \(join_key_map: user_id=customer_id\)$/m)
  })

  it('gives an on-demand view\'s feature view and request sources apart, and its source aliases and join_key_maps by source name (--json)', async () => {
    const { code, stdout } = await cli('show', '--config', config, '--json')
    assert.equal(code, 0)
    const shown = JSON.parse(stdout) as { projects: Array<{ name: string, resources: Array<Record<string, unknown>> }> }
    const view = shown.projects.find((project) => project.name === 'fraud')?.resources.find((resource) => resource.name === 'amount_ratio')
    assert.deepEqual([view?.sources, view?.requestSources, view?.sourceAliases, view?.sourceJoinKeyMaps], [
      ['user_stats'], ['request_amount'], { user_stats: 'customer_stats' }, { user_stats: { user_id: 'customer_id' } }
    ])
  })

  it('exits 2 with one line naming the file and the field when a field has the wrong wire type', async () => {
    const bad = join(dir, 'wrong-wire.db')
    writeFileSync(bad, Uint8Array.from([...wire.tag(17, 1), 0, 0, 0, 0, 0, 0, 0, 0]))
    const { code, stderr } = await cli('show', '--config', store('wrong-wire', `project: demo\nregistry: ${bad}\n`))
    assert.equal(code, 2)
    assert.equal(stderr.trimEnd().split('\n').length, 1, stderr)
    assert.match(stderr, /not a serialized feast\.core\.Registry \(projects \(field 17\) is written as 64-bit/)
  })

  it('exits 2 with one line when a string is not valid UTF-8, as Python\'s protobuf refuses it', async () => {
    const bad = join(dir, 'bad-utf8.db')
    writeFileSync(bad, Uint8Array.from(wire.bytes(17, wire.bytes(1, wire.bytes(1, [0xc3, 0x28])))))
    const { code, stderr } = await cli('show', '--config', store('bad-utf8', `project: demo\nregistry: ${bad}\n`))
    assert.equal(code, 2)
    assert.equal(stderr.trimEnd().split('\n').length, 1, stderr)
    assert.match(stderr, /a string that is not valid UTF-8 in projects\[0\]\.spec/)
  })
})
