import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { runCli } from '../helpers/cli.ts'

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
