import { createHash } from 'node:crypto'
import { statSync, type Stats } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import type { PermissionSource } from '../permissions/source.ts'
import { ConfigError } from '../config/errors.ts'
import { pathForMessage } from '../base/credential-shape.ts'
import { quotedNames } from '../base/describe-value.ts'
import { didYouMean } from '../base/did-you-mean.ts'
import { checkRegularFile, describeReadError, FileTooLargeError, readFailureCause, readRegularFile } from '../base/regular-file.ts'
import { LOGGER_OPTION, silentLogger, type AuthLogger } from '../base/logging.ts'
import { checkOptions, integer, MAX_TIMER_MS, milliseconds, required, seconds, text, type OptionRules } from '../base/option-rules.ts'
import { permission } from '../permissions/define.ts'
import type { Permission, ResourceType } from '../permissions/model.ts'
import { roleBasedPolicy } from '../permissions/policy.ts'
import { DEFAULT_CACHE_TTL_SECONDS } from './config.ts'
import { DEFAULT_MAX_DECODED_BYTES, decodeRegistrySteps, DecodeBudgetError, RegistryDecodeError } from './decode.ts'
import type { FeatureViewResource, LabelViewResource, RegistryResource } from './resources.ts'
import { findFeatureView, pushTargets, snapshotSteps, type RegistryProject, type RegistrySnapshot } from './snapshot.ts'
import { runSliced, runToEnd } from './steps.ts'

/** Options of {@link openFeastRegistry}: which file, which project, how it is watched. */
export interface FeastRegistryOptions {
  /** The registry file (absolute, or relative to the working directory). */
  readonly path: string
  /** The server's project: used when a request names none, and required to be in the registry. */
  readonly project: string
  /** Re-read at least this often even when the file looks unchanged; 0 = only on change. Default 600. */
  readonly cacheTtlSeconds?: number
  /** How often to check the file for a change (size, mtime, inode). Default 1000 ms; 0 = never. */
  readonly pollIntervalMs?: number
  /** Where reload results and errors are logged. Default: silent. */
  readonly logger?: AuthLogger
  /** Largest registry file accepted. Default 64 MiB. */
  readonly maxBytes?: number
  /**
   * Memory budget of one decode: a registry whose decoded form would take more (estimated as it
   * is decoded) is refused before the process runs out of memory. Default 512 MiB.
   */
  readonly maxDecodedBytes?: number
}

/** The rules of the size limits, which `loadRegistryFile` takes as arguments. */
const LIMIT_RULES: OptionRules = { maxBytes: integer(1), maxDecodedBytes: integer(1) }

/** The rules of {@link FeastRegistryOptions}. */
const REGISTRY_OPTION_RULES: OptionRules = {
  path: required(text({ nonEmpty: true })),
  project: required(text({ nonEmpty: true })),
  cacheTtlSeconds: seconds(0),
  pollIntervalMs: milliseconds(0),
  logger: LOGGER_OPTION,
  ...LIMIT_RULES
}

/** What a refresh did. */
export type RefreshOutcome = 'updated' | 'unchanged' | 'rejected'

/**
 * The file as the last check found it, for health checks:
 * - `current`: the version in force is the file's (or the file is still being written);
 * - `unreadable`: the file could not be read or is not a serialized registry (gone, not a regular
 *   file, too large, cut short): Feast's own server cannot list its projects then, and its
 *   `/health` answers 503;
 * - `refused`: the file reads, but this server refused it (empty, which Python's protobuf reads as an
 *   empty registry; a project missing, an invalid permission, a project's permissions emptied):
 *   Feast would have taken it, and only a restart accepts it.
 * The last good version stays in force in both failing states, until a reload succeeds.
 */
export type RegistryFileState = 'current' | 'unreadable' | 'refused'

/**
 * A Feast registry file as a live source of permissions and resources. Serves the last good
 * version of the file; see `openFeastRegistry`.
 */
