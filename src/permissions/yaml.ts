import { isMap, isScalar, isSeq, stringify, type Document } from 'yaml'
import { describeKind, describeValue } from '../base/describe-value.ts'
import { didYouMean } from '../base/did-you-mean.ts'
import { readTextFile } from '../config/read-text-file.ts'
import { parseYamlDocument, type PositionOf } from '../config/yaml-document.ts'
import { buildPermission, type FieldNames, type PermissionInput } from './define.ts'
import { PermissionError } from './errors.ts'
import { ACTIONS, RESOURCE_TYPES, type Permission, type Policy } from './model.ts'
import { allowAll } from './policy.ts'

/*
 * A permissions file is a YAML list of permissions in Feast's snake_case names:
 *
 *   - name: feature-view-readers
 *     types: [FeatureView, OnDemandFeatureView]
 *     name_patterns: ["driver_.*"]
 *     required_tags: {team: drivers}
 *     actions: [DESCRIBE, READ]
 *     policy:
 *       role_based_policy: {roles: [reader]}
 *
 * `policy` holds exactly one of role_based_policy {roles}, group_based_policy {groups},
 * namespace_based_policy {namespaces}, combined_group_namespace_policy {groups, namespaces},
 * allow_all: true. Unknown keys are errors.
 */

const MAX_FILE_BYTES = 1024 * 1024
// A permissions file has no use for aliases; a few are tolerated, a "billion laughs" is not.
const MAX_ALIASES = 50
const YAML_FIELDS: FieldNames = {
  name: 'name', types: 'types', namePatterns: 'name_patterns', requiredTags: 'required_tags', actions: 'actions', policy: 'policy', tags: 'tags'
}
const PERMISSION_KEYS = ['name', 'types', 'name_patterns', 'required_tags', 'actions', 'policy', 'tags']
const POLICY_KEYS: Readonly<Record<string, readonly string[]>> = {
  role_based_policy: ['roles'],
  group_based_policy: ['groups'],
  namespace_based_policy: ['namespaces'],
  combined_group_namespace_policy: ['groups', 'namespaces'],
  allow_all: []
}

/** The slip of writing a policy's list straight under `policy:` (`roles: [reader]`): name the policy that holds it. */
function listNamedDirectly (key: string): string {
  const kind = Object.keys(POLICY_KEYS).find((name) => POLICY_KEYS[name]?.length === 1 && POLICY_KEYS[name][0] === key)
  return kind === undefined ? '' : ` (did you mean ${kind}: { ${key}: [...] }?)`
}

/**
 * Reads and validates a permissions YAML file. Throws a PermissionError naming the file, the
 * line, the permission's index and name, and the field.
 */
export function loadPermissionsFile (path: string): Permission[] {
  const text = readTextFile(path, {
    maxBytes: MAX_FILE_BYTES,
    kind: 'a permissions file',
    cannotRead: 'cannot read the permissions file',
    error: (message, source, cause) => new PermissionError(message, { source }, cause)
  })
  return parsePermissionsYaml(text, path)
}

