/**
 * Builds registry files for tests through the same schema the loader decodes with
 * (`encodeRegistry`), from permission-model objects.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Permission, Policy } from '../../src/permissions/model.ts'
import { encodeRegistry } from '../../src/registry/encode.ts'
import { ACTION_NUMBERS, PERMISSION_TYPE_NUMBERS } from '../../src/registry/schema.ts'

export const FIXTURES = new URL('../../fixtures/feast-registry/', import.meta.url).pathname
export const SAMPLE_REGISTRY = join(FIXTURES, 'ui-sample-registry.db')
export const RAG_REGISTRY = join(FIXTURES, 'ui-rag-registry.db')

export function policyMessage (policy: Policy): Record<string, unknown> {
  switch (policy.kind) {
    case 'role': return { role_based_policy: { roles: [...policy.roles] } }
    case 'group': return { group_based_policy: { groups: [...policy.groups] } }
    case 'namespace': return { namespace_based_policy: { namespaces: [...policy.namespaces] } }
    case 'combined': return { combined_group_namespace_policy: { groups: [...policy.groups], namespaces: [...policy.namespaces] } }
    // What Feast writes for AllowAll: an empty Policy message.
    case 'allow_all': return {}
  }
}

/** A `feast.core.Permission` message for `permission` in `project`, as `feast apply` writes it. */
export function permissionMessage (permission: Permission, project: string): Record<string, unknown> {
  return {
    spec: {
      name: permission.name,
      project,
      types: permission.types.map((type) => PERMISSION_TYPE_NUMBERS.indexOf(type)),
      name_patterns: [...permission.namePatterns],
      required_tags: { ...permission.requiredTags },
      actions: permission.actions.map((action) => ACTION_NUMBERS.indexOf(action)),
      policy: policyMessage(permission.policy),
      ...(permission.tags === undefined ? {} : { tags: { ...permission.tags } })
    }
  }
}

export interface RegistryContent {
  readonly projects?: readonly string[]
  /** Permissions per project. */
  readonly permissions?: Readonly<Record<string, readonly Permission[]>>
  /** Extra raw permission messages, appended as they are. */
  readonly rawPermissions?: readonly Record<string, unknown>[]
  readonly featureViews?: readonly { name: string, project: string, tags?: Record<string, string>, features?: string[], pushSource?: string }[]
  readonly versionId?: string
}

export function registryBytes (content: RegistryContent): Uint8Array {
  const projects = content.projects ?? ['demo']
  return encodeRegistry({
    version_id: content.versionId ?? 'test-version',
    projects: projects.map((name) => ({ spec: { name } })),
    // The entity the views take, in each project (Feast's Entity(name="driver"): its join key is its name).
    entities: projects.map((project) => ({ spec: { name: 'driver', join_key: 'driver', project } })),
    feature_views: (content.featureViews ?? []).map((view) => ({
      spec: {
        name: view.name,
        project: view.project,
        entities: ['driver'],
        features: (view.features ?? ['f']).map((name) => ({ name })),
        tags: view.tags ?? {},
        batch_source: { name: `${view.name}_source`, type: 1 },
        ...(view.pushSource === undefined ? {} : { stream_source: { name: view.pushSource, type: 9, batch_source: { name: `${view.name}_source` } } }),
        online: true
      }
    })),
    permissions: [
      ...Object.entries(content.permissions ?? {}).flatMap(([project, list]) => list.map((permission) => permissionMessage(permission, project))),
      ...(content.rawPermissions ?? [])
    ]
  })
}

/** A temporary directory removed by `cleanup()`. */
export function tempDir (): { dir: string, cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'feast-authz-registry-'))
  return { dir, cleanup: () => { rmSync(dir, { recursive: true, force: true }) } }
}

/** Replaces `path` atomically (write elsewhere, then rename over it), as a careful deployer does. */
export function replaceFile (path: string, bytes: Uint8Array | string): void {
  const next = `${path}.next`
  writeFileSync(next, bytes)
  renameSync(next, path)
}
