import { resolve } from 'node:path'
import { quotedUnlessCredential, unmatchedName } from '../../base/credential-shape.ts'
import { describeValue, quotedNames } from '../../base/describe-value.ts'
import { fullAccessTo, noPermissionsWarning } from '../../adapters/unprotected-projects.ts'
import { isIntraPrincipal } from '../../managers/intra/with-intra-identity.ts'
import { decide, describeDecision, type Decision } from '../../permissions/decide.ts'
import { PermissionError } from '../../permissions/errors.ts'
import { ACTION_GROUPS, ACTIONS, RESOURCE_TYPES, expandActions, isAction, isActionGroup, isResourceType, resourceLabel, unknownAction, type Action, type Permission, type Resource } from '../../permissions/model.ts'
import { loadPermissionsFile } from '../../permissions/yaml.ts'
import { ConfigError } from '../../config/errors.ts'
import { readFeatureStoreFile } from '../../config/feature-store-file.ts'
import { storeProject } from '../../config/store-project.ts'
import { isCatalogYamlPath } from '../../registry/config.ts'
import { loadRegistryFile } from '../../registry/feast-registry.ts'
import { createPrincipal, principalToJSON, type AuthSource, type Principal } from '../../base/principal.ts'
import { didYouMean } from '../../base/did-you-mean.ts'
import { parseCommandArgs, reportUsage } from '../args.ts'
import { authenticateOnce, refusal, type TokenOutcome } from '../authenticate-once.ts'
import { configArgument, readTokenArgument, TOKEN_FILE_LIMITS } from '../inputs.ts'
import { EXIT, UsageError, type CliCommand, type CliIo } from '../io.ts'
import { usageLines, wrapWords } from '../help-text.ts'

/** A generated list in the help, comma-separated, under the option texts. */
function listLines (words: readonly string[]): string {
  return wrapWords(words.map((word, index) => index === words.length - 1 ? word : `${word},`), ' '.repeat(17))
}

const HELP = `${usageLines('check', [
  '(--permissions <permissions.yaml> |', '--registry <registry.db> [--project <name>])',
  "(--principal '<json>' |", '[--config <feature_store.yaml>]', '(--token <jwt> | --token-file <path|->))',
  '--resource <Type>:<name>', '[--tag key=value ...]',
  '--action <ACTION>', '[--action <ACTION> ...]'
])}

Evaluates one request exactly as requirePermission would and prints JSON:
  {"decision": "allow" | "deny", "explanation": [one entry per permission: whether it
   applied, which of type / name_pattern / tags / actions did not match, whether its
   policy granted, and what it requires]}

  --permissions  the permissions YAML file to decide with: a list of permissions with
                 Feast's field names (docs/permissions.md)
  --registry     or a Feast registry file (registry.db): the permissions of --project
                 (by default the project of --config when a token is checked, else the
                 file's only one), and the resource's tags as the registry holds them
  --principal    {"username": "...", "roles": [...], "groups": [...], "namespaces": [...]}
                 (the output of \`feast-authz inspect\` is accepted as is)
  --config, --token, --token-file
                 authenticate a token as the server would (like \`feast-authz inspect\`):
                 --token is the token itself, --token-file a file holding it: - reads
                 standard input (at a terminal, one line, not shown), and a file or
                 pipe holds at most ${TOKEN_FILE_LIMITS};
                 --config defaults to FEATURE_STORE_YAML_BASE64, then ./feature_store.yaml
  --verbose      log details and stack traces (--debug is the same)
  --resource     <Type>:<name>, the type one of
${listLines(RESOURCE_TYPES)}
  --tag          a tag of the resource (repeatable), matched by required_tags; not
                 with --registry, whose resource has its own
  --action       an action (repeatable; one permission must cover all of them):
${listLines(ACTIONS)}
                 or a group of them: ${Object.keys(ACTION_GROUPS).join(', ')}

Exit codes: 0 allow, 1 deny (including a rejected token), 2 usage error or a bad
permissions or configuration file, 3 could not decide (the identity provider or the
cluster could not be reached, or refused feast-authz's own credentials).
`

interface Args {
  /** Where the permissions come from: a permissions YAML file, or a Feast registry file and the project asked for. */
  source: { readonly permissions: string } | { readonly registry: string, readonly project: string | undefined }
  principal?: string | undefined
  config?: string | undefined
  token?: string | undefined
  verbose: boolean
  resource: Resource
  actions: Action[]
}