/** Parses permissions YAML text; `source` names it in error messages. */
export function parsePermissionsYaml (text: string, source = '<permissions>'): Permission[] {
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) throw new PermissionError(`permissions are larger than ${MAX_FILE_BYTES} bytes`, { source })
  const { doc, positionOf, data } = parseYamlDocument(text, {
    maxAliases: MAX_ALIASES,
    // Warnings (an unresolved `!!tag`, for one) are errors here: a policy file should mean exactly what it says.
    warningsAreErrors: true,
    error: (message, position) => new PermissionError(message, { source, line: position?.line, column: position?.column })
  })
  if (data === null || data === undefined) {
    // An empty file is more likely a mistake than a wish to allow everything.
    throw new PermissionError('the file is empty: expected a list of permissions (write [] for none, which allows every authenticated user)', { source })
  }
  if (!Array.isArray(data) || !isSeq(doc.contents)) {
    // The kind only, never the value: a file given by mistake (a token file) would be printed.
    // A mapping with feature_store.yaml's keys is that file, given where the permissions go.
    const storeFile = isRecord(data) && ['project', 'auth', 'registry'].some((key) => Object.hasOwn(data, key))
    const hint = storeFile ? ' (this reads as a feature_store.yaml; a permissions file is a list: - name: readers ..., see docs/permissions.md)' : ''
    throw new PermissionError(`expected a list of permissions at the top of the file, got ${describeKind(data)}${hint}`, { source, ...at(doc, positionOf, []) })
  }

  const seen = new Map<string, number>()
  return data.map((item: unknown, index) => {
    const name = isRecord(item) && typeof item.name === 'string' && item.name.trim() !== '' ? item.name.trim() : undefined
    const fail = (field: string | undefined, message: string, cause?: unknown): never => {
      throw new PermissionError(message, { source, index, permission: name, field, ...at(doc, positionOf, [index, ...pathOf(field)]) }, cause)
    }
    if (!isRecord(item)) return fail(undefined, `expected a mapping with name, types, name_patterns, required_tags, actions and policy, got ${describeValue(item)}`)
    for (const key of Object.keys(item)) {
      if (!PERMISSION_KEYS.includes(key)) fail(key, `unknown field${didYouMean(key, PERMISSION_KEYS)} (expected one of ${PERMISSION_KEYS.join(', ')})`)
    }
    if (name !== undefined) {
      const earlier = seen.get(name)
      if (earlier !== undefined) fail('name', `duplicate permission name (also used by permission [${earlier}])`)
      seen.set(name, index)
    }
    if (!Object.hasOwn(item, 'policy')) fail('policy', `a policy is required: one of ${Object.keys(POLICY_KEYS).join(', ')}`)
    const policy = readPolicy(item.policy, fail)
    const input = {
      name: item.name,
      ...optional('types', item.types),
      ...optional('namePatterns', item.name_patterns),
      ...optional('requiredTags', item.required_tags),
      ...optional('actions', item.actions),
      ...optional('tags', item.tags),
      policy
    } as unknown as PermissionInput
    try {
      return buildPermission(input, YAML_FIELDS)
    } catch (error) {
      if (!(error instanceof PermissionError)) throw error
      return fail(error.field, error.reason, error)
    }
  })
}

// `actions: null` must still reach validation (it is an error there), so only absent keys are left out.
function optional (key: string, value: unknown): Record<string, unknown> {
  return value === undefined ? {} : { [key]: value }
}

function readPolicy (value: unknown, fail: (field: string, message: string) => never): Policy {
  const expected = `one of ${Object.keys(POLICY_KEYS).map((key) => `${key}: {${POLICY_KEYS[key]?.join(', ') ?? ''}}`).join(', ').replace('allow_all: {}', 'allow_all: true')}`
  if (!isRecord(value)) return fail('policy', `expected a mapping with ${expected}, got ${describeValue(value)}`)
  const keys = Object.keys(value)
  if (keys.length !== 1) return fail('policy', `expected exactly one policy (${expected}), got ${keys.length === 0 ? 'none' : keys.join(', ')}`)
  const kind = keys[0] as string
  const fields = POLICY_KEYS[kind]
  if (fields === undefined || !Object.hasOwn(POLICY_KEYS, kind)) return fail(`policy.${kind}`, `unknown policy${didYouMean(kind, Object.keys(POLICY_KEYS)) || listNamedDirectly(kind)} (expected ${expected})`)
  const body = value[kind]
  if (kind === 'allow_all') {
    if (body !== true) fail('policy.allow_all', `expected true, got ${describeValue(body)}`)
    return allowAll
  }
  if (!isRecord(body)) return fail(`policy.${kind}`, `expected a mapping with ${fields.join(' and ')}, got ${describeValue(body)}`)
  for (const key of Object.keys(body)) {
    if (!fields.includes(key)) fail(`policy.${kind}.${key}`, `unknown field${didYouMean(key, fields)} (expected ${fields.join(' and ')})`)
  }
  const lists = fields.map((field) => readList(body[field], `policy.${kind}.${field}`, fail))
  const [first = [], second = []] = lists
  switch (kind) {
    case 'role_based_policy': return { kind: 'role', roles: first }
    case 'group_based_policy': return { kind: 'group', groups: first }
    case 'namespace_based_policy': return { kind: 'namespace', namespaces: first }
    default: return { kind: 'combined', groups: first, namespaces: second }
  }
}

