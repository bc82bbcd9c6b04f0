import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { after, describe, it } from 'node:test'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ConfigError } from '../../src/config/errors.ts'
import { fromBase64, readFeatureStoreFile } from '../../src/config/feature-store-file.ts'
import { namesFeastRegistry } from '../../src/registry/config.ts'
import { openRegistryFromConfig, readRegistrySetting } from '../../src/registry/index.ts'
import { SAMPLE_REGISTRY, tempDir } from '../helpers/registry-builder.ts'
import { expectError } from '../helpers/errors.ts'

const { dir, cleanup } = tempDir()
after(cleanup)

function yamlFile (name: string, text: string): string {
  const path = join(dir, name)
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
  return path
}

function setting (text: string, cwd = '/work') {
  return readRegistrySetting(readFeatureStoreFile({ yaml: text, source: join(dir, 'repo', 'feature_store.yaml') }), cwd)
}

function refused (text: string, pattern: RegExp): void {
  expectError(() => setting(text), { type: ConfigError, message: pattern })
}

describe('the registry setting of feature_store.yaml', () => {
  it('takes a path string and resolves a relative one against the yaml file\'s directory', () => {
    assert.deepEqual(setting('project: demo\nregistry: data/registry.db\n'), { path: join(dir, 'repo', 'data', 'registry.db'), project: 'demo', cacheTtlSeconds: 600 })
  })

  it('keeps an absolute path as it is', () => {
    assert.equal(setting('project: demo\nregistry: /srv/feast/registry.db\n')?.path, '/srv/feast/registry.db')
  })

  it('takes the object form with registry_type file, path and cache_ttl_seconds', () => {
    assert.deepEqual(setting('project: demo\nregistry:\n  registry_type: file\n  path: reg.db\n  cache_ttl_seconds: 60\n'), { path: join(dir, 'repo', 'reg.db'), project: 'demo', cacheTtlSeconds: 60 })
  })

  it('defaults registry_type to file and cache_ttl_seconds to 600, as Feast does', () => {
    assert.deepEqual(setting('project: demo\nregistry:\n  path: /r.db\n'), { path: '/r.db', project: 'demo', cacheTtlSeconds: 600 })
  })

  it('accepts cache_ttl_seconds 0 (re-read only when the file changes)', () => {
    assert.equal(setting('project: demo\nregistry:\n  path: /r.db\n  cache_ttl_seconds: 0\n')?.cacheTtlSeconds, 0)
  })

  it('accepts a file:// URL', () => {
    assert.equal(setting(`project: demo\nregistry: ${pathToFileURL('/srv/r.db').href}\n`)?.path, '/srv/r.db')
  })

  it('resolves a relative path against the working directory when the yaml came from FEATURE_STORE_YAML_BASE64', () => {
    const file = fromBase64(Buffer.from('project: demo\nregistry: data/registry.db\n').toString('base64'))
    assert.equal(readRegistrySetting(file, '/srv/app')?.path, '/srv/app/data/registry.db')
  })

  it('names a Feast registry for any path but a .yaml or .yml one (the reference server\'s format)', () => {
    const names = (registry: unknown): boolean => namesFeastRegistry(readFeatureStoreFile({ project: 'p', registry }))
    assert.equal(names('registry.yaml'), false)
    assert.equal(names({ path: 'data/REGISTRY.YML' }), false)
    assert.equal(names('data/registry.db'), true)
    assert.equal(names({ registry_type: 'sql', path: 'postgresql://db' }), true)
    assert.equal(names(undefined), false)
  })

  it('is absent when the file names no registry', () => {
    assert.equal(setting('project: demo\n'), undefined)
  })

  for (const type of ['sql', 'remote', 'snowflake.registry', 'my.module.CustomRegistry']) {
    it(`refuses registry_type ${type} as not supported yet, naming the type and what is supported`, () => {
      refused(`project: demo\nregistry:\n  registry_type: ${type}\n  path: x\n`, new RegExp(`registry\\.registry_type: registry type "${type.replace(/\./g, '\\.')}" is not supported yet \\(feast-authz reads file registries only`))
    })
  }

  for (const path of ['s3://bucket/registry.db', 'gs://bucket/registry.db', 'az://container/registry.db', 'hdfs://nn/registry.db']) {
    it(`refuses a file registry at ${path.split(':')[0]}:// as not supported yet`, () => {
      refused(`project: demo\nregistry: ${path}\n`, /registry: a registry at \w+:\/\/ is not supported yet/)
      refused(`project: demo\nregistry:\n  registry_type: file\n  path: ${path}\n`, /registry\.path: a registry at \w+:\/\/ is not supported yet/)
    })
  }

  it('refuses another registry store type', () => {
    refused('project: demo\nregistry:\n  path: /r.db\n  registry_store_type: S3RegistryStore\n', /registry_store_type: registry store "S3RegistryStore" is not supported yet/)
  })

  it('points at the line of the unsupported type', () => {
    refused('project: demo\nregistry:\n  registry_type: sql\n  path: postgresql://db\n', /feature_store\.yaml:3:3: registry\.registry_type/)
  })

  it('refuses a registry without a path', () => {
    refused('project: demo\nregistry:\n  registry_type: file\n', /registry\.path: expected the path of the registry file, got nothing/)
  })

  it('refuses a negative or fractional cache_ttl_seconds', () => {
    refused('project: demo\nregistry:\n  path: /r.db\n  cache_ttl_seconds: -1\n', /cache_ttl_seconds: expected a whole number of seconds >= 0, got -1/)
    refused('project: demo\nregistry:\n  path: /r.db\n  cache_ttl_seconds: 1.5\n', /got 1\.5/)
  })

  it('refuses a registry without a project', () => {
    refused('registry: /r.db\n', /project: expected the project name/)
  })
})

describe('opening the registry a feature_store.yaml names', () => {
  it('opens the file and serves its project', () => {
    const path = yamlFile('store/feature_store.yaml', `project: credit_scoring_aws\nregistry:\n  path: ${SAMPLE_REGISTRY}\n  cache_ttl_seconds: 0\n`)
    const registry = openRegistryFromConfig(path, { pollIntervalMs: 0 })
    try {
      assert.equal(registry?.project, 'credit_scoring_aws')
      assert.equal(registry?.featureView('zipcode_features')?.name, 'zipcode_features')
    } finally {
      registry?.close()
    }
  })

  it('returns nothing when the file names no registry', () => {
    assert.equal(openRegistryFromConfig({ project: 'demo' }), undefined)
  })

  it('returns nothing for a .yaml or .yml path: that is the reference server\'s catalog, not a Feast registry', () => {
    assert.equal(openRegistryFromConfig({ project: 'demo', registry: 'registry.yaml' }), undefined)
    assert.equal(openRegistryFromConfig({ project: 'demo', registry: { path: 'data/REGISTRY.YML' } }), undefined)
  })

  it('fails at startup, naming the file, when the registry file does not exist', () => {
    const path = yamlFile('missing/feature_store.yaml', 'project: demo\nregistry: data/registry.db\n')
    assert.throws(() => openRegistryFromConfig(path), (error: unknown) => error instanceof ConfigError &&
      error.message === `${join(dir, 'missing', 'data', 'registry.db')}: cannot read the Feast registry: file not found`)
  })
})
