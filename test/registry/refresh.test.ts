import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { after, describe, it } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { ConfigError } from '../../src/config/errors.ts'
import type { AuthLogger } from '../../src/base/logging.ts'
import { decide } from '../../src/permissions/decide.ts'
import { permission, roleBasedPolicy } from '../../src/permissions/define.ts'
import type { Resource } from '../../src/permissions/model.ts'
import { createPrincipal } from '../../src/base/principal.ts'
import { loadRegistryFile, openFeastRegistry, type FeastRegistry } from '../../src/registry/index.ts'
import { writeFeastRegistry } from '../helpers/feast-registry-writer.ts'
import { registryBytes, replaceFile, SAMPLE_REGISTRY, tempDir } from '../helpers/registry-builder.ts'
import { captureLogs } from '../helpers/logs.ts'
import { namedPipe } from '../helpers/named-pipe.ts'

const { dir, cleanup } = tempDir()
const opened: FeastRegistry[] = []
after(() => {
  for (const registry of opened) registry.close()
  cleanup()
})

const READERS = permission({ name: 'readers', types: ['FeatureView'], actions: ['DESCRIBE', 'READ_ONLINE'], policy: roleBasedPolicy(['reader']) })
const WRITERS = permission({ name: 'writers', types: ['FeatureView'], actions: ['WRITE_ONLINE'], policy: roleBasedPolicy(['writer']) })
const VIEW: Resource = { type: 'FeatureView', name: 'driver_stats', project: 'demo' }
const reader = createPrincipal({ username: 'r', roles: ['reader'], source: 'oidc' })
const stranger = createPrincipal({ username: 's', roles: [], source: 'oidc' })

let counter = 0
function registryFile (bytes: Uint8Array | string): string {
  const path = join(dir, `registry-${counter++}.db`)
  writeFileSync(path, bytes)
  return path
}

function open (path: string, logger?: AuthLogger, extra: { pollIntervalMs?: number, cacheTtlSeconds?: number } = {}): FeastRegistry {
  const registry = openFeastRegistry({ path, project: 'demo', pollIntervalMs: 0, cacheTtlSeconds: 0, ...(logger === undefined ? {} : { logger }), ...extra })
  opened.push(registry)
  return registry
}

const allowed = (registry: FeastRegistry, principal = stranger): boolean => decide(registry.permissionsFor(), principal, VIEW, ['DESCRIBE']).allowed

function startupFailure (path: string, pattern: RegExp): void {
  assert.throws(() => open(path), (error: unknown) => error instanceof ConfigError && error.message.startsWith(`${path}: `) && pattern.test(error.message))
}

