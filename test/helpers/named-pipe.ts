/** Named pipes (FIFOs) standing where a file is expected, for tests of code that must not wait on them. */
import { execFileSync, spawn } from 'node:child_process'
import { join } from 'node:path'

/** A named pipe and the writer that keeps a test from blocking forever; `close()` ends the writer. */
export interface NamedPipe {
  readonly path: string
  close (): void
}

/**
 * Creates the named pipe `<dir>/<name>` with a writer process that opens it and holds it for
 * 2 s. Code that refuses the pipe never notices the writer. Code that reads it by mistake
 * (`readFileSync` opens a pipe blocking, and reads until every writer is gone) gets an empty
 * file after 2 s instead of blocking the test's process, and with it every timer of the
 * test runner, forever.
 */
export function namedPipe (dir: string, name: string): NamedPipe {
  const path = join(dir, name)
  execFileSync('mkfifo', [path])
  // The shell's `>` blocks until a reader opens the pipe, then holds it open while sleep runs.
  const writer = spawn('sh', ['-c', 'sleep 2 > "$0"', path], { stdio: 'ignore' })
  writer.unref()
  return { path, close: () => { writer.kill() } }
}
