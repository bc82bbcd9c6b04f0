import { resolve } from 'node:path'
import { unmatchedName } from '../../base/credential-shape.ts'
import { quotedNames } from '../../base/describe-value.ts'
import { ConfigError } from '../../config/errors.ts'
import { readFeatureStoreFile, type FeatureStoreFile } from '../../config/feature-store-file.ts'
import { warnOfUnsetReferences } from '../../config/unset-references.ts'
import type { Permission, Policy } from '../../permissions/model.ts'
import { isCatalogYamlPath, readRegistrySetting } from '../../registry/config.ts'
import { loadRegistryFile } from '../../registry/feast-registry.ts'
import type { RegistryResource } from '../../registry/resources.ts'
import type { RegistryProject, RegistrySnapshot } from '../../registry/snapshot.ts'
import { parseCommandArgs, reportUsage, subcommand } from '../args.ts'
import { configArgument, projectOfConfigFile } from '../inputs.ts'
import { createCliLogger } from '../cli-logger.ts'
import { EXIT, UsageError, type CliCommand } from '../io.ts'
import { usageLines } from '../help-text.ts'
import { oneLine } from '../terminal-text.ts'

const HELP = `${usageLines('registry show', ['[--config <feature_store.yaml>]', '[--registry <registry.db>]', '[--project <name>]', '[--json]'])}

Reads a Feast registry file and prints its projects, resources (with tags) and
permissions, as the server would enforce them: the file feature_store.yaml names
(\`registry\`), or the one --registry gives.

  --config    the store's feature_store.yaml (its \`registry\` and \`project\` settings;
              default: FEATURE_STORE_YAML_BASE64, then ./feature_store.yaml; with
              --registry, read only when given, for its \`project\`)
  --registry  a Feast registry file (registry.db, as \`feast apply\` writes it), read
              without a feature_store.yaml
  --project   show only this project (default: every project in the registry)
  --json      print JSON instead of tables

Exit 0 when the registry loads, 2 when it cannot be used (the reason is on stderr).
`

const FEAST_REGISTRY_HINT = '`registry show` reads the binary registry file Feast writes (registry.db): run `feast apply` in your feature repository and point --config at that feature_store.yaml, whose `registry` names the file, or --registry at the file.'

const OPTIONS = {
  config: { type: 'string' },
  registry: { type: 'string' },
  project: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' }
} as const

export const run: CliCommand = async (argv, io) => {
  let values: { project?: string | undefined, json?: boolean | undefined, registry?: string | undefined }
  let config: string | undefined
  try {
    const parsed = parseCommandArgs(argv, OPTIONS, 1)
    values = parsed.values
    if (parsed.values.help === true) { io.stdout(HELP); return EXIT.ok }
    subcommand(parsed.positionals[0], ['show'])
    // With --registry, no feature_store.yaml is needed: one is read only when --config names it.
    config = values.registry === undefined || parsed.values.config !== undefined ? configArgument(parsed.values.config, io.env) : undefined
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return reportUsage(io, 'registry', error)
  }

  let snapshot: RegistrySnapshot
  let home: string | undefined
  try {
    // feature_store.yaml is read once (for its registry, or for its project beside --registry), and not at all for --registry alone.
    const readConfig = (): FeatureStoreFile => {
      const file = readFeatureStoreFile(config, io.env)
      warnOfUnsetReferences(file, createCliLogger(io, 'registry').logger)
      return file
    }
    const shown = values.registry === undefined
      ? registryOfConfig(readConfig())
      : givenRegistry(values.registry, config === undefined ? undefined : readConfig())
    snapshot = shown.snapshot
    home = shown.home
  } catch (error) {
    if (error instanceof ConfigError) {
      const hint = error.message.includes('not a serialized') ? ` ${FEAST_REGISTRY_HINT}` : ''
      io.stderr(`feast-authz registry: ${error.message}${hint}\n`)
      return EXIT.usage
    }
    throw error
  }

  const wanted = values.project
  if (wanted !== undefined && !snapshot.projects.has(wanted)) {
    // A token pasted here would be printed: unmatchedName neither shows nor guesses at one.
    const names = [...snapshot.projects.keys()]
    io.stderr(`feast-authz registry: ${snapshot.path}: no project ${unmatchedName(wanted, names)} (it has ${quotedNames(names)})\n`)
    return EXIT.usage
  }
  const projects = [...snapshot.projects.values()].filter((project) => wanted === undefined || project.name === wanted)
  io.stdout(values.json === true ? `${JSON.stringify(toJSON(snapshot, home, projects), null, 2)}\n` : render(snapshot, home, projects))
  return EXIT.ok
}

/** What is shown: a registry, and the server's project when a feature_store.yaml names one. */
interface Shown {
  readonly snapshot: RegistrySnapshot
  readonly home: string | undefined
}