export const run: CliCommand = async (argv, io) => {
  let args: Args
  try {
    const parsed = await parseArgv(argv, io)
    if (parsed === 'help') { io.stdout(HELP); return EXIT.ok }
    args = parsed
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return reportUsage(io, 'check', error)
  }

  // The permissions first: a bad file is reported before a token is sent anywhere.
  let decided: Decided
  try {
    decided = 'permissions' in args.source
      ? { permissions: loadPermissionsFile(args.source.permissions), resource: args.resource, where: `in ${args.source.permissions}`, project: undefined }
      : fromRegistry(args.source.registry, registryProject(args, io.env), args.resource)
  } catch (error) {
    if (!(error instanceof PermissionError) && !(error instanceof ConfigError)) throw error
    io.stderr(`feast-authz check: ${error.message}\n`)
    return EXIT.usage
  }

  let principal: Principal
  // The project the checked resource belongs to, when the configuration names it.
  let project: string | undefined
  if (args.principal !== undefined) {
    try {
      principal = parsePrincipal(args.principal)
    } catch (error) {
      if (!(error instanceof UsageError)) throw error
      io.stderr(`feast-authz check: --principal: ${error.message}\n`)
      return EXIT.usage
    }
  } else {
    const outcome = await principalFromToken(args.config, args.token as string, args.verbose, io)
    if (typeof outcome === 'number') return outcome
    if ('rejected' in outcome) {
      io.stdout(`${JSON.stringify({ decision: 'deny', authenticated: false, reason: refusal(outcome.rejected), explanation: [] }, null, 2)}\n`)
      return EXIT.rejected
    }
    if ('noAuth' in outcome) {
      io.stdout(`${JSON.stringify({ decision: 'allow', note: 'auth.type is no_auth: the server checks no permissions', explanation: [] }, null, 2)}\n`)
      return EXIT.ok
    }
    principal = outcome.principal
    project = outcome.project
  }

  // The servers' own identity is not subject to permissions (as in requirePermission).
  if (isIntraPrincipal(principal)) {
    io.stdout(`${JSON.stringify({ decision: 'allow', principal: principalToJSON(principal), note: 'intra-server identity: permissions are not checked', explanation: [] }, null, 2)}\n`)
    return EXIT.ok
  }

  const decision = decide(decided.permissions, principal, decided.resource, args.actions)
  if (decision.noPermissionsDefined) {
    io.stderr(`feast-authz check: warning: ${noPermissionsWarning(decided.where, openProject(decided.resource, decided.project ?? project))}\n`)
  }
  io.stdout(`${JSON.stringify(report(decision, principal), null, 2)}\n`)
  return decision.allowed ? EXIT.ok : EXIT.rejected
}

/** What a decision is made with: the permissions, the resource as they see it, and the project checked. */
interface Decided {
  readonly permissions: readonly Permission[]
  readonly resource: Resource
  /** Where the permissions come from, for the no-permissions warning. */
  readonly where: string
  readonly project: string | undefined
}

/** The project asked for in a Feast registry file; `config` when the configuration's `project` named it. */
interface WantedProject { readonly name: string, readonly config?: string }

/**
 * The project of a registry to decide with: `--project`, else the `project` of the configuration
 * a token is authenticated with, as `serve --registry` takes it; undefined leaves the choice to
 * the file (its only project).
 */
function registryProject (args: Args, env: NodeJS.ProcessEnv): WantedProject | undefined {
  if (!('registry' in args.source)) return undefined
  if (args.source.project !== undefined) return { name: args.source.project }
  if (args.token === undefined) return undefined
  const file = readFeatureStoreFile(args.config, env)
  const name = storeProject(file)
  return name === undefined ? undefined : { name, config: file.source ?? 'the configuration' }
}

/**
 * The permissions of `project` in a Feast registry file, and the resource as that project holds
 * it (with its tags), as the server finds both; the project defaults to the file's only one.
 */
