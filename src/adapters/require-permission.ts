/**
 * The framework-neutral permission check behind `fastify.requirePermission` and the Express
 * `requirePermission` middleware: principal + resources + actions → continue, 401 or 403.
 * The adapters only translate requests and replies; every rule lives here or in the engine.
 */
import { performance } from 'node:perf_hooks'
import type { AuthType } from '../config/auth-config.ts'
import { debugEnabled, type AuthLogger } from '../base/logging.ts'
import { AuthError, OptionError } from '../base/errors.ts'
import { decide, describeDecision, filterAllowed, type Decision, type FilteredOut } from '../permissions/decide.ts'
import { Evaluation } from '../permissions/evaluate.ts'
import { loadPermissionsFile } from '../permissions/yaml.ts'
import { expandActions, isAction, isActionGroup, resourceLabel, unknownAction, type Action, type ActionGroup, type Permission, type Resource } from '../permissions/model.ts'
import { authorizeChannel, elapsedMs, type AuthorizeEvent } from '../base/observability/channels.ts'
import { isIntraPrincipal } from '../managers/intra/with-intra-identity.ts'
import type { Principal } from '../base/principal.ts'
import { forbidden, rejectionFor, type Rejection } from './challenge.ts'
import type { AuthzOptions } from './setup.ts'
import type { PermissionSource } from '../permissions/source.ts'
import { reportUnprotectedProjects } from './unprotected-projects.ts'

/** An action or a group of actions (`READ`, `WRITE`, `CRUD`, `ALL_ACTIONS`). */
export type ActionName = Action | ActionGroup

/** One resource or several: a check on several passes only when every one is allowed. */
export type Resources = Resource | readonly Resource[]

/**
 * What a route requires. `Req` is the framework's request type, so computed resources
 * see typed params and body (the check runs after body parsing and validation).
 */
export interface PermissionSpec<Req = unknown> {
  /** The resource(s) acted on, or a function computing them from the request. */
  readonly resources: Resources | ((request: Req) => Resources | Promise<Resources>)
  /**
   * The action(s) every resource needs, by name or group; one permission must cover all of
   * them. A function computes them from the request (e.g. from a `to` field of the body).
   */
  readonly actions: ActionName | readonly ActionName[] | ((request: Req) => ActionName | readonly ActionName[])
  /**
   * List mode: instead of refusing the request when some resources are denied, keep only
   * the permitted ones (`request.permittedResources`). Feast's rules decide when a denied
   * resource is dropped and when the whole call is refused (see docs/permissions.md).
   */
  readonly filter?: boolean
  /** The project whose permissions apply (for a multi-project permission source). */
  readonly project?: string | ((request: Req) => string | undefined)
}

/** The outcome of one check: continue (with the permitted resources), or reject. */
export type PermissionOutcome =
  | { readonly allowed: true, readonly resources: readonly Resource[], readonly grantedBy?: string }
  | { readonly allowed: false, readonly rejection: Rejection }

/** What a spec names for one request. */
export interface ResolvedSpec {
  readonly resources: readonly Resource[]
  readonly actions: readonly Action[]
  readonly project: string | undefined
}

/** A spec validated once, when the route is declared. */
export interface CompiledPermissionSpec<Req> {
  readonly filter: boolean
  /**
   * Synchronous unless the spec's `resources` callback returns a promise, so that a route whose
   * resources are at hand makes no promise per request. Throws what the spec's callbacks throw.
   */
  resolve (request: Req): ResolvedSpec | Promise<ResolvedSpec>
}

/** The shared checker one adapter instance uses. */
export interface PermissionGate {
  /** Validates a spec (unknown action names throw an OptionError at declaration time). */
  compile<Req> (spec: PermissionSpec<Req>): CompiledPermissionSpec<Req>
  /** Decides one request; logs 401s and denials (with the full explanation) at info on `log`. */
  check (
    principal: Principal | null,
    resources: readonly Resource[],
    actions: readonly Action[],
    options: { filter: boolean, project: string | undefined, log: AuthLogger }
  ): PermissionOutcome
  /**
   * Resolves `spec` against `request`, then checks: synchronously when the spec resolves
   * synchronously. The adapters handle both, and a throw as a rejection.
   */
  evaluate<Req> (spec: CompiledPermissionSpec<Req>, request: Req, principal: Principal | null, log: AuthLogger): PermissionOutcome | Promise<PermissionOutcome>
  /**
   * {@link evaluate} for the adapters' callback middlewares: hands the outcome to `settle`, in the
   * same turn when the spec resolves at once, and an error of the spec's callbacks (thrown or
   * rejected) to `fail`.
   */
  decide<Req> (
    spec: CompiledPermissionSpec<Req>, request: Req, principal: Principal | null, log: AuthLogger,
    settle: (outcome: PermissionOutcome) => void, fail: (error: unknown) => void
  ): void
  /** Stops following the permission source's projects. */
  close (): void
}

