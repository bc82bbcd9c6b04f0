import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { after, before } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { CliIo } from '../../src/cli/io.ts'
import { startOidcProvider, type TestProvider } from './oidc-provider.ts'

/** What a finished `feast-authz` process left: its exit code and everything it printed. */
export interface CliRun {
  /** Exit code; null when a signal ended the process. */
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /**
   * Variables added to a minimal environment (PATH only): no token variable or
   * `FEATURE_STORE_YAML_BASE64` of the machine running the tests leaks in.
   */
  readonly env?: NodeJS.ProcessEnv
  /**
   * Written to the process's standard input, which is then closed (closed at once without it).
   * A stream is piped in as it produces, for as long as the process reads: an endless one stands
   * for a writer that never stops.
   */
  readonly input?: string | Readable
  /** Working directory (default: the repository root, so that `fixtures/...` paths resolve). */
  readonly cwd?: string
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
// Resolved here, not from the child's working directory, which may be outside the repository.
const TSX = import.meta.resolve('tsx')

/** A `feast-authz` process still running: its output so far, and its end. */
export interface RunningCli {
  readonly child: ChildProcess
  stdout (): string
  stderr (): string
  /** Resolves when the process has exited and its output is complete. */
  readonly exited: Promise<CliRun>
}

/**
 * Starts `feast-authz <args>` from the sources in a child process, from the repository root
 * (so fixture paths like `fixtures/...` resolve), for commands that keep running (`serve`):
 * the caller watches the output and stops it with a signal.
 */
export function startCli (args: readonly string[], options: RunCliOptions = {}): RunningCli {
  return start(process.execPath, ['--import', TSX, MAIN, ...args], options)
}

/**
 * Runs a bash command line in which `feast-authz` runs the CLI from the sources, for what only a
 * shell gives: `runCliInBash('feast-authz inspect --token-file <(printf %s "$1")', ['a-token'])`
 * (`args` are `$1`, `$2`... of the line). The environment is as minimal as {@link runCli}'s.
 */
export async function runCliInBash (commandLine: string, args: readonly string[] = [], options: RunCliOptions = {}): Promise<CliRun> {
  // The paths arrive as positional parameters, kept in shell variables: nothing is quoted into the script, nothing exported.
  const script = `node=$1 tsx=$2 main=$3; shift 3\nfeast-authz () { "$node" --import "$tsx" "$main" "$@"; }\n${commandLine}`
  return await start('bash', ['-c', script, 'bash', process.execPath, TSX, MAIN, ...args], options).exited
}

/** What `feast-authz` printed on a terminal of its own: stdout and stderr as the terminal shows them (`\r\n` line ends). */
export interface TerminalRun {
  readonly code: number | null
  readonly screen: string
}

/**
 * Why no terminal can be given to a command here (util-linux `script` is missing), or undefined:
 * tests that type at a terminal skip with this reason. Debian and Ubuntu always have it (package
 * bsdutils); CI checks for it (.ci/run), so under CI its absence throws instead.
 */
export function scriptMissing (): string | undefined {
  try {
    execFileSync('script', ['--version'], { stdio: 'pipe', timeout: 20_000 })
    return undefined
  } catch (error) {
    const missing = `util-linux's script is not installed (${(error as NodeJS.ErrnoException).code ?? 'failed'}); install the Debian package bsdutils to run these tests`
    if (process.env.CI !== undefined) throw new Error(`CI must run the terminal tests: ${missing}`)
    return missing
  }
}

/**
 * Runs `feast-authz <args>` on a terminal of its own (util-linux `script` opens one, in its usual
 * line-by-line mode, echo on), and types `keys` at it once `waitFor` shows on its screen, as a
 * person pasting at a prompt would. The environment is as minimal as {@link runCli}'s.
 */
export async function runCliOnTerminal (args: readonly string[], keys: string, waitFor: string, options: Omit<RunCliOptions, 'input'> = {}): Promise<TerminalRun> {
  const quote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`
  const commandLine = [process.execPath, '--import', TSX, MAIN, ...args].map(quote).join(' ')
  const child = spawn('script', ['--quiet', '--return', '--flush', '--command', commandLine, '/dev/null'], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH, SHELL: '/bin/sh', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let screen = ''
  let typed = false
  child.stdin.on('error', () => {})
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk
    if (!typed && screen.includes(waitFor)) { typed = true; child.stdin.write(keys) }
  })
  return await new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => { resolve({ code, screen }) })
  })
}

function start (command: string, argv: readonly string[], options: RunCliOptions): RunningCli {
  const child = spawn(command, argv, {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  // A process that exits before reading its input must not fail the run with EPIPE.
  child.stdin.on('error', () => {})
  if (options.input instanceof Readable) options.input.pipe(child.stdin)
  else child.stdin.end(options.input)
  const exited = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => { resolve({ code, stdout, stderr }) })
  })
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

/**
 * Runs `feast-authz <args>` like {@link startCli} and resolves when it exits.
 *
 * @example
 * ```ts
 * const { code, stdout, stderr } = await runCli(['operator', 'render', '--resource', 'fixtures/operator/featurestore-default.yaml'])
 * ```
 */
export async function runCli (args: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  return await startCli(args, options).exited
}

/** The address a running `feast-authz serve` reports on stderr, once it listens. */
export async function listeningUrl (run: RunningCli): Promise<string> {
  for (;;) {
    const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stderr())
    if (found?.[1] !== undefined) return found[1]
    const done = await Promise.race([run.exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => { resolve(false) }, 50))])
    if (done) throw new Error(`serve exited before listening: ${run.stderr()}`)
  }
}

/** A command's entry point as the CLI calls it: arguments and the process's I/O. */
export type CliCommand = (args: string[], io: CliIo) => Promise<number>

/**
 * Runs a command in this process with an empty environment, keeping what it prints: for the
 * many argument errors, each of which would otherwise cost a process.
 */
export async function runInProcess (command: CliCommand, args: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  let stdout = ''
  let stderr = ''
  const code = await command(args, { stdout: (text) => { stdout += text }, stderr: (text) => { stderr += text }, env: {} })
  return { code, stdout, stderr }
}

/** What {@link useOidcConfig} gives: read inside tests only. */
export interface OidcConfig {
  readonly provider: TestProvider
  /** `<dir>/feature_store.yaml`: project `demo`, OIDC with client_id `feast` at the provider. */
  readonly configPath: string
}

/** Before the suite's tests: a real provider and a feature_store.yaml in `dir` naming it; the provider closes after them. */
export function useOidcConfig (dir: string): OidcConfig {
  let provider: TestProvider | undefined
  const configPath = join(dir, 'feature_store.yaml')
  before(async () => {
    provider = await startOidcProvider()
    writeFileSync(configPath, `project: demo\nauth:\n  type: oidc\n  client_id: feast\n  auth_discovery_url: ${provider.discoveryUrl}\n`)
  })
  after(async () => { await provider?.close() })
  return {
    get provider () {
      if (provider === undefined) throw new Error('useOidcConfig: the provider starts in the suite\'s before hook; use it inside a test')
      return provider
    },
    configPath
  }
}