/** The registry feature_store.yaml names, for its project. */
function registryOfConfig (file: FeatureStoreFile): Shown {
  const setting = readRegistrySetting(file)
  // Often the registry file itself given as --config, or the server's file of the getting-started page.
  if (setting === undefined) throw new ConfigError('has no `registry` setting: nothing to show. --config takes the feature_store.yaml of your feature repository, whose `registry` names the file `feast apply` writes (registry: data/registry.db); or give the file with --registry', { source: file.source })
  return { snapshot: loadFeastRegistry(setting.path, setting.project), home: setting.project }
}

/** The registry --registry names, for the project of the feature_store.yaml --config names, if any. */
function givenRegistry (path: string, file: FeatureStoreFile | undefined): Shown {
  const home = file === undefined ? undefined : projectOfConfigFile(file)
  return { snapshot: loadFeastRegistry(resolve(path), home), home }
}

function loadFeastRegistry (path: string, project: string | undefined): RegistrySnapshot {
  if (isCatalogYamlPath(path)) throw new ConfigError(`is the reference server's YAML registry (for \`feast-authz serve\`), not a Feast registry file. ${FEAST_REGISTRY_HINT}`, { source: path })
  return loadRegistryFile(path, project)
}

/** The permission in Feast's snake_case names, as a permissions YAML file writes it. */
export function permissionToJSON (permission: Permission): Record<string, unknown> {
  return {
    name: permission.name,
    types: permission.types,
    name_patterns: permission.namePatterns,
    required_tags: { ...permission.requiredTags },
    actions: permission.actions,
    policy: policyToJSON(permission.policy),
    ...(permission.tags === undefined ? {} : { tags: { ...permission.tags } })
  }
}

function policyToJSON (policy: Policy): Record<string, unknown> {
  switch (policy.kind) {
    case 'role': return { role_based_policy: { roles: policy.roles } }
    case 'group': return { group_based_policy: { groups: policy.groups } }
    case 'namespace': return { namespace_based_policy: { namespaces: policy.namespaces } }
    case 'combined': return { combined_group_namespace_policy: { groups: policy.groups, namespaces: policy.namespaces } }
    case 'allow_all': return { allow_all: true }
  }
}

function toJSON (snapshot: RegistrySnapshot, home: string | undefined, projects: readonly RegistryProject[]): Record<string, unknown> {
  return {
    registry: snapshot.path,
    ...(snapshot.versionId === undefined ? {} : { version_id: snapshot.versionId }),
    ...(snapshot.lastUpdated === undefined ? {} : { last_updated: snapshot.lastUpdated.toISOString() }),
    ...(home === undefined ? {} : { project: home }),
    projects: projects.map((project) => ({
      name: project.name,
      resources: project.resources.map((resource) => ({ ...resource, tags: { ...resource.tags } })),
      permissions: project.permissions.map(permissionToJSON)
    }))
  }
}

function render (snapshot: RegistrySnapshot, home: string | undefined, projects: readonly RegistryProject[]): string {
  const lines = [`Registry  ${snapshot.path}`]
  if (snapshot.versionId !== undefined || snapshot.lastUpdated !== undefined) {
    lines.push(`Version   ${snapshot.versionId ?? '-'}${snapshot.lastUpdated === undefined ? '' : ` (last updated ${snapshot.lastUpdated.toISOString()})`}`)
  }
  if (home !== undefined) lines.push(`Project   ${home} (feature_store.yaml)`)
  for (const project of projects) {
    lines.push('', `== Project ${project.name}${project.name === home ? ' (the server\'s project)' : ''}`, '', 'Resources')
    lines.push(...indent(table(['TYPE', 'NAME', 'TAGS', 'DETAILS'], project.resources.map((resource) => [resource.type, resource.name, tagText(resource.tags), details(resource)]))))
    lines.push('', 'Permissions')
    if (project.permissions.length === 0) {
      lines.push('  (none: every authenticated user is allowed everything in this project, as in Feast; the server logs a warning)')
    } else {
      lines.push(...indent(table(['NAME', 'TYPES', 'NAME PATTERNS', 'REQUIRED TAGS', 'ACTIONS', 'POLICY'], project.permissions.map((permission) => [
        permission.name,
        permission.types.length === 12 ? 'all types' : permission.types.join(', '),
        permission.namePatterns.length === 0 ? 'any name' : permission.namePatterns.join(' | '),
        tagText(permission.requiredTags),
        permission.actions.length === 8 ? 'ALL_ACTIONS' : permission.actions.join(', '),
        policyText(permission.policy)
      ]))))
    }
  }
  // Names, tags and patterns are the registry's: one line each, whatever they hold.
  return `${lines.map(oneLine).join('\n')}\n`
}