describe('a registry file that cannot be used at startup is a startup error naming the file', () => {
  it('an empty file', () => {
    startupFailure(registryFile(''), /cannot use the Feast registry: the file is empty/)
  })

  it('a missing file', () => {
    startupFailure(join(dir, 'nope.db'), /cannot read the Feast registry: file not found/)
  })

  it('a directory', () => {
    const path = join(dir, 'a-directory.db')
    mkdirSync(path)
    startupFailure(path, /is a directory, expected a file/)
  })

  it('a named pipe, refused instead of waiting for a writer', () => {
    const pipe = namedPipe(dir, 'a-pipe.db')
    try {
      startupFailure(pipe.path, /cannot read the Feast registry: is a named pipe \(FIFO\), expected a file$/)
    } finally {
      pipe.close()
    }
  })

  for (const [label, bytes] of [
    ['text', 'project: demo\nregistry: data/registry.db\n'],
    ['JSON', '{"permissions": []}'],
    ['zero bytes', Buffer.alloc(64)],
    ['a PNG header', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')]
  ] as const) {
    it(`a garbage file (${label})`, () => {
      startupFailure(registryFile(bytes), /cannot use the Feast registry: (not a serialized feast\.core\.Registry|the registry lists no projects)/)
    })
  }

  it('a registry that does not list the configured project', () => {
    startupFailure(registryFile(registryBytes({ projects: ['other'] })), /the registry has no project "demo" \(it has "other"\); check `project` in feature_store\.yaml/)
  })

  it('a registry that lacks the configured project but holds one spelt nearly so, naming it', () => {
    startupFailure(registryFile(registryBytes({ projects: ['other', 'demos'] })), /the registry has no project "demo" \(did you mean demos\?\) \(it has "other", "demos"\)/)
  })

  it('a registry of many projects names ten of them and counts the rest', () => {
    const projects = Array.from({ length: 25 }, (_, index) => `team_${index}`)
    startupFailure(registryFile(registryBytes({ projects })), /\(it has "team_0", "team_1", .*"team_9" and 15 more\); check `project`/)
  })

  it('a registry that lists no projects at all', () => {
    startupFailure(registryFile(registryBytes({ projects: [], permissions: { demo: [READERS] } })), /the registry lists no projects/)
  })

  it('a registry with an invalid permission', () => {
    const bad = { spec: { name: 'broken', project: 'demo', actions: [], policy: { role_based_policy: { roles: ['r'] } } } }
    startupFailure(registryFile(registryBytes({ rawPermissions: [bad] })), /permission \[0\] "broken": actions: the permission lists no actions/)
  })

  it('a registry from Feast older than 0.41 (project_metadata, no project list), saying what to do', () => {
    const old = writeFeastRegistry({ version_id: 'v040', project_metadata: [{ project: 'demo', project_uuid: 'u-1' }], permissions: [] })
    startupFailure(registryFile(old), /only the project_metadata of Feast older than 0\.41; .*run `feast apply` with Feast 0\.41 or newer/)
  })

  it('a registry with an invalid permission, named by project, name and index', () => {
    const good = { spec: { name: 'fine', project: 'demo', actions: ['DESCRIBE'], policy: { role_based_policy: { roles: ['r'] } } } }
    const bad = { spec: { name: 'bad-pattern', project: 'demo', name_patterns: ['driver_.*', '(unclosed'], actions: ['DESCRIBE'], policy: { role_based_policy: { roles: ['reader'] } } } }
    const bytes = writeFeastRegistry({ permissions: [good, bad], projects: [{ spec: { name: 'demo' } }] })
    startupFailure(registryFile(bytes), /project "demo": permission \[1\] "bad-pattern": name_patterns\[1\]: .*not a valid regular expression/)
  })

  it('a registry whose decoded form would exceed the memory budget', () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] }, featureViews: Array.from({ length: 50 }, (_, i) => ({ name: `view_${i}`, project: 'demo' })) }))
    assert.throws(() => openFeastRegistry({ path, project: 'demo', maxDecodedBytes: 20_000, pollIntervalMs: 0 }),
      (error: unknown) => error instanceof ConfigError && /cannot use the Feast registry: the registry is too large to decode: decoding it would take more than the 20000 bytes of memory allowed \(maxDecodedBytes/.test(error.message))
  })

  it('a file larger than the limit', () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    assert.throws(() => openFeastRegistry({ path, project: 'demo', maxBytes: 10, pollIntervalMs: 0 }), /larger than the 10 bytes accepted/)
  })
})

describe('a truncated registry file never loads with fewer permissions', () => {
  it('every prefix of a registry with permissions is refused, or carries all of them', () => {
    const bytes = registryBytes({ projects: ['demo', 'zzz'], permissions: { demo: [READERS, WRITERS] }, featureViews: [{ name: 'driver_stats', project: 'demo' }] })
    const path = join(dir, 'truncated.db')
    let loaded = 0
    for (let length = 1; length < bytes.length; length++) {
      writeFileSync(path, bytes.subarray(0, length))
      try {
        const snapshot = loadRegistryFile(path, 'demo')
        loaded++
        assert.equal(snapshot.projects.get('demo')?.permissions.length, 2, `prefix of ${length} bytes`)
      } catch (error) {
        assert.ok(error instanceof ConfigError, `prefix of ${length} bytes: ${String(error)}`)
      }
    }
    // Cut inside the second project's entry: the first (ours) is whole, and so are the permissions before it.
    assert.ok(loaded > 0)
  })
})

