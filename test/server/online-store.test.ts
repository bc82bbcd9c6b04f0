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

test('integer keys are keyed by their exact value: two that differ only beyond 2^53 are two rows, a double and a BigInt of one integer are one', () => {
  const registry = loadYamlCatalogFile({ yaml: 'project: p\nfeature_views:\n  - name: ids\n    entities: [id]\n    features: [f]\n', source: 'registry.yaml' })
  const view = registry.featureView('ids')
  assert.ok(view !== undefined)
  const store = createOnlineStore(registry)
  store.write(view, [{ id: 2n ** 60n + 1n, f: 'first' }, { id: 2n ** 60n + 2n, f: 'second' }, { id: 2 ** 60, f: 'a double' }])
  assert.deepEqual([2n ** 60n + 1n, 2n ** 60n + 2n, 2n ** 60n, 2 ** 60 + 1].map((id) => store.read(view, [id])?.values.f), ['first', 'second', 'a double', 'a double'])
  assert.equal(store.read(view, [String(2n ** 60n)]), undefined)
})