function readList (value: unknown, field: string, fail: (field: string, message: string) => never): string[] {
  if (value === undefined) return fail(field, 'is required: a list of strings (an empty list grants nothing)')
  if (!Array.isArray(value)) return fail(field, `expected a list of strings, got ${describeValue(value)}`)
  value.forEach((entry: unknown, i) => {
    if (typeof entry !== 'string' || entry === '') fail(`${field}[${i}]`, `expected a non-empty string, got ${describeValue(entry)}`)
  })
  return value as string[]
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `required_tags.owner` / `actions[2]` → ['required_tags', 'owner'] / ['actions', 2]. */
function pathOf (field: string | undefined): (string | number)[] {
  if (field === undefined) return []
  const path: (string | number)[] = []
  for (const part of field.split('.')) {
    const match = /^([^[]*)((?:\[\d+\])*)$/.exec(part)
    if (match === null) { path.push(part); continue }
    if (match[1] !== undefined && match[1] !== '') path.push(match[1])
    for (const index of (match[2] ?? '').matchAll(/\[(\d+)\]/g)) path.push(Number(index[1]))
  }
  return path
}

/** Line and column of the deepest node on `path` that exists (the key, for mapping entries). */
function at (doc: Document, positionOf: PositionOf, path: readonly (string | number)[]): { line?: number, column?: number } {
  for (let depth = path.length; depth >= 0; depth--) {
    const parentPath = path.slice(0, Math.max(0, depth - 1))
    const parent = depth === 0 ? doc.contents : parentPath.length === 0 ? doc.contents : doc.getIn(parentPath, true)
    let range: readonly number[] | null | undefined
    if (depth === 0) {
      range = (doc.contents as { range?: readonly number[] | null } | null)?.range
    } else if (isMap(parent)) {
      const pair = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === String(path[depth - 1]))
      range = pair !== undefined && isScalar(pair.key) ? pair.key.range : undefined
    } else if (isSeq(parent)) {
      const node = parent.items[Number(path[depth - 1])] as { range?: readonly number[] | null } | undefined
      range = node?.range
    }
    if (range !== undefined && range !== null && range[0] !== undefined) {
      const pos = positionOf(range[0])
      return { line: pos.line, column: pos.col }
    }
  }
  return {}
}

/**
 * Writes permissions as a permissions file (the format `parsePermissionsYaml` reads): for
 * tests, fixtures and tools that turn TypeScript definitions into a file.
 */
export function permissionsToYaml (permissions: readonly Permission[]): string {
  return stringify(permissions.map((p) => ({
    name: p.name,
    ...(p.types.length === RESOURCE_TYPES.length ? {} : { types: [...p.types] }),
    ...(p.namePatterns.length === 0 ? {} : { name_patterns: [...p.namePatterns] }),
    ...(Object.keys(p.requiredTags).length === 0 ? {} : { required_tags: { ...p.requiredTags } }),
    actions: p.actions.length === ACTIONS.length ? ['ALL_ACTIONS'] : [...p.actions],
    policy: policyToYaml(p.policy),
    ...(p.tags === undefined || Object.keys(p.tags).length === 0 ? {} : { tags: { ...p.tags } })
  })))
}

function policyToYaml (policy: Policy): Record<string, unknown> {
  switch (policy.kind) {
    case 'allow_all': return { allow_all: true }
    case 'role': return { role_based_policy: { roles: [...policy.roles] } }
    case 'group': return { group_based_policy: { groups: [...policy.groups] } }
    case 'namespace': return { namespace_based_policy: { namespaces: [...policy.namespaces] } }
    case 'combined': return { combined_group_namespace_policy: { groups: [...policy.groups], namespaces: [...policy.namespaces] } }
  }
}