describe('a registry with no permissions', () => {
  it('allows every authenticated user at startup, as Feast does (spec 5.6.3)', () => {
    const registry = open(registryFile(registryBytes({ permissions: {} })))
    assert.deepEqual(registry.permissionsFor(), [])
    assert.equal(decide(registry.permissionsFor(), stranger, VIEW, ['DESCRIBE']).noPermissionsDefined, true)
  })
})

describe('a registry replaced while serving', () => {
  it('serves the new permissions once re-read', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [WRITERS] } }))
    const registry = open(path)
    assert.equal(allowed(registry, reader), false)
    replaceFile(path, registryBytes({ permissions: { demo: [READERS] }, versionId: 'v2' }))
    assert.equal(await registry.refresh(), 'updated')
    assert.equal(allowed(registry, reader), true)
    assert.equal(allowed(registry, stranger), false)
    assert.equal(registry.current().versionId, 'v2')
  })

  it('is noticed by the change check, without a refresh call', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [WRITERS] } }))
    const registry = open(path, undefined, { pollIntervalMs: 25 })
    replaceFile(path, registryBytes({ permissions: { demo: [READERS] }, versionId: 'polled' }))
    for (let i = 0; i < 400 && registry.current().versionId !== 'polled'; i++) await delay(25)
    assert.equal(registry.current().versionId, 'polled')
  })

  it('is re-read every cache_ttl_seconds when change checks are off', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] }, versionId: 'aaaa' }))
    const registry = open(path, undefined, { pollIntervalMs: 0, cacheTtlSeconds: 1 })
    writeFileSync(path, registryBytes({ permissions: { demo: [READERS] }, versionId: 'bbbb' }))
    for (let i = 0; i < 200 && registry.current().versionId !== 'bbbb'; i++) await delay(50)
    assert.equal(registry.current().versionId, 'bbbb')
  })

  it('keeps the same version when the file is re-read with the same content', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] }, versionId: 'same' }))
    const registry = open(path)
    const first = registry.current()
    replaceFile(path, readFileSync(path))
    assert.equal(await registry.refresh(), 'unchanged')
    assert.equal(registry.current(), first)
  })

  it('keeps the last good registry and logs an error, once, when the new file is corrupt', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const { logger, at } = captureLogs()
    const registry = open(path, logger)
    replaceFile(path, Buffer.from('not a registry at all'))
    assert.equal(await registry.refresh(), 'rejected')
    assert.equal(await registry.refresh(), 'rejected')
    assert.deepEqual(registry.permissionsFor(), [READERS])
    assert.equal(allowed(registry, stranger), false)
    assert.equal(at('error').length, 1)
    assert.equal(at('error')[0]?.registry, path)
    assert.match(String(at('error')[0]?.error), /cannot use the Feast registry/)
    assert.match(at('error')[0]?.msg ?? '', /last good registry stays in force/)
  })

  it('keeps the last good registry and logs why when the new file would exceed the memory budget', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const { logger, at } = captureLogs()
    const registry = openFeastRegistry({ path, project: 'demo', pollIntervalMs: 0, cacheTtlSeconds: 0, logger, maxDecodedBytes: 40_000 })
    opened.push(registry)
    const first = registry.current()
    replaceFile(path, registryBytes({ permissions: { demo: [WRITERS] }, featureViews: Array.from({ length: 200 }, (_, i) => ({ name: `view_${i}`, project: 'demo' })) }))
    assert.equal(await registry.refresh(), 'rejected')
    assert.equal(registry.current(), first)
    assert.deepEqual(registry.permissionsFor(), [READERS])
    assert.match(String(at('error')[0]?.error), /too large to decode: decoding it would take more than the 40000 bytes/)
    assert.equal(at('error')[0]?.inForce, 'test-version')
  })

  it('keeps the last good registry when the new file is truncated, and takes the next good one', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const registry = open(path, captureLogs().logger)
    const full = registryBytes({ permissions: { demo: [WRITERS] }, versionId: 'v3' })
    replaceFile(path, full.subarray(0, full.length - 5))
    assert.equal(await registry.refresh(), 'rejected')
    assert.deepEqual(registry.permissionsFor(), [READERS])
    replaceFile(path, full)
    assert.equal(await registry.refresh(), 'updated')
    assert.deepEqual(registry.permissionsFor(), [WRITERS])
  })

  it('keeps the last good registry when the new file is empty', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const registry = open(path, captureLogs().logger)
    replaceFile(path, '')
    assert.equal(await registry.refresh(), 'rejected')
    assert.equal(allowed(registry, stranger), false)
  })

  it('keeps the last good registry when the file disappears', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const { logger, at } = captureLogs()
    const registry = open(path, logger)
    rmSync(path)
    assert.equal(await registry.refresh(), 'rejected')
    assert.deepEqual(registry.permissionsFor(), [READERS])
    assert.match(String(at('error')[0]?.error), /file not found/)
  })

  it('keeps the last good registry when a named pipe takes the file\'s place, refusing it instead of waiting for a writer', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const { logger, at } = captureLogs()
    const registry = open(path, logger)
    rmSync(path)
    const pipe = namedPipe(dir, basename(path))
    try {
      assert.equal(await registry.refresh(), 'rejected')
      assert.deepEqual(registry.permissionsFor(), [READERS])
      assert.match(String(at('error')[0]?.error), /is a named pipe \(FIFO\), expected a file$/)
    } finally {
      pipe.close()
    }
  })

  it('keeps the last good registry when the new one no longer has the server\'s project', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const registry = open(path, captureLogs().logger)
    replaceFile(path, registryBytes({ projects: ['other'], permissions: { other: [] } }))
    assert.equal(await registry.refresh(), 'rejected')
    assert.deepEqual(registry.permissionsFor(), [READERS])
  })

  it('refuses a new registry whose permissions became empty, logging why, so access does not open', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS, WRITERS] } }))
    const { logger, at } = captureLogs()
    const registry = open(path, logger)
    replaceFile(path, registryBytes({ permissions: {}, versionId: 'emptied' }))
    assert.equal(await registry.refresh(), 'rejected')
    assert.deepEqual(registry.permissionsFor(), [READERS, WRITERS])
    assert.equal(allowed(registry, stranger), false)
    assert.notEqual(registry.current().versionId, 'emptied')
    assert.match(String(at('error')[0]?.error), /project "demo" had 2 permission\(s\) and now has none, which would allow every authenticated user; restart the server/)
  })

  it('refuses a project that left the registry and comes back without permissions, so two reloads cannot open it', async () => {
    const path = registryFile(registryBytes({ projects: ['demo', 'other'], permissions: { demo: [READERS], other: [READERS, WRITERS] } }))
    const { logger, at } = captureLogs()
    const registry = open(path, logger)
    replaceFile(path, registryBytes({ projects: ['demo'], permissions: { demo: [READERS] }, versionId: 'without-other' }))
    assert.equal(await registry.refresh(), 'updated')
    replaceFile(path, registryBytes({ projects: ['demo', 'other'], permissions: { demo: [READERS] }, versionId: 'other-open' }))
    assert.equal(await registry.refresh(), 'rejected')
    assert.equal(registry.current().versionId, 'without-other')
    assert.equal(decide(registry.permissionsFor('other'), reader, { ...VIEW, project: 'other' }, ['DESCRIBE']).allowed, false)
    assert.match(String(at('error')[0]?.error), /project "other" had 2 permission\(s\) before it left the registry and now has none/)
  })

  it('accepts a project that left the registry and comes back with permissions', async () => {
    const path = registryFile(registryBytes({ projects: ['demo', 'other'], permissions: { demo: [READERS], other: [READERS] } }))
    const registry = open(path)
    replaceFile(path, registryBytes({ projects: ['demo'], permissions: { demo: [READERS] }, versionId: 'without-other' }))
    assert.equal(await registry.refresh(), 'updated')
    replaceFile(path, registryBytes({ projects: ['demo', 'other'], permissions: { demo: [READERS], other: [WRITERS] }, versionId: 'other-back' }))
    assert.equal(await registry.refresh(), 'updated')
    assert.deepEqual(registry.permissionsFor('other'), [WRITERS])
  })

  it('accepts a registry whose permissions became empty when the server starts with it', () => {
    const path = registryFile(registryBytes({ permissions: {} }))
    assert.deepEqual(open(path).permissionsFor(), [])
  })

  it('serves one version or the next to a request, never a mix', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] }, featureViews: [{ name: 'old_view', project: 'demo' }] }))
    const registry = open(path)
    const before = registry.projectView()
    replaceFile(path, registryBytes({ permissions: { demo: [WRITERS] }, featureViews: [{ name: 'new_view', project: 'demo' }] }))
    assert.equal(await registry.refresh(), 'updated')
    // A request that took the project view before the swap keeps a consistent old version.
    assert.deepEqual(before?.permissions, [READERS])
    assert.equal(before?.find('FeatureView', 'old_view')?.name, 'old_view')
    assert.equal(registry.featureView('new_view')?.name, 'new_view')
    assert.equal(registry.featureView('old_view'), undefined)
  })
})

