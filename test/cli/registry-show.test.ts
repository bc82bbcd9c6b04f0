import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { run as registry } from '../../src/cli/commands/registry.ts'
import { runCli, runInProcess } from '../helpers/cli.ts'

describe('feast-authz registry show on a store whose registry is the server\'s YAML registry', () => {
  test('exits 2 saying it reads Feast\'s binary registry file and how to get one', async () => {
    const { code, stdout, stderr } = await runCli(['registry', 'show', '--config', 'fixtures/server/feature_store.yaml'])
    assert.deepEqual([code, stdout], [2, ''])
    assert.match(stderr, /^feast-authz registry: \S+fixtures\/server\/registry\.yaml: is the reference server's YAML registry \(for `feast-authz serve`\), not a Feast registry file\. `registry show` reads the binary registry file Feast writes \(registry\.db\): run `feast apply`/)
    assert.equal(stderr.trimEnd().split('\n').length, 1)
  })

  test('without --config it uses ./feature_store.yaml', async () => {
    const { code, stderr } = await runCli(['registry', 'show'], { cwd: fileURLToPath(new URL('../../fixtures/server/', import.meta.url)) })
    assert.equal(code, 2)
    assert.match(stderr, /registry\.yaml: is the reference server's YAML registry/)
  })
})

describe('feast-authz registry show on a feature_store.yaml without `registry`', () => {
  const dir = mkdtempSync(join(tmpdir(), 'feast-authz-registry-show-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  test('exits 2 saying which feature_store.yaml --config takes, what its registry setting looks like, and that --registry takes the file', async () => {
    const config = join(dir, 'feature_store.yaml')
    writeFileSync(config, 'project: credit_scoring\nauth:\n  type: no_auth\n')
    const { code, stdout, stderr } = await runInProcess(registry, ['show', '--config', config])
    assert.deepEqual([code, stdout], [2, ''])
    assert.equal(stderr, `feast-authz registry: ${config}: has no \`registry\` setting: nothing to show. --config takes the feature_store.yaml of your feature repository, whose \`registry\` names the file \`feast apply\` writes (registry: data/registry.db); or give the file with --registry\n`)
  })
})