export interface FeastRegistry extends PermissionSource {
  readonly path: string
  /** The server's own project. */
  readonly project: string
  /** The version in force. */
  current (): RegistrySnapshot
  /**
   * The permissions of `project` (the server's project when undefined or empty), in registry
   * order. A project the registry does not have gets a single permission that denies everything:
   * naming an unknown project in a request must never mean "no permissions, allow all".
   */
  permissionsFor (project?: string): readonly Permission[]
  hasProject (name: string): boolean
  /**
   * Calls `listener` now with the projects of the version in force (the server's own first, then
   * in registry order), and again after each reload, before any request sees the new version;
   * returns what stops it. A listener that throws is logged and changes nothing.
   */
  watchProjects (listener: (projects: readonly string[]) => void): () => void
  /** The project's resources and permissions (the server's project when undefined). */
  projectView (name?: string): RegistryProject | undefined
  /** The resource of `type` called `name` in `project` (default: the server's project). */
  resource (type: ResourceType, name: string, project?: string): RegistryResource | undefined
  /** The feature view, stream or on-demand feature view called `name`. */
  featureView (name: string, project?: string): FeatureViewResource | undefined
  /**
   * What Feast's `POST /push` writes to for the push source `pushSource`: the (stream) feature views
   * whose stream source it is, and the label views whose source it is.
   */
  pushTargets (pushSource: string, project?: string): ReadonlyArray<FeatureViewResource | LabelViewResource>
  /** Re-reads the file now (whether or not it looks changed). Never throws; failures are logged. */
  refresh (): Promise<RefreshOutcome>
  /** Whether the last check could read the file and took it; see {@link RegistryFileState}. Costs nothing: it reads no file. */
  fileState (): RegistryFileState
  /** Stops watching the file. */
  close (): void
}

const DEFAULT_POLL_MS = 1000
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024
/** A reload works in slices of this many milliseconds, so requests never wait long behind it. */
const RELOAD_SLICE_MS = 10
const HASH_CHUNK_BYTES = 1024 * 1024
const READ_ATTEMPTS = 3

/**
 * Stands for every project the registry does not have: matches any resource and action, and its
 * policy (no roles) grants nobody.
 */
export const UNKNOWN_PROJECT_PERMISSIONS: readonly Permission[] = Object.freeze([permission({
  name: 'feast-authz: project not in the registry',
  policy: roleBasedPolicy([])
})])

/**
 * Loads a Feast registry file and keeps it current. Fails closed:
 * - at startup, a file that cannot be read, is empty, does not decode, holds an invalid
 *   permission, or does not list `project` is a ConfigError naming the file and the problem;
 * - later, a reload that fails for any of those reasons keeps the last good version in force and
 *   logs an error (once per version of the file);
 * - a reload that would leave a project that had permissions (in any version accepted since
 *   startup, so also one that left and comes back) with none is refused the same way (an emptied
 *   permission list would allow every authenticated user); restart the server to accept it on purpose.
 * The file is re-read when its size, mtime or inode changes (checked every `pollIntervalMs`) and
 * every `cacheTtlSeconds`. A file still being written (it changes while read) is read again on
 * the next check. Versions are swapped whole: a request sees one version or the next, never a mix.
 *
 * @example
 * ```ts
 * import { feastAuthz, openFeastRegistry } from 'feast-authz'
 * const registry = openFeastRegistry({ path: './data/registry.db', project: 'driver_ranking' })
 * await app.register(feastAuthz, { config: './feature_store.yaml', permissions: registry })
 * app.addHook('onClose', async () => { registry.close() })
 * ```
 */
