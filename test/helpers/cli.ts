import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

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
  /** Written to the process's standard input, which is then closed (closed at once without it). */
  readonly input?: string
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))

/**
 * Runs `feast-authz <args>` from the sources in a child process, from the repository root
 * (so fixture paths like `fixtures/...` resolve), and resolves when it exits.
 *
 * @example
 * ```ts
 * const { code, stdout, stderr } = await runCli(['operator', 'render', '--resource', 'fixtures/operator/featurestore-default.yaml'])
 * ```
 */
export function runCli (args: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    // A process that exits before reading its input must not fail the run with EPIPE.
    child.stdin.on('error', () => {})
    child.stdin.end(options.input)
    child.on('error', reject)
    child.on('close', (code) => { resolve({ code, stdout, stderr }) })
  })
}
