/** The reference server's in-memory online store (src/server/online-store.ts). */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { OptionError } from '../../src/registry/index.ts'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
import type { SampleRow } from '../../src/server/catalog.ts'
import { HttpError } from '../../src/server/http-error.ts'
import { createOnlineStore, DEFAULT_MAX_BYTES, SampleRowsOverBound, type OnlineStore, type OnlineStoreOptions } from '../../src/server/online-store.ts'
import { expectError } from '../helpers/errors.ts'

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

describe('the bound on the store (maxBytes)', () => {
  const registry = loadYamlCatalogFile({
    yaml: 'project: p\nfeature_views:\n  - name: a\n    entities: [id]\n    features: [f]\n  - name: b\n    entities: [id]\n    features: [f]\n',
    source: 'registry.yaml'
  })
  const [viewA, viewB] = [registry.featureView('a'), registry.featureView('b')]
  assert.ok(viewA !== undefined && viewB !== undefined)
  const rows = (from: number, count: number, f = 'ten chars!'): SampleRow[] => Array.from({ length: count }, (_, index) => ({ id: from + index, f }))
  const FULL = {
    type: HttpError,
    statusCode: 507,
    code: 'insufficient_storage',
    message: /^the online store is full: .* over its bound of 3,600 \(createOnlineStore's maxBytes, the reference server's onlineStoreMaxBytes or feast-authz serve --online-store-max-bytes; .*nothing was written/
  }
  // A row of one ten-character feature counts 345 bytes: ten rows fill 3,600 to within one row.
  const fullStore = (): OnlineStore => {
    const store = createOnlineStore(registry, { maxBytes: 3600 })
    store.write(viewA, rows(100, 10))
    expectError(() => store.write(viewA, rows(200, 1)), FULL)
    return store
  }

  test('a write that would pass the bound is refused with a 507 and stores none of its rows, even those that fit', () => {
    const store = createOnlineStore(registry, { maxBytes: 3600 })
    expectError(() => store.write(viewA, rows(100, 20)), FULL)
    assert.deepEqual(rows(100, 20).map(({ id }) => store.read(viewA, [id])), Array(20).fill(undefined))
    store.write(viewA, rows(100, 10))
    assert.equal(store.read(viewA, [109])?.values.f, 'ten chars!')
  })

  test('a push to several views stores all of them or none', () => {
    const store = createOnlineStore(registry, { maxBytes: 3600 })
    expectError(() => { store.writeAll([{ view: viewA, rows: rows(100, 6) }, { view: viewB, rows: rows(100, 6) }]) }, FULL)
    assert.equal(store.read(viewA, [100]), undefined)
    assert.equal(store.read(viewB, [100]), undefined)
  })

  test('a full store leaves what it holds unchanged when it refuses a write', () => {
    const store = fullStore()
    expectError(() => store.write(viewA, [{ id: 100, f: 'a longer value than the stored one' }, ...rows(300, 1)]), FULL)
    assert.equal(store.read(viewA, [100])?.values.f, 'ten chars!')
    assert.equal(store.read(viewA, [300]), undefined)
  })

  test('overwrites of stored keys with values no larger pass at the bound; a new key, or a much larger value, is still refused', () => {
    const store = fullStore()
    assert.equal(store.write(viewA, rows(100, 10, 'new value!')), 10)
    assert.equal(store.write(viewA, [{ id: 100, f: 'short' }]), 1)
    assert.deepEqual([store.read(viewA, [100])?.values.f, store.read(viewA, [109])?.values.f], ['short', 'new value!'])
    expectError(() => store.write(viewA, rows(200, 1)), FULL)
    expectError(() => store.write(viewA, [{ id: 101, f: 'x'.repeat(200) }]), FULL)
    assert.equal(store.read(viewA, [101])?.values.f, 'new value!')
  })

  test('sample rows that do not fit are refused when the store is created, with what all the views\' rows take and how to raise the bound', () => {
    // Two views of six rows of 343 bytes: each view's alone would fit 3,600, both take 4,116.
    const sampled = loadYamlCatalogFile({
      yaml: 'project: p\nfeature_views:\n  - {name: a, entities: [id], features: [f]}\n  - {name: b, entities: [id], features: [f]}\nsample_rows:\n' +
        ['a', 'b'].map((view) => `  ${view}:\n${[1, 2, 3, 4, 5, 6].map((id) => `    - {id: ${id}, f: "ten chars!"}\n`).join('')}`).join(''),
      source: 'registry.yaml'
    })
    expectError(() => createOnlineStore(sampled, { maxBytes: 3600 }), {
      type: SampleRowsOverBound,
      option: 'maxBytes',
      message: /^feast-authz: createOnlineStore: the registry's sample rows of project "p" take 4,116 bytes in the online store, over its bound of 3,600 \(maxBytes; .*\): raise maxBytes, or give fewer sample rows$/
    })
    assert.equal(createOnlineStore(sampled, { maxBytes: 4116 }).read(viewB, [6])?.values.f, 'ten chars!')
  })

  // The constant, not a store filled to it: a 64 MiB row costs a test time and memory, and the
  // behaviour at the bound is the same for any bound (tested above and in routes.test.ts).
  test('the bound is 64 MiB unless maxBytes is given', () => {
    assert.equal(DEFAULT_MAX_BYTES, 64 * 1024 * 1024)
  })

  test('maxBytes must be a positive integer: anything else is an OptionError naming it', () => {
    for (const maxBytes of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '1000', null]) {
      expectError(() => createOnlineStore(registry, { maxBytes } as unknown as OnlineStoreOptions), {
        type: OptionError, option: 'maxBytes', message: /^feast-authz: createOnlineStore: maxBytes must be a positive whole number of bytes \(default 67108864\), got /
      })
    }
    expectError(() => createOnlineStore(registry, null as unknown as OnlineStoreOptions), { type: OptionError, option: 'options', message: /options must be an object/ })
  })
})