describe('the state of the file, for health checks', () => {
  it('is current at startup and after a reload that takes the new file', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const registry = open(path)
    assert.equal(registry.fileState(), 'current')
    replaceFile(path, registryBytes({ permissions: { demo: [WRITERS] }, versionId: 'next' }))
    assert.equal(await registry.refresh(), 'updated')
    assert.equal(registry.fileState(), 'current')
  })

  it('is unreadable while the file is gone, and current again when the same file is back', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const bytes = readFileSync(path)
    const registry = open(path)
    rmSync(path)
    assert.equal(await registry.refresh(), 'rejected')
    assert.equal(registry.fileState(), 'unreadable')
    replaceFile(path, bytes)
    assert.equal(await registry.refresh(), 'unchanged')
    assert.equal(registry.fileState(), 'current')
  })

  it('is unreadable when the file is not a serialized registry, the last good version still in force', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const registry = open(path)
    replaceFile(path, Buffer.from([0x0a, 0xff, 0xff]))
    assert.equal(await registry.refresh(), 'rejected')
    assert.equal(registry.fileState(), 'unreadable')
    assert.deepEqual(registry.permissionsFor(), [READERS])
  })

  it('stays unreadable on a later check of the same broken file, which is not read again', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const registry = open(path, undefined, { pollIntervalMs: 25 })
    replaceFile(path, Buffer.from([0x0a, 0xff, 0xff]))
    for (let i = 0; i < 400 && registry.fileState() === 'current'; i++) await delay(25)
    assert.equal(registry.fileState(), 'unreadable')
    await delay(100)
    assert.equal(registry.fileState(), 'unreadable')
  })

  it('is refused, not unreadable, when a file that reads would empty a project\'s permissions', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const registry = open(path)
    replaceFile(path, registryBytes({ permissions: {}, versionId: 'emptied' }))
    assert.equal(await registry.refresh(), 'rejected')
    assert.equal(registry.fileState(), 'refused')
  })

  it('is refused, not unreadable, when the file is emptied, which Feast reads as an empty registry', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const registry = open(path)
    replaceFile(path, '')
    assert.equal(await registry.refresh(), 'rejected')
    assert.equal(registry.fileState(), 'refused')
  })

  it('is refused when the file no longer has the server\'s project', async () => {
    const path = registryFile(registryBytes({ permissions: { demo: [READERS] } }))
    const registry = open(path)
    replaceFile(path, registryBytes({ projects: ['elsewhere'], permissions: {} }))
    assert.equal(await registry.refresh(), 'rejected')
    assert.equal(registry.fileState(), 'refused')
  })
})