export interface PermissionGateOptions {
  /** The server's `auth.type`: under `no_auth` every check passes, as in Feast (no security manager). */
  readonly authType: AuthType
  readonly permissions: AuthzOptions['permissions']
  /** `realm` of the 401 challenge. */
  readonly realm: string
  /** Receives the "no permissions defined" warnings: one per project without permissions (unprotected-projects.ts). */
  readonly logger: AuthLogger
  /** The server's own project (feature_store.yaml's `project`), named in those warnings. */
  readonly project?: string
}

/** How many hidden resources a `debug` line explains; the others are counted. */
export const EXPLAINED_HIDDEN = 10

// An explanation costs more than the decision itself (every permission judged, messages built):
// explaining all 600 resources a listing hides would multiply its cost by ten, for one log line.
function logHidden (dropped: readonly FilteredOut<Resource>[], principal: Principal, log: AuthLogger): void {
  const hidden = dropped.slice(0, EXPLAINED_HIDDEN).map(({ decision }) => describeDecision(decision))
  if (dropped.length > EXPLAINED_HIDDEN) hidden.push(`and ${dropped.length - EXPLAINED_HIDDEN} more`)
  log.debug({ username: principal.username, hiddenCount: dropped.length, hidden }, 'resources hidden by permissions')
}

export function createPermissionGate (options: PermissionGateOptions): PermissionGate {
  const source = toPermissionSource(options.permissions)
  const { authType, realm, logger } = options
  // Under no_auth no check reads the permissions, and the manager has already said that every endpoint is open.
  const unprotected = authType === 'no_auth'
    ? undefined
    : reportUnprotectedProjects(source, { fixed: !isSource(options.permissions), serverProject: options.project, logger })

  const deny = (decision: Decision, principal: Principal, resources: readonly Resource[], actions: readonly Action[], log: AuthLogger): PermissionOutcome => {
    // The caller learns only that access was denied; who-needs-what is for the operator's log.
    log.info({ ...denialFields(principal, resources, actions), explanation: describeDecision(decision) }, 'permission denied')
    return { allowed: false, rejection: forbidden(decision.message, realm) }
  }

  const check: PermissionGate['check'] = (principal, resources, actions, { filter, project, log }) => {
    // Feast runs no security manager under no_auth: every endpoint is open.
    if (authType === 'no_auth') return { allowed: true, resources }
    if (principal === null) {
      const rejection = rejectionFor(new AuthError('missing_token', 'this route requires an authenticated caller'), realm)
      log.info({ code: rejection.body.code }, 'permission check without an authenticated principal')
      return { allowed: false, rejection }
    }
    // The intra-server identity (a verified, signed token) acts for the servers themselves.
    if (isIntraPrincipal(principal)) return { allowed: true, resources }

    const permissions = source.permissionsFor(project)
    if (permissions.length === 0) {
      unprotected?.found(project)
      return { allowed: true, resources }
    }
    if (filter) {
      const result = filterAllowed(permissions, principal, resources, actions)
      if (result.refused !== undefined) return deny(result.refused.decision, principal, resources, actions, log)
      if (debugEnabled(log) && result.dropped.length > 0) logHidden(result.dropped, principal, log)
      return { allowed: true, resources: result.allowed }
    }
    // "Every resource is allowed" is vacuously true of none: a check that saw nothing grants nothing.
    if (resources.length === 0) {
      log.info({ ...denialFields(principal, resources, actions), explanation: 'the route named no resource to check' }, 'permission denied: the route named no resource to check')
      return { allowed: false, rejection: forbidden(`Permission denied: [${actions.join(', ')}] on no resource`, realm) }
    }
    // The explanation is built only for a denial, which logs it.
    const evaluation = new Evaluation(permissions, principal, actions)
    let grantedBy: string | undefined
    for (const resource of resources) {
      const granting = evaluation.granting(resource)
      if (granting < 0) return deny(decide(permissions, principal, resource, actions), principal, resources, actions, log)
      grantedBy ??= permissions[granting]?.name
    }
    return grantedBy === undefined ? { allowed: true, resources } : { allowed: true, resources, grantedBy }
  }

  // Every outcome becomes a diagnostics_channel message and a debug log line (denials are logged at info in deny()).
  const observedCheck: PermissionGate['check'] = (principal, resources, actions, options) => {
    const startedAt = performance.now()
    const outcome = check(principal, resources, actions, options)
    if (authorizeChannel.hasSubscribers || debugEnabled(options.log)) {
      const event: AuthorizeEvent = {
        decision: outcome.allowed ? 'allow' : principal === null ? 'unauthenticated' : 'deny',
        ...(principal === null ? {} : { username: principal.username }),
        resources: resources.map(resourceLabel),
        actions,
        ...(outcome.allowed && outcome.grantedBy !== undefined ? { permission: outcome.grantedBy } : {}),
        durationMs: elapsedMs(startedAt)
      }
      authorizeChannel.publish(event)
      if (outcome.allowed) options.log.debug({ event: 'authorization', ...event }, 'permission granted')
    }
    return outcome
  }

  const evaluate: PermissionGate['evaluate'] = (spec, request, principal, log) => {
    // Nothing to resolve (and no handler code to run) for a caller who will be refused anyway.
    if (authType !== 'no_auth' && principal === null) return observedCheck(null, [], [], { filter: spec.filter, project: undefined, log })
    const checkResolved = ({ resources, actions, project }: ResolvedSpec): PermissionOutcome =>
      observedCheck(principal, resources, actions, { filter: spec.filter, project, log })
    const resolved = spec.resolve(request)
    return resolved instanceof Promise ? resolved.then(checkResolved) : checkResolved(resolved)
  }

  return {
    compile: compileSpec,
    check: observedCheck,
    evaluate,
    decide: (spec, request, principal, log, settle, fail) => {
      let outcome: PermissionOutcome | Promise<PermissionOutcome>
      try {
        outcome = evaluate(spec, request, principal, log)
      } catch (error) {
        fail(error)
        return
      }
      if (outcome instanceof Promise) outcome.then(settle, fail)
      else settle(outcome)
    },
    close: () => { unprotected?.close() }
  }
}

