/** Named pipes (FIFOs) standing where a file is expected, for tests of code that must not wait on them, or that reads them. */
import { execFileSync, spawn } from 'node:child_process'
import { join } from 'node:path'

/** A named pipe and the writer that keeps a test from blocking forever; `close()` ends the writer. */
export interface NamedPipe {
  readonly path: string
  close (): void
}

/** What the writer of {@link namedPipe} does once a reader opens the pipe. */
export type PipeWriter =
  /** Holds the pipe open for 2 s without writing, then closes it (the default). */
  | 'silent'
  /** Writes `y\n` without end (`yes`), until the reader closes the pipe or `close()`. */
  | 'endless'
  /** Writes this text, then closes the pipe. */
  | { readonly text: string }

const SCRIPTS: Readonly<Record<'silent' | 'endless' | 'text', string>> = {
  // The shell's `>` blocks until a reader opens the pipe, then holds it open while the command runs.
  silent: 'sleep 2 > "$0"',
  endless: 'exec yes > "$0"',
  text: 'printf %s "$1" > "$0"'
}

/**
 * Creates the named pipe `<dir>/<name>` with a writer process that opens it. Code that refuses
 * the pipe never notices the writer. With the default writer, code that reads it by mistake
 * (`readFileSync` opens a pipe blocking, and reads until every writer is gone) gets an empty
 * file after 2 s instead of blocking the test's process, and with it every timer of the test
 * runner, forever.
 */
export function namedPipe (dir: string, name: string, writer: PipeWriter = 'silent'): NamedPipe {
  const path = join(dir, name)
  execFileSync('mkfifo', [path])
  const script = typeof writer === 'string' ? SCRIPTS[writer] : SCRIPTS.text
  const child = spawn('sh', ['-c', script, path, ...(typeof writer === 'string' ? [] : [writer.text])], { stdio: 'ignore' })
  child.unref()
  return { path, close: () => { child.kill() } }
}