function details (resource: RegistryResource): string {
  const parts: string[] = []
  switch (resource.type) {
    case 'FeatureView': case 'BatchFeatureView': case 'StreamFeatureView': case 'OnDemandFeatureView':
      parts.push(`features: ${resource.features.join(', ')}`)
      if (resource.entities.length > 0) parts.push(`entities: ${resource.entities.join(', ')}`)
      if (resource.batchSource !== undefined) parts.push(`batch source: ${resource.batchSource}`)
      if (resource.pushSource !== undefined) parts.push(`push source: ${resource.pushSource}`)
      else if (resource.streamSource !== undefined) parts.push(`stream source: ${resource.streamSource}`)
      if (resource.sources !== undefined && resource.sources.length > 0) {
        const { sourceAliases: aliases, sourceJoinKeyMaps: maps } = resource
        parts.push(`sources: ${resource.sources.map((source) => projectionText(source, ofSource(aliases, source), ofSource(maps, source))).join(', ')}`)
      }
      if (resource.requestSources !== undefined) parts.push(`request sources: ${resource.requestSources.join(', ')}`)
      if (resource.disabled === true) parts.push('disabled')
      if (resource.unservedState !== undefined) parts.push(`state: ${resource.unservedState} (not served online)`)
      break
    case 'LabelView':
      parts.push(`features: ${resource.features.join(', ')}`)
      if (resource.entities.length > 0) parts.push(`entities: ${resource.entities.join(', ')}`)
      if (resource.pushSource !== undefined) parts.push(`push source: ${resource.pushSource}`)
      else if (resource.source !== undefined) parts.push(`source: ${resource.source}`)
      break
    case 'ValidationReference':
      if (resource.referenceDataset !== undefined) parts.push(`reference dataset: ${resource.referenceDataset}`)
      break
    case 'FeatureService':
      parts.push(resource.projections.map((projection) => projectionText(projection.featureView, projection.alias, projection.joinKeyMap, projection.features)).join(', '))
      break
    case 'Entity':
      if (resource.joinKey !== undefined) parts.push(`join key: ${resource.joinKey}`)
      break
    case 'DataSource':
      if (resource.sourceClass !== undefined) parts.push(resource.sourceClass.split('.').pop() ?? resource.sourceClass)
      if (resource.batchSource !== undefined) parts.push(`batch source: ${resource.batchSource}`)
      break
    case 'SavedDataset':
      if (resource.featureService !== undefined) parts.push(`feature service: ${resource.featureService}`)
      break
    default:
      break
  }
  return parts.join('; ')
}

/**
 * A view as a projection reads it, a feature service's or an on-demand view's source: the view,
 * the alias it is shown under (Feast's `with_name`), the features taken, and the join_key_map
 * (Feast's `with_join_key_map`: a join key of the view = the request column it is read from).
 */
function projectionText (
  view: string, alias: string | undefined, joinKeyMap: Readonly<Record<string, string>> | undefined, features?: readonly string[]
): string {
  const shown = alias === undefined ? view : `${view} as ${alias}`
  const taken = features === undefined ? '' : `[${features.join(', ')}]`
  const keys = joinKeyMap === undefined ? '' : ` (join_key_map: ${tagText(joinKeyMap)})`
  return `${shown}${taken}${keys}`
}

/** What an on-demand view gives one of its sources (an alias, a join_key_map), if anything. */
function ofSource<T> (bySource: Readonly<Record<string, T>> | undefined, source: string): T | undefined {
  return bySource !== undefined && Object.hasOwn(bySource, source) ? bySource[source] : undefined
}

function policyText (policy: Policy): string {
  switch (policy.kind) {
    case 'role': return `roles: ${policy.roles.join(', ') || '(none)'}`
    case 'group': return `groups: ${policy.groups.join(', ') || '(none)'}`
    case 'namespace': return `namespaces: ${policy.namespaces.join(', ') || '(none)'}`
    case 'combined': return `groups: ${policy.groups.join(', ') || '(none)'} or namespaces: ${policy.namespaces.join(', ') || '(none)'}`
    case 'allow_all': return 'allow all'
  }
}

function tagText (tags: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(tags ?? {})
  return entries.length === 0 ? '-' : entries.map(([key, value]) => `${key}=${value}`).join(', ')
}

function table (header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  if (rows.length === 0) return ['(none)']
  // Escaped before measuring, so that a column holds its width.
  const shown = rows.map((row) => row.map(oneLine))
  const widths = header.map((title, i) => Math.max(title.length, ...shown.map((row) => (row[i] ?? '').length)))
  const line = (cells: readonly string[]): string => cells.map((cell, i) => i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()
  return [line(header), ...shown.map(line)]
}

function indent (lines: readonly string[]): string[] {
  return lines.map((line) => `  ${line}`)
}
