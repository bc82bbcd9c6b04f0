import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { authenticateRequest } from '../../adapters/authenticate-request.ts'
import { setUpAuthz } from '../../adapters/setup.ts'
import { ConfigError, describeValue } from '../../config/errors.ts'
import { isIntraPrincipal } from '../../managers/intra/with-intra-identity.ts'
import { createLogger } from '../../base/logging.ts'
import { AuthError } from '../../base/errors.ts'
import { decide, describeDecision, type Decision } from '../../permissions/decide.ts'
import { PermissionError } from '../../permissions/errors.ts'
import { ACTION_GROUPS, ACTIONS, RESOURCE_TYPES, expandActions, isResourceType, resourceLabel, type Action, type Permission, type Resource } from '../../permissions/model.ts'
import { loadPermissionsFile } from '../../permissions/yaml.ts'
import { createPrincipal, principalToJSON, type AuthSource, type Principal } from '../../base/principal.ts'
import { EXIT, UsageError, type CliCommand } from '../io.ts'

const HELP = `usage: feast-authz check --permissions <permissions.yaml>
         (--principal '<json>' | --config <feature_store.yaml> --token-file <path>)
         --resource <Type>:<name> [--tag key=value ...] --action <ACTION> [--action <ACTION> ...]

Evaluates one request exactly as requirePermission would and prints JSON:
  {"decision": "allow" | "deny", "explanation": [one entry per permission: whether it
   applied, which of type / name_pattern / tags / actions did not match, whether its
   policy granted, and what it requires]}

  --principal    {"username": "...", "roles": [...], "groups": [...], "namespaces": [...]}
                 (the output of \`feast-authz inspect\` is accepted as is)
  --config, --token-file
                 authenticate a token as the server would (like \`feast-authz inspect\`)
  --resource     one of ${RESOURCE_TYPES.join(', ')}, then ':' and the name
  --tag          a tag of the resource (repeatable), matched by required_tags
  --action       ${ACTIONS.join(', ')} or a group ${Object.keys(ACTION_GROUPS).join(', ')} (repeatable;
                 one permission must cover all of them)

Exit 0 on allow, 1 on deny (including a rejected token), 2 on a bad permissions file,
bad arguments, or when the identity provider could not be reached.
`

interface Args {
  permissions: string
  principal?: string | undefined
  config?: string | undefined
  tokenFile?: string | undefined
  resource: Resource
  actions: Action[]
}

export const run: CliCommand = async (argv, io) => {
  let args: Args
  try {
    const parsed = parseArgv(argv)
    if (parsed === 'help') { io.stdout(HELP); return EXIT.ok }
    args = parsed
  } catch (error) {
    if (!(error instanceof UsageError) && !(error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw error
    io.stderr(`feast-authz check: ${(error as Error).message}\n\n${HELP}`)
    return EXIT.usage
  }

  let permissions: Permission[]
  try {
    permissions = loadPermissionsFile(args.permissions)
  } catch (error) {
    if (!(error instanceof PermissionError)) throw error
    io.stderr(`feast-authz check: ${error.message}\n`)
    return EXIT.usage
  }

  let principal: Principal
  if (args.principal !== undefined) {
    try {
      principal = parsePrincipal(args.principal)
    } catch (error) {
      if (!(error instanceof UsageError)) throw error
      io.stderr(`feast-authz check: --principal: ${error.message}\n`)
      return EXIT.usage
    }
  } else {
    const outcome = await principalFromToken(args.config as string, args.tokenFile as string, io.stderr)
    if (typeof outcome === 'number') return outcome
    if ('rejected' in outcome) {
      io.stdout(`${JSON.stringify({ decision: 'deny', authenticated: false, reason: outcome.rejected, explanation: [] }, null, 2)}\n`)
      return EXIT.rejected
    }
    if ('noAuth' in outcome) {
      io.stdout(`${JSON.stringify({ decision: 'allow', note: 'auth.type is no_auth: the server checks no permissions', explanation: [] }, null, 2)}\n`)
      return EXIT.ok
    }
    principal = outcome.principal
  }

  // The servers' own identity is not subject to permissions (as in requirePermission).
  if (isIntraPrincipal(principal)) {
    io.stdout(`${JSON.stringify({ decision: 'allow', principal: principalToJSON(principal), note: 'intra-server identity: permissions are not checked', explanation: [] }, null, 2)}\n`)
    return EXIT.ok
  }

  const decision = decide(permissions, principal, args.resource, args.actions)
  if (decision.noPermissionsDefined) {
    io.stderr('feast-authz check: warning: no permissions defined: every authenticated user is granted full access\n')
  }
  io.stdout(`${JSON.stringify(report(decision, principal), null, 2)}\n`)
  return decision.allowed ? EXIT.ok : EXIT.rejected
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

function parseArgv (argv: readonly string[]): Args | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      permissions: { type: 'string' },
      principal: { type: 'string' },
      config: { type: 'string' },
      'token-file': { type: 'string' },
      resource: { type: 'string' },
      tag: { type: 'string', multiple: true },
      action: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' }
    },
    strict: true,
    allowPositionals: false
  })
  if (values.help === true) return 'help'
  if (values.permissions === undefined) throw new UsageError('--permissions is required')
  const byToken = values.config !== undefined || values['token-file'] !== undefined
  if (values.principal !== undefined && byToken) throw new UsageError('give either --principal or --config with --token-file, not both')
  if (values.principal === undefined && !byToken) throw new UsageError('give --principal, or --config with --token-file')
  if (byToken && (values.config === undefined || values['token-file'] === undefined)) throw new UsageError('--config and --token-file go together')
  if (values.resource === undefined) throw new UsageError('--resource is required (e.g. --resource FeatureView:driver_stats)')
  if (values.action === undefined || values.action.length === 0) throw new UsageError('at least one --action is required')
  return {
    permissions: values.permissions,
    principal: values.principal,
    config: values.config,
    tokenFile: values['token-file'],
    resource: parseResource(values.resource, values.tag ?? []),
    actions: parseActions(values.action)
  }
}

