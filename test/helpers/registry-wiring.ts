/**
 * Shared pieces of the registry-wiring tests: a store directory holding feature_store.yaml and a
 * Feast registry file built with `encodeRegistry`, the permissions it holds, users with tokens
 * from a real OpenID provider, and how long to wait for a reload.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { EventuallyOptions } from './eventually.ts'
import { permission, roleBasedPolicy } from '../../src/permissions/define.ts'
import { after, before } from 'node:test'
import { startOidcProvider, type TestProvider } from './oidc-provider.ts'
import { registryBytes, type RegistryContent } from './registry-builder.ts'

/** Home project: readers may describe and read feature views. */
export const READERS = permission({ name: 'readers', types: ['FeatureView'], actions: ['DESCRIBE', 'READ_ONLINE'], policy: roleBasedPolicy(['reader']) })
/** Project `other`: only auditors may describe its feature views. */
export const AUDITORS = permission({ name: 'auditors', types: ['FeatureView'], actions: ['DESCRIBE'], policy: roleBasedPolicy(['auditor']) })
/** What replaces READERS in a new version of the file: writers instead of readers. */
export const WRITERS = permission({ name: 'writers', types: ['FeatureView'], actions: ['DESCRIBE', 'READ_ONLINE'], policy: roleBasedPolicy(['writer']) })

/** Two projects, each with a feature view and its own permissions. */
export const TWO_PROJECTS: RegistryContent = {
  projects: ['demo', 'other'],
  featureViews: [
    { name: 'driver_stats', project: 'demo', features: ['conv_rate'], tags: { team: 'drivers' } },
    { name: 'audit_log', project: 'other', features: ['events'] }
  ],
  permissions: { demo: [READERS], other: [AUDITORS] }
}

export type User = 'reader' | 'writer' | 'auditor' | 'stranger'

/** A real token per user, with the user's roles in `resource_access.<client>.roles`. */
export async function issueTokens (provider: TestProvider): Promise<Record<User, string>> {
  const withRoles = async (username: string, roles: string[]): Promise<string> =>
    await provider.issue({ preferred_username: username, resource_access: { [provider.clientId]: { roles } } })
  return {
    reader: await withRoles('rita', ['reader']),
    writer: await withRoles('walt', ['writer']),
    auditor: await withRoles('ada', ['auditor']),
    stranger: await withRoles('sam', [])
  }
}

/** What {@link useUsers} gives: read inside tests and hooks only. */
export interface Users {
  readonly provider: TestProvider
  readonly tokens: Record<User, string>
  /** What a test opened (servers, store directories), closed after the suite, last first, before the provider. */
  readonly cleanups: Array<() => Promise<void> | void>
}

/** Starts a real provider and issues a token per user before the suite's tests; cleans up after them. */
export function useUsers (): Users {
  let provider: TestProvider | undefined
  let tokens: Record<User, string> | undefined
  const cleanups: Array<() => Promise<void> | void> = []
  before(async () => {
    provider = await startOidcProvider()
    tokens = await issueTokens(provider)
  })
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
    await provider?.close()
  })
  const started = <T> (value: T | undefined): T => {
    if (value === undefined) throw new Error('useUsers: the provider starts in the suite\'s before hook; use it inside a test')
    return value
  }
  return {
    get provider () { return started(provider) },
    get tokens () { return started(tokens) },
    cleanups
  }
}

export interface StoreDir {
  readonly dir: string
  /** `<dir>/feature_store.yaml`, naming `registry.db` by a relative path. */
  readonly config: string
  /** `<dir>/registry.db`. */
  readonly registry: string
  cleanup (): void
}

/** A store directory: feature_store.yaml (`auth` as given, `project: demo`) and registry.db holding `content`. */
export function storeDir (auth: Record<string, unknown>, content: RegistryContent = TWO_PROJECTS, registrySetting: unknown = 'registry.db'): StoreDir {
  const dir = mkdtempSync(join(tmpdir(), 'feast-authz-wiring-'))
  const config = join(dir, 'feature_store.yaml')
  const registry = join(dir, 'registry.db')
  writeFileSync(registry, registryBytes(content))
  writeFileSync(config, JSON.stringify({ project: 'demo', registry: registrySetting, auth }, null, 2))
  return { dir, config, registry, cleanup: () => { rmSync(dir, { recursive: true, force: true }) } }
}

/** How {@link eventually} waits for a reload: the registry is checked for changes every second. */
export const RELOAD_WAIT: EventuallyOptions = { timeoutMs: 15_000, intervalMs: 100 }