export function openFeastRegistry (options: FeastRegistryOptions): FeastRegistry {
  checkOptions(options, REGISTRY_OPTION_RULES, { owner: 'openFeastRegistry' })
  const { path, project: home } = options
  const logger = options.logger ?? silentLogger
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  const limits = { maxDecodedBytes: options.maxDecodedBytes ?? DEFAULT_MAX_DECODED_BYTES }
  const ttlMs = (options.cacheTtlSeconds ?? DEFAULT_CACHE_TTL_SECONDS) * 1000
  const pollMs = options.pollIntervalMs ?? DEFAULT_POLL_MS

  const first = readStable(path, maxBytes)
  let current = runToEnd(loadSteps(first.bytes, path, home, undefined, limits))
  // Every project that had permissions in a version this server accepted, with how many. Checked
  // against every later version, not only the one before: a project dropped in one version and
  // back without permissions in the next must not open either.
  const guarded = new Map<string, number>()
  const guard = (snapshot: RegistrySnapshot): void => {
    for (const [name, { permissions }] of snapshot.projects) if (permissions.length > 0) guarded.set(name, permissions.length)
  }
  guard(current)
  let signature = first.signature
  let digest = digestOf(first.bytes)
  let lastReadAt = Date.now()
  let reportedFailure: string | undefined
  let fileState: RegistryFileState = 'current'
  let running: Promise<RefreshOutcome> | undefined
  let closed = false
  // Wrapped, so that one function watching twice is two watchers, each stopped on its own.
  const watchers = new Set<{ readonly listener: (projects: readonly string[]) => void }>()
  // Every project a request can reach, listed or not (a resource's project may be missing from the
  // list); the empty name is the server's own, which a request reaches by naming none.
  const projectsOf = (snapshot: RegistrySnapshot): readonly string[] =>
    [home, ...[...snapshot.projects.keys()].filter((name) => name !== home && name !== '')]
  // A logger that throws must not leave a reload half done (the new version swapped in, its
  // watchers never told) nor reject the timer's check, an unhandled rejection that ends the process.
  const log = (level: 'info' | 'error', fields: object, message: string): void => {
    try { logger[level](fields, message) } catch { /* the reload's outcome does not depend on its log line */ }
  }
  const tell = (watcher: { readonly listener: (projects: readonly string[]) => void }, projects: readonly string[]): void => {
    try {
      watcher.listener(projects)
    } catch (error) {
      log('error', { registry: path, err: error }, 'feast-authz: a watcher of the registry\'s projects failed')
    }
  }

  const reload = async (force: boolean): Promise<RefreshOutcome> => {
    let seen: string
    try {
      const info = await stat(path)
      // A named pipe or a device swapped in would hold the read forever (and every refresh after it).
      checkRegularFile(info)
      seen = signatureOf(info)
      const due = ttlMs > 0 && Date.now() - lastReadAt >= ttlMs
      if (!force && !due && seen === signature) return 'unchanged'
      const tooLarge = (size: number): Error => new Error(`the file is ${size} bytes, larger than the ${maxBytes} bytes accepted`)
      if (info.size > maxBytes) throw tooLarge(info.size)
      const bytes = await readFile(path)
      const after = signatureOf(await stat(path))
      if (after !== seen || bytes.length > maxBytes) {
        if (bytes.length > maxBytes) throw tooLarge(bytes.length)
        return 'unchanged' // still being written: the next check reads it again
      }
      lastReadAt = Date.now()
      const nextDigest = await runSliced(digestSteps(bytes), RELOAD_SLICE_MS)
      if (nextDigest === digest) { signature = seen; fileState = 'current'; reportedFailure = undefined; return 'unchanged' }
      // Decoded and indexed in slices: requests keep being served with the version in force meanwhile.
      const next = await runSliced(loadSteps(bytes, path, home, { previous: current, guarded }, limits), RELOAD_SLICE_MS)
      current = next
      guard(next)
      signature = seen
      digest = nextDigest
      reportedFailure = undefined
      fileState = 'current'
      log('info', { registry: path, versionId: next.versionId, permissions: next.permissions.length }, 'feast-authz: registry reloaded')
      const projects = projectsOf(next)
      for (const watcher of watchers) tell(watcher, projects)
      return 'updated'
    } catch (error) {
      const reason = error instanceof ConfigError ? error.message : `${path}: ${describeReadError(error)}`
      const failure = `${reason}`
      // What Feast's list_projects fails on (a read, a parse) is unreadable; our own refusals of a file that reads are not.
      fileState = error instanceof ConfigError && !(error.cause instanceof RegistryDecodeError) ? 'refused' : 'unreadable'
      // Once per distinct problem: a broken file checked every second must not flood the log.
      if (failure !== reportedFailure) {
        reportedFailure = failure
        log('error', { registry: path, error: reason, inForce: current.versionId }, 'feast-authz: registry reload failed; the last good registry stays in force')
      }
      try { signature = signatureOf(await stat(path)) } catch { /* keep the old signature: retried on the next check */ }
      lastReadAt = Date.now()
      return 'rejected'
    }
  }

  const check = async (force: boolean): Promise<RefreshOutcome> => {
    if (running !== undefined) {
      // One reload at a time; a forced refresh waits for the running one, then reads again.
      const outcome = await running
      if (!force) return outcome
    }
    running = reload(force).finally(() => { running = undefined })
    return await running
  }

  // Without polling the TTL is the period; a TTL beyond what a timer honours is checked that often.
  const interval = pollMs > 0 ? pollMs : Math.min(ttlMs, MAX_TIMER_MS)
  const timer = interval > 0 ? setInterval(() => { if (!closed) void check(false) }, interval) : undefined
  timer?.unref()

  const view = (name: string | undefined): RegistryProject | undefined => current.projects.get(name === undefined || name === '' ? home : name)

  return {
    path,
    project: home,
    current: () => current,
    permissionsFor: (project) => view(project)?.permissions ?? UNKNOWN_PROJECT_PERMISSIONS,
    hasProject: (name) => current.projects.has(name),
    watchProjects: (listener) => {
      const watcher = { listener }
      tell(watcher, projectsOf(current))
      watchers.add(watcher)
      return () => { watchers.delete(watcher) }
    },
    projectView: view,
    resource: (type, name, project) => view(project)?.find(type, name),
    featureView: (name, project) => {
      const found = view(project)
      return found === undefined ? undefined : findFeatureView(found, name)
    },
    pushTargets: (pushSource, project) => {
      const found = view(project)
      return found === undefined ? [] : pushTargets(found, pushSource)
    },
    refresh: async () => await check(true),
    fileState: () => fileState,
    close: () => {
      closed = true
      watchers.clear()
      if (timer !== undefined) clearInterval(timer)
    }
  }
}

