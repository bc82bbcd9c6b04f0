import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { parseAllDocuments } from 'yaml'
import { loadAuthConfig } from '../../../src/config/auth-config.ts'
import { hasFeastRoleMarker } from '../../../src/base/feast-role-marker.ts'

const docs = readFileSync(new URL('../../../docs/kubernetes.md', import.meta.url), 'utf8')
const yamlBlocks = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!)
const objects = yamlBlocks.flatMap((block) => parseAllDocuments(block).map((doc) => {
  assert.deepEqual(doc.errors, [], `invalid YAML in docs/kubernetes.md:\n${block}`)
  return doc.toJS() as Record<string, any>
}))

interface Rule { apiGroups: string[], resources: string[], verbs: string[] }
const rulesOf = (kind: string): Rule[] => objects.filter((object) => object?.kind === kind).flatMap((object) => object.rules as Rule[])

describe('docs/kubernetes.md', () => {
  test('the feature_store.yaml example is a valid server configuration', () => {
    const { auth } = loadAuthConfig({ yaml: yamlBlocks[0]!, source: 'docs/kubernetes.md' })
    assert.deepEqual(auth, { type: 'kubernetes', audiences: ['feast'], namespace: 'feast', token_review_cache_ttl_seconds: 60, allow_ruleless_roles: false, cluster_roles: ['feast-viewer'], accept_opaque_tokens: false, outage_grace_seconds: 60 })
  })

  test('every YAML block parses', () => {
    assert.ok(yamlBlocks.length >= 5, 'the RBAC, config and client examples are YAML blocks')
  })

  test('the namespaced Role grants get, list and watch on rolebindings and roles, and nothing else', () => {
    const role = objects.find((object) => object?.kind === 'Role' && object.metadata?.name === 'feast-authz-rolebinding-reader')
    assert.deepEqual(role?.rules, [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings', 'roles'], verbs: ['get', 'list', 'watch'] }])
  })

  test('every Feast role shown holds the marker rule the server requires', () => {
    const feastRoles = objects.filter((object) => object?.kind === 'Role' && object.metadata?.name !== 'feast-authz-rolebinding-reader')
    assert.ok(feastRoles.length >= 2)
    for (const role of feastRoles) assert.ok(hasFeastRoleMarker(role.metadata.name, role.rules), `Role ${role.metadata.name as string} holds its marker`)
  })

  test('the client example with token_path is a valid client configuration', () => {
    const client = yamlBlocks.find((block) => block.includes('\n  token_path: /var'))
    assert.ok(client !== undefined)
    const { auth } = loadAuthConfig({ yaml: client, source: 'docs/kubernetes.md' }, { role: 'client' })
    assert.deepEqual(auth, { type: 'kubernetes', token_path: '/var/run/secrets/feast-authz/token', token_review_cache_ttl_seconds: 60 })
  })

  test('the ClusterRole grants only tokenreviews create', () => {
    assert.ok(rulesOf('ClusterRole').length > 0, 'the docs define the TokenReview ClusterRole')
    for (const rule of rulesOf('ClusterRole')) {
      assert.deepEqual(rule, { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] })
    }
  })

  test('every binding refers to a role defined in the docs and names the service account', () => {
    const bindings = objects.filter((object) => object?.kind === 'RoleBinding' || object?.kind === 'ClusterRoleBinding')
    for (const binding of bindings) {
      const target = objects.find((object) => object?.kind === binding.roleRef.kind && object.metadata?.name === binding.roleRef.name)
      assert.ok(target, `${binding.kind} ${binding.metadata.name} refers to ${binding.roleRef.kind} ${binding.roleRef.name}, which the docs do not define`)
      assert.equal(binding.roleRef.apiGroup, 'rbac.authorization.k8s.io')
    }
  })
})