describe('the UI sample registry as a live source', () => {
  it('loads from the fixtures kept in the repository', () => {
    assert.ok(readFileSync(SAMPLE_REGISTRY).length > 0)
    const registry = openFeastRegistry({ path: SAMPLE_REGISTRY, project: 'credit_scoring_aws', pollIntervalMs: 0 })
    opened.push(registry)
    assert.equal(registry.hasProject('credit_scoring_aws'), true)
  })
})

describe('watching the projects of a registry', () => {
  it('tells the projects at once, the server\'s own first, then in registry order', () => {
    const registry = open(registryFile(registryBytes({ projects: ['alpha', 'demo', 'beta'] })))
    const heard: Array<readonly string[]> = []
    registry.watchProjects((projects) => { heard.push(projects) })
    assert.deepEqual(heard, [['demo', 'alpha', 'beta']])
  })

  it('tells the projects of each new version when it is reloaded', async () => {
    const path = registryFile(registryBytes({ projects: ['demo'] }))
    const registry = open(path)
    const heard: Array<readonly string[]> = []
    registry.watchProjects((projects) => { heard.push(projects) })
    replaceFile(path, registryBytes({ projects: ['demo', 'late'], versionId: 'v2' }))
    assert.equal(await registry.refresh(), 'updated')
    assert.deepEqual(heard, [['demo'], ['demo', 'late']])
  })

  it('names a project that holds permissions but is missing from the project list', () => {
    const registry = open(registryFile(registryBytes({ projects: ['demo'], permissions: { unlisted: [READERS] } })))
    const heard: Array<readonly string[]> = []
    registry.watchProjects((projects) => { heard.push(projects) })
    assert.deepEqual(heard, [['demo', 'unlisted']])
  })

  it('tells a stopped watcher nothing more', async () => {
    const path = registryFile(registryBytes({ projects: ['demo'] }))
    const registry = open(path)
    let calls = 0
    const stop = registry.watchProjects(() => { calls++ })
    stop()
    replaceFile(path, registryBytes({ projects: ['demo', 'late'], versionId: 'v2' }))
    assert.equal(await registry.refresh(), 'updated')
    assert.equal(calls, 1)
  })

  it('takes a new version and tells its watchers when the logger throws, and a refused one still settles', async () => {
    const path = registryFile(registryBytes({ projects: ['demo'], permissions: { demo: [READERS] } }))
    const throwing = { ...captureLogs().logger, info: () => { throw new Error('log down') }, error: () => { throw new Error('log down') } }
    const registry = open(path, throwing as unknown as AuthLogger)
    const heard: Array<readonly string[]> = []
    registry.watchProjects((projects) => { heard.push(projects) })
    replaceFile(path, registryBytes({ projects: ['demo', 'late'], permissions: { demo: [READERS] }, versionId: 'v2' }))
    assert.equal(await registry.refresh(), 'updated')
    assert.equal(registry.current().versionId, 'v2')
    assert.deepEqual(heard.at(-1), ['demo', 'late'])
    rmSync(path)
    assert.equal(await registry.refresh(), 'rejected')
  })

  it('logs a watcher that throws, and the reload still counts', async () => {
    const path = registryFile(registryBytes({ projects: ['demo'] }))
    const { logger, at } = captureLogs()
    const registry = open(path, logger)
    let armed = false
    registry.watchProjects(() => { if (armed) throw new Error('watcher down') })
    armed = true
    replaceFile(path, registryBytes({ projects: ['demo', 'late'], versionId: 'v2' }))
    assert.equal(await registry.refresh(), 'updated')
    assert.equal(registry.current().versionId, 'v2')
    assert.equal(at('error').length, 1)
    assert.match(at('error')[0]?.msg ?? '', /a watcher of the registry's projects failed/)
  })
})
