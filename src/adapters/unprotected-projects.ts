/**
 * Spec 5.6.3: in a project without any permission every authenticated caller may do anything,
 * as in Feast, and the operator is told: once per project per process. Where the projects are
 * known (a list or a YAML file, which stand for the server's project; a Feast registry) it is
 * said at startup, and for a registry again when a new project appears, so that a check never
 * has anything to do; a source whose projects are unknown is reported at the first check that
 * finds a project without permissions.
 */
import type { AuthLogger } from '../base/logging.ts'
import type { PermissionSource } from '../permissions/source.ts'

/** What the permission gate tells about projects without permissions. */
export interface UnprotectedProjects {
  /** A check found no permissions for `project` (undefined or empty: the server's own). */
  found (project: string | undefined): void
  /** Stops following the source's projects. */
  close (): void
}

export interface UnprotectedProjectsOptions {
  /** Whether the source is a fixed list (the `permissions` option as a list or a YAML file). */
  readonly fixed: boolean
  /** The server's own project (feature_store.yaml's `project`), for a source that does not say it. */
  readonly serverProject: string | undefined
  readonly logger: AuthLogger
}

/** The spec's warning, when no project has any permission. */
const NO_PERMISSIONS_WARNING = 'No permissions defined: every authenticated caller is granted full access. Define permissions to enforce fine-grained authorization.'

/** How many projects one line names; the `projects` field lists them all. */
export const NAMED_PROJECTS = 10

/**
 * How many projects a source of unknown projects is reported for. Its project names come from
 * requests: a source answering "none" for any name must not let callers fill the log.
 */
export const REPORTED_UNKNOWN_PROJECTS = 100

const NOTHING = (): void => {}

/** Reports what is known now, and returns what the gate calls when a check finds no permissions. */
export function reportUnprotectedProjects (source: PermissionSource, options: UnprotectedProjectsOptions): UnprotectedProjects {
  const { logger } = options
  if (options.fixed) {
    // A list applies to every project alike: empty, no project is protected.
    if (source.permissionsFor().length === 0) logger.warn(NO_PERMISSIONS_WARNING)
    return { found: NOTHING, close: NOTHING }
  }
  if (source.watchProjects !== undefined) {
    const stop = source.watchProjects(projectWatcher(source, logger))
    return { found: NOTHING, close: stop }
  }
  return { found: firstCheckReporter(options.serverProject, logger), close: NOTHING }
}

/** Reports, at each version of the source's projects, those without permissions not reported yet. */
function projectWatcher (source: PermissionSource, logger: AuthLogger): (projects: readonly string[]) => void {
  const reported = new Set<string>()
  let startup = true
  return (projects) => {
    const home = projects[0]
    const unprotected = projects.filter((name) => !reported.has(name) && source.permissionsFor(name).length === 0)
    const atStartup = startup
    startup = false
    if (unprotected.length === 0) return
    for (const name of unprotected) reported.add(name)
    if (atStartup && unprotected.length === projects.length) {
      logger.warn({ projects: unprotected }, NO_PERMISSIONS_WARNING)
      return
    }
    const where = atStartup
      ? `in ${unprotected.length} of ${projects.length} projects`
      : unprotected.length === 1 ? 'in a project new in the registry' : `in ${unprotected.length} projects new in the registry`
    logger.warn({ projects: unprotected }, noPermissionsWarning(where, fullAccessTo(unprotected, home)))
  }
}

/** Reports each project the first time a check finds it without permissions. */
function firstCheckReporter (serverProject: string | undefined, logger: AuthLogger): (project: string | undefined) => void {
  const reported = new Set<string>()
  let full = false
  return (project) => {
    const name = project === undefined || project === '' ? serverProject : project
    const key = name ?? ''
    if (reported.has(key) || full) return
    if (reported.size === REPORTED_UNKNOWN_PROJECTS) {
      full = true
      logger.warn({ reported: reported.size }, `feast-authz: ${reported.size} projects without permissions have been reported; further ones are not`)
      return
    }
    reported.add(key)
    const what = name === undefined ? 'the server\'s project' : fullAccessTo([name], serverProject)
    logger.warn(name === undefined ? {} : { projects: [name] }, noPermissionsWarning('', what))
  }
}

/**
 * The warning for projects without permissions, worded alike wherever it is said (the servers,
 * `feast-authz check`): `where` they are found, if said, and `what` every caller may then do
 * anything to (see {@link fullAccessTo}).
 */
export function noPermissionsWarning (where: string, what: string): string {
  return `No permissions defined${where === '' ? '' : ` ${where}`}: every authenticated caller has full access to ${what}. Define permissions to enforce fine-grained authorization.`
}

/** `project "a" (the server's own), project "b" and project "c"`, naming at most NAMED_PROJECTS. */
export function fullAccessTo (projects: readonly string[], home: string | undefined): string {
  const named = projects.slice(0, NAMED_PROJECTS).map((name) => `project ${JSON.stringify(name)}${name === home ? ' (the server\'s own)' : ''}`)
  if (projects.length > NAMED_PROJECTS) named.push(`${projects.length - NAMED_PROJECTS} more (listed in \`projects\`)`)
  return named.length === 1 ? named.join('') : `${named.slice(0, -1).join(', ')} and ${named.at(-1) ?? ''}`
}
