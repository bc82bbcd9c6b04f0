/** The reference server's in-memory online store (src/server/online-store.ts). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
import { createOnlineStore } from '../../src/server/online-store.ts'

test('features called __proto__ and constructor are stored and read back like any other feature', () => {
  const registry = loadYamlCatalogFile({
    yaml: 'project: p\nfeature_views:\n  - name: odd\n    entities: [id]\n    features: [__proto__, constructor, plain]\n' +
      'sample_rows:\n  odd:\n    - {id: 1, __proto__: 5, constructor: 6, plain: 7}\n',
    source: 'registry.yaml'
  })
  const view = registry.featureView('odd')
  assert.ok(view !== undefined)
  const store = createOnlineStore(registry)
  assert.deepEqual(Object.entries(store.read(view, [1])?.values ?? {}), [['__proto__', 5], ['constructor', 6], ['plain', 7]])
  store.write(view, [JSON.parse('{"id": 1, "__proto__": 8}') as Record<string, unknown>])
  assert.deepEqual(Object.entries(store.read(view, [1])?.values ?? {}), [['__proto__', 8], ['constructor', 6], ['plain', 7]])
})