/**
 * Reads, decodes and checks a registry file once (no watching): what `feast-authz registry show`
 * prints. `project`, the server's, must be in it; without one, any project list but an empty one
 * will do. Throws a ConfigError naming the file and the problem.
 */
export function loadRegistryFile (
  path: string, project: string | undefined, maxBytes = DEFAULT_MAX_BYTES, maxDecodedBytes = DEFAULT_MAX_DECODED_BYTES
): RegistrySnapshot {
  checkOptions({ maxBytes, maxDecodedBytes }, LIMIT_RULES, { owner: 'loadRegistryFile' })
  return runToEnd(loadSteps(readStable(path, maxBytes).bytes, path, project, undefined, { maxDecodedBytes }))
}

function * loadSteps (
  bytes: Uint8Array,
  path: string,
  home: string | undefined,
  before: { readonly previous: RegistrySnapshot, readonly guarded: ReadonlyMap<string, number> } | undefined,
  limits: { maxDecodedBytes: number }
): Generator<void, RegistrySnapshot> {
  let snapshot: RegistrySnapshot
  let legacy = false
  try {
    const message = yield * decodeRegistrySteps(bytes, limits)
    legacy = (message.projects?.length ?? 0) === 0 && (message.project_metadata?.length ?? 0) > 0
    snapshot = yield * snapshotSteps(message, path)
  } catch (error) {
    const reason = error instanceof DecodeBudgetError
      ? `the registry is too large to decode: ${error.message}`
      : error instanceof RegistryDecodeError ? `not a serialized feast.core.Registry (${error.message})` : (error as Error).message
    throw new ConfigError(`cannot use the Feast registry: ${reason}`, { source: path }, error)
  }
  if (home === undefined ? snapshot.projectNames.length === 0 : !snapshot.projectNames.includes(home)) {
    const problem = legacy
      ? 'the registry has no project list, only the project_metadata of Feast older than 0.41; feast-authz does not read that (a current file cut short looks the same, see docs/registry.md): run `feast apply` with Feast 0.41 or newer, which writes the project list'
      : snapshot.projectNames.length === 0
        ? 'the registry lists no projects (Feast writes its project list last, so a file cut short looks like this; so does one written by Feast older than 0.41)'
        : `the registry has no project ${JSON.stringify(home)}${didYouMean(home ?? '', snapshot.projectNames)} (it has ${quotedNames(snapshot.projectNames)}); check \`project\` in feature_store.yaml`
    throw new ConfigError(`cannot use the Feast registry: ${problem}`, { source: path })
  }
  if (before !== undefined) {
    for (const [name, count] of before.guarded) {
      const after = snapshot.projects.get(name)
      if (after === undefined || after.permissions.length > 0) continue
      // A project missing from the version in force is coming back: say so, or the count would puzzle.
      const when = before.previous.projects.has(name) ? '' : ' before it left the registry'
      throw new ConfigError(`refusing the new registry: project ${JSON.stringify(name)} had ${count} permission(s)${when} and now has none, ` +
        'which would allow every authenticated user; restart the server to accept that on purpose', { source: path })
    }
  }
  return snapshot
}

/** Reads the whole file, again when it changed while being read (Feast does not write it atomically). */
function readStable (path: string, maxBytes: number): { bytes: Buffer, signature: string } {
  let lastError: unknown
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    try {
      const before = statSync(path)
      const bytes = readRegularFile(path, maxBytes)
      const signature = signatureOf(statSync(path))
      if (signature === signatureOf(before) && bytes.length === before.size) return { bytes, signature }
      lastError = new Error('the file changed while it was read')
    } catch (error) {
      if (error instanceof FileTooLargeError) throw new ConfigError(`cannot use the Feast registry: the file is ${error.size} bytes, larger than the ${maxBytes} bytes accepted`, { source: path })
      // A path that names no file may be a token given in its place (`--registry "$TOKEN"`).
      throw new ConfigError(`cannot read the Feast registry: ${describeReadError(error)}`, { source: pathForMessage(path) }, readFailureCause(path, error))
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50 * (attempt + 1))
  }
  throw new ConfigError(`cannot read the Feast registry: ${(lastError as Error).message} (${READ_ATTEMPTS} times)`, { source: path })
}

function signatureOf (stats: Stats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`
}

function digestOf (bytes: Uint8Array): string {
  return runToEnd(digestSteps(bytes))
}

function * digestSteps (bytes: Uint8Array): Generator<void, string> {
  const hash = createHash('sha256')
  for (let at = 0; at < bytes.length; at += HASH_CHUNK_BYTES) {
    hash.update(bytes.subarray(at, at + HASH_CHUNK_BYTES))
    yield
  }
  return hash.digest('hex')
}