function parseResource (text: string, tagArgs: readonly string[]): Resource {
  const colon = text.indexOf(':')
  if (colon < 0) throw new UsageError(`--resource: expected <Type>:<name>, got ${describeValue(text)}`)
  const type = text.slice(0, colon)
  if (!isResourceType(type)) throw new UsageError(`--resource: unknown resource type ${describeValue(type)} (expected one of ${RESOURCE_TYPES.join(', ')})`)
  const name = text.slice(colon + 1)
  if (tagArgs.length === 0) return { type, name }
  const tags: Record<string, string> = Object.create(null) as Record<string, string>
  for (const arg of tagArgs) {
    const eq = arg.indexOf('=')
    const key = eq < 0 ? '' : arg.slice(0, eq)
    if (key === '') throw new UsageError(`--tag: expected key=value, got ${describeValue(arg)}`)
    if (Object.hasOwn(tags, key)) throw new UsageError(`--tag: ${describeValue(key)} given twice`)
    tags[key] = arg.slice(eq + 1)
  }
  return { type, name, tags }
}

function parseActions (names: readonly string[]): Action[] {
  try {
    return expandActions(names as Action[])
  } catch (error) {
    throw new UsageError(`--action: ${(error as Error).message} (expected one of ${ACTIONS.join(', ')}, or a group ${Object.keys(ACTION_GROUPS).join(', ')})`)
  }
}

const PRINCIPAL_KEYS = ['username', 'roles', 'groups', 'namespaces', 'source']
const SOURCES: readonly AuthSource[] = ['oidc', 'kubernetes', 'intra', 'no_auth']

/** `{"username","roles","groups","namespaces"}` (plus `source`, as `inspect` prints it). */
export function parsePrincipal (json: string): Principal {
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (error) {
    throw new UsageError(`not valid JSON (${(error as Error).message})`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`expected a JSON object, got ${describeValue(value)}`)
  const fields = value as Record<string, unknown>
  for (const key of Object.keys(fields)) {
    if (!PRINCIPAL_KEYS.includes(key)) throw new UsageError(`unknown field ${describeValue(key)} (expected ${PRINCIPAL_KEYS.join(', ')})`)
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

type TokenOutcome = { principal: Principal } | { rejected: string } | { noAuth: true }

/** Authenticates like `feast-authz inspect`; a number is the exit code of a failure already reported. */
async function principalFromToken (config: string, tokenFile: string, stderr: (text: string) => void): Promise<TokenOutcome | number> {
  let token: string
  try {
    token = readFileSync(tokenFile, 'utf8').trim()
  } catch (error) {
    stderr(`feast-authz check: cannot read --token-file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`)
    return EXIT.usage
  }
  const logger = createLogger({ level: 'warn' }, 2)
  let authz
  try {
    authz = setUpAuthz({ config }, logger)
  } catch (error) {
    if (error instanceof ConfigError) { stderr(`feast-authz check: ${error.message}\n`); return EXIT.usage }
    throw error
  }
  try {
    if (authz.manager.type === 'no_auth') return { noAuth: true }
    const principal = await authenticateRequest(authz, { authorization: `Bearer ${token}` }, undefined)
    return { principal }
  } catch (error) {
    if (!(error instanceof AuthError)) throw error
    if (error.status === 503) {
      const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
      stderr(`feast-authz check: could not authenticate: ${error.code}: ${error.message}${cause}\n`)
      return EXIT.usage
    }
    stderr(`feast-authz check: token rejected: ${error.code}: ${error.message}\n`)
    return { rejected: `${error.code}: ${error.message}` }
  } finally {
    await authz.manager.close()
  }
}