function fromRegistry (path: string, wanted: WantedProject | undefined, asked: Resource): Decided {
  // Most likely the permissions YAML file, given to the other flag.
  if (isCatalogYamlPath(path)) throw new ConfigError('is a YAML file, not a Feast registry file (registry.db): a permissions YAML file goes with --permissions', { source: path })
  const snapshot = loadRegistryFile(resolve(path), undefined)
  const names = [...snapshot.projects.keys()]
  const listed = quotedNames(names)
  if (wanted === undefined && names.length > 1) throw new ConfigError(`holds ${names.length} projects (${listed}): say which with --project`, { source: snapshot.path })
  const project = snapshot.projects.get(wanted?.name ?? names[0] ?? '')
  if (project === undefined) {
    const named = wanted?.config === undefined ? '' : `, the project of ${wanted.config}`
    const next = wanted?.config === undefined ? 'check --project' : 'say which with --project'
    throw new ConfigError(`has no project ${unmatchedName(wanted?.name ?? '', names)}${named} (it has ${listed}); ${next}`, { source: snapshot.path })
  }
  const found = project.find(asked.type, asked.name)
  if (found === undefined) {
    const others = project.resources.filter((resource) => resource.type === asked.type).map((resource) => resource.name)
    // A token pasted as the name would be printed: unmatchedName neither shows nor guesses at one.
    throw new ConfigError(`project ${JSON.stringify(project.name)} has no ${asked.type} ${unmatchedName(asked.name, others)}`, { source: snapshot.path })
  }
  return {
    permissions: project.permissions,
    resource: { type: found.type, name: found.name, project: project.name, ...(found.tags === undefined ? {} : { tags: found.tags }) },
    where: `in project ${JSON.stringify(project.name)} of ${snapshot.path}`,
    project: project.name
  }
}

/**
 * What permissions that define nothing leave open, in the server's words: the project checked
 * (a `Project` resource, else the configuration's `project`). A permissions file names none: the
 * server applies it to every project it serves.
 */
function openProject (resource: Resource, project: string | undefined): string {
  const checked = resource.type === 'Project' ? resource.name : project
  return checked === undefined ? 'every project these permissions are used for' : fullAccessTo([checked], undefined)
}

function report (decision: Decision, principal: Principal): Record<string, unknown> {
  return {
    decision: decision.allowed ? 'allow' : 'deny',
    resource: resourceLabel(decision.resource),
    ...(decision.resource.tags === undefined ? {} : { tags: decision.resource.tags }),
    actions: decision.actions,
    principal: principalToJSON(principal),
    ...(decision.noPermissionsDefined ? { noPermissionsDefined: true } : {}),
    summary: describeDecision(decision),
    explanation: decision.explanation
  }
}

const OPTIONS = {
  permissions: { type: 'string' },
  registry: { type: 'string' },
  project: { type: 'string' },
  principal: { type: 'string' },
  config: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  resource: { type: 'string' },
  tag: { type: 'string', multiple: true },
  action: { type: 'string', multiple: true },
  verbose: { type: 'boolean' },
  debug: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' }
} as const

async function parseArgv (argv: readonly string[], io: CliIo): Promise<Args | 'help'> {
  const env = io.env
  const { values } = parseCommandArgs(argv, OPTIONS)
  if (values.help === true) return 'help'
  if (values.permissions === undefined && values.registry === undefined) throw new UsageError('give --permissions <permissions.yaml>, or --registry <registry.db> (a Feast registry file)')
  if (values.permissions !== undefined && values.registry !== undefined) throw new UsageError('give one of --permissions and --registry, not both')
  if (values.project !== undefined && values.registry === undefined) throw new UsageError('--project names a project of the Feast registry given with --registry')
  if (values.registry !== undefined && values.tag !== undefined) throw new UsageError('--tag: with --registry, the resource\'s tags are the registry\'s')
  const byToken = values.token !== undefined || values['token-file'] !== undefined
  if (values.principal !== undefined && byToken) throw new UsageError('give either --principal or a token (--token or --token-file), not both')
  if (values.principal === undefined && !byToken) throw new UsageError(values.config === undefined ? 'give --principal, or --token or --token-file (with --config)' : '--config needs --token or --token-file (the token to authenticate)')
  if (values.principal !== undefined && values.config !== undefined) throw new UsageError('--config is for a token (--token or --token-file); --principal needs no configuration')
  if (values.token !== undefined && values['token-file'] !== undefined) throw new UsageError('give one of --token and --token-file, not both')
  if (values.resource === undefined) throw new UsageError('--resource is required (e.g. --resource FeatureView:driver_stats)')
  if (values.action === undefined || values.action.length === 0) throw new UsageError('at least one --action is required')
  const resource = parseResource(values.resource, values.tag ?? [])
  const actions = parseActions(values.action)
  return {
    source: values.registry === undefined ? { permissions: values.permissions as string } : { registry: values.registry, project: values.project },
    principal: values.principal,
    ...(byToken ? { config: configArgument(values.config, env), token: await readTokenArgument(values.token, values['token-file'], io.stderr) } : {}),
    verbose: values.verbose === true || values.debug === true,
    resource,
    actions
  }
}

