import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ConfigError } from '../../src/config/errors.ts'
import { readFeatureStoreFile } from '../../src/config/feature-store-file.ts'
import { requireStoreProject, storeProject } from '../../src/config/store-project.ts'

const fileWith = (projectLine: string): ReturnType<typeof readFeatureStoreFile> =>
  readFeatureStoreFile({ yaml: `auth:\n  type: no_auth\n${projectLine}\n`, source: 'stores/feature_store.yaml' })

describe('storeProject: the project a feature_store.yaml names, as Feast takes it', () => {
  test('returns a name of letters, digits, underscores and hyphens as written', () => {
    for (const name of ['credit_scoring', 'driver-ranking', 'p1', '1st_store', 'Kredit_Prüfung', 'проект', '項目2']) {
      assert.equal(storeProject(fileWith(`project: ${name}`)), name)
    }
  })

  test('returns undefined for a file that names no project (absent, null or empty, which Feast lets through)', () => {
    for (const line of ['', 'project:', 'project: null', 'project: ""']) {
      assert.equal(storeProject(fileWith(line)), undefined, line)
    }
  })

  test('refuses a name Feast refuses, at the file, line and field, showing the value', () => {
    const refused: ReadonlyArray<readonly [string, string]> = [
      ['"my project"', '"my project"'],
      ['" bench"', '" bench"'],
      ['_private', '"_private"'],
      ['-store', '"-store"'],
      ['feast.demo', '"feast.demo"'],
      ['demo/prod', '"demo/prod"'],
      ['"e\u0301t\u00e9"', '"e\u0301t\u00e9"']
    ]
    for (const [written, shown] of refused) {
      assert.throws(() => storeProject(fileWith(`project: ${written}`)), (error: unknown) => {
        assert.ok(error instanceof ConfigError)
        assert.equal(error.message, `stores/feature_store.yaml:3:1: project: expected a project name as Feast takes it (letters, digits, _ and -, not starting with _ or -), got ${shown}`)
        return true
      }, written)
    }
  })

  test('refuses a project that is not a string, saying what it is', () => {
    assert.throws(() => storeProject(fileWith('project: 42')), /:3:1: project: expected a project name as Feast takes it .*, got 42$/)
    assert.throws(() => storeProject(fileWith('project: [a]')), /:3:1: project: expected a project name as Feast takes it .*, got a list$/)
  })
})

describe('requireStoreProject: a project the caller needs', () => {
  test('returns the project when the file names one', () => {
    assert.equal(requireStoreProject(fileWith('project: demo'), 'the registry is read for it'), 'demo')
  })

  test('refuses a file that names none, saying why it is needed', () => {
    assert.throws(() => requireStoreProject(fileWith(''), 'the registry is read for it'),
      { name: 'ConfigError', message: 'stores/feature_store.yaml: project: expected the project name: the registry is read for it' })
  })
})