/**
 * The fields of a denial's log line: the allow line's (`event`, `decision`, resources, actions)
 * plus what the caller has, so "requires roles [reader]" sits next to the roles it holds.
 */
function denialFields (principal: Principal, resources: readonly Resource[], actions: readonly Action[]): Record<string, unknown> {
  return {
    event: 'authorization',
    decision: 'deny',
    username: principal.username,
    resources: resources.map(resourceLabel),
    actions,
    roles: principal.roles,
    groups: principal.groups,
    namespaces: principal.namespaces
  }
}

function compileSpec<Req> (spec: PermissionSpec<Req>): CompiledPermissionSpec<Req> {
  if (spec === null || typeof spec !== 'object') throw new OptionError('requirePermission needs a spec { resources, actions }')
  const staticActions = typeof spec.actions === 'function' ? undefined : toActions(spec.actions)
  const { resources, project } = spec
  if (typeof resources !== 'function') checkResources(resources)
  // The actions and the project are read after the resources are found, as a handler reads them.
  const complete = (request: Req, list: readonly Resource[]): ResolvedSpec => ({
    resources: list,
    actions: staticActions ?? toActions((spec.actions as (request: Req) => ActionName | readonly ActionName[])(request)),
    project: typeof project === 'function' ? project(request) : project
  })
  return {
    filter: spec.filter === true,
    resolve: (request) => {
      if (typeof resources !== 'function') return complete(request, asList(resources))
      const found = resources(request)
      // A thenable is awaited as `await` would: Promise.resolve adopts it.
      return isThenable(found) ? Promise.resolve(found).then((value) => complete(request, checkResources(value))) : complete(request, checkResources(found))
    }
  }
}

function isThenable (value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
}

/** Action names and groups → actions; an unknown name or an empty list is an OptionError. */
function toActions (names: unknown): readonly Action[] {
  if (names === undefined || (Array.isArray(names) && names.length === 0)) throw new OptionError('requirePermission needs at least one action')
  const list: readonly unknown[] = Array.isArray(names) ? names : [names]
  const unknown = list.find((name) => !isAction(name) && !isActionGroup(name))
  if (unknown !== undefined) throw new OptionError(`requirePermission: ${unknownAction(unknown)}`)
  return Object.freeze(expandActions(names as ActionName | readonly ActionName[]))
}

function asList (resources: Resources): readonly Resource[] {
  return Array.isArray(resources) ? resources : [resources as Resource]
}

function checkResources (resources: unknown): readonly Resource[] {
  const list = asList(resources as Resources)
  for (const resource of list) {
    if (resource === null || typeof resource !== 'object' || typeof resource.type !== 'string' || typeof resource.name !== 'string') {
      throw new OptionError(`a resource must be { type, name }, got ${JSON.stringify(resource)}`)
    }
  }
  return list
}

/** The `permissions` option → a source asked on every check. A YAML path is read once, now. */
export function toPermissionSource (option: AuthzOptions['permissions']): PermissionSource {
  if (option === undefined) return fixed([])
  if (typeof option === 'string') return fixed(loadPermissionsFile(option))
  if (Array.isArray(option)) return fixed(option)
  if (isSource(option)) return option
  throw new OptionError('permissions must be a list of permissions, the path of a permissions YAML file, or { permissionsFor(project) }')
}

function isSource (option: AuthzOptions['permissions']): option is PermissionSource {
  return typeof option === 'object' && option !== null && !Array.isArray(option) && typeof (option as PermissionSource).permissionsFor === 'function'
}

function fixed (permissions: readonly Permission[]): PermissionSource {
  const frozen = Object.freeze([...permissions])
  return { permissionsFor: () => frozen }
}