function parseResource (text: string, tagArgs: readonly string[]): Resource {
  const colon = text.indexOf(':')
  // Quoted unless shaped like a token: one pasted here would be printed.
  if (colon < 0) throw new UsageError(`--resource: expected <Type>:<name>, got ${quotedUnlessCredential(text)}`)
  const type = text.slice(0, colon)
  if (!isResourceType(type)) throw new UsageError(`--resource: unknown resource type ${unmatchedName(type, RESOURCE_TYPES)}; expected one of ${RESOURCE_TYPES.join(', ')}`)
  const name = text.slice(colon + 1)
  if (tagArgs.length === 0) return { type, name }
  const tags: Record<string, string> = Object.create(null) as Record<string, string>
  for (const arg of tagArgs) {
    const eq = arg.indexOf('=')
    const key = eq < 0 ? '' : arg.slice(0, eq)
    if (key === '') throw new UsageError(`--tag: expected key=value, got ${quotedUnlessCredential(arg)}`)
    if (Object.hasOwn(tags, key)) throw new UsageError(`--tag: ${describeValue(key)} given twice`)
    tags[key] = arg.slice(eq + 1)
  }
  return { type, name, tags }
}

function parseActions (names: readonly string[]): Action[] {
  // The same message as requirePermission's; a usage error here (exit 2), not an OptionError.
  const unknown = names.find((name) => !isAction(name) && !isActionGroup(name))
  if (unknown === undefined) return expandActions(names as Action[])
  // `--action READ,DESCRIBE`, as other tools take lists: the option is repeated here instead.
  const listed = unknown.split(',').map((name) => name.trim())
  if (listed.length > 1 && listed.every((name) => isAction(name) || isActionGroup(name))) {
    throw new UsageError(`--action: one action per --action: write ${listed.map((name) => `--action ${name}`).join(' ')}`)
  }
  throw new UsageError(`--action: ${unknownAction(unknown)}`)
}

const PRINCIPAL_KEYS = ['username', 'roles', 'groups', 'namespaces', 'source']
const SOURCES: readonly AuthSource[] = ['oidc', 'kubernetes', 'intra', 'no_auth']

/** `{"username","roles","groups","namespaces"}` (plus `source`, as `inspect` prints it). */
export function parsePrincipal (json: string): Principal {
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    // Not V8's reason: it quotes the text around the fault, and a token given here by mistake would be printed.
    throw new UsageError('not valid JSON (expected an object such as {"username": "alice", "roles": ["reader"]}; the text is not shown, as it may be a token)')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`expected a JSON object, got ${describeValue(value)}`)
  const fields = value as Record<string, unknown>
  for (const key of Object.keys(fields)) {
    if (!PRINCIPAL_KEYS.includes(key)) throw new UsageError(`unknown field ${describeValue(key)}${didYouMean(key, PRINCIPAL_KEYS)} (expected ${PRINCIPAL_KEYS.join(', ')})`)
  }
  const username = fields.username ?? 'cli-principal'
  if (typeof username !== 'string') throw new UsageError(`username: expected a string, got ${describeValue(username)}`)
  const source = fields.source ?? 'oidc'
  if (!SOURCES.includes(source as AuthSource)) throw new UsageError(`source: expected one of ${SOURCES.join(', ')}, got ${describeValue(source)}`)
  const list = (key: 'roles' | 'groups' | 'namespaces'): string[] => {
    const entries = fields[key] ?? []
    if (!Array.isArray(entries) || !entries.every((entry) => typeof entry === 'string')) {
      throw new UsageError(`${key}: expected a list of strings, got ${describeValue(entries)}`)
    }
    return entries as string[]
  }
  return createPrincipal({ username, roles: list('roles'), groups: list('groups'), namespaces: list('namespaces'), source: source as AuthSource })
}

/** Authenticates like `feast-authz inspect`; a number is the exit code of a failure already reported. */
async function principalFromToken (
  config: string | undefined, token: string, verbose: boolean, io: CliIo
): Promise<(TokenOutcome & { readonly project?: string | undefined }) | { noAuth: true } | number> {
  return await authenticateOnce(io, 'check', { config, token, verbose }, (outcome, authConfig, project) => {
    // The server checks no permission under no_auth (authentication gave the anonymous principal, without I/O).
    if (authConfig.type === 'no_auth') return { noAuth: true }
    return { ...outcome, project }
  })
}
