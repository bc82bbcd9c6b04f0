/**
 * Instructions executed by a server process under valgrind's callgrind, counted over a window
 * of requests: `callgrind_control` switches counting on before the window and dumps after it.
 * Instruction counts do not depend on what else the machine is doing, which makes them the one
 * reading of a shared VM that a change of a few hundred instructions per request shows in.
 */
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * The command prefix that starts a server under callgrind, counting nothing until told to.
 * `--separate-threads` writes one file per thread: the main thread (JavaScript, the HTTP parser,
 * crypto) is then read apart from V8's compiler and collector threads, whose work moves with timing.
 */
export function callgrindPrefix (outputDir: string): string[] {
  return ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes',
    // V8 writes the machine code it runs: valgrind must notice code that changes on the heap.
    '--smc-check=all-non-file', `--callgrind-out-file=${join(outputDir, 'out.%p')}`]
}

/** Whether valgrind and callgrind_control can be run here. */
export async function callgrindAvailable (): Promise<boolean> {
  try {
    await run('valgrind', ['--version'])
    await run('callgrind_control', ['--version'])
    return true
  } catch {
    return false
  }
}

/** The instruction total of one callgrind dump (its `totals:` line), or undefined while it is being written. */
export function totalsOf (dump: string): number | undefined {
  const match = /^totals:\s+(\d+)/m.exec(dump)
  return match === null ? undefined : Number(match[1])
}

/**
 * The thread a dump file belongs to: callgrind names them `<out>.<dump>-<thread>`, thread 1 being
 * the process's main thread. Undefined for the empty file it writes at start (no thread suffix).
 */
export function threadOf (fileName: string): number | undefined {
  const match = /\.\d+-(\d+)$/.exec(fileName)
  return match === null ? undefined : Number(match[1])
}

export interface InstructionCount {
  /** Instructions of the main thread over the window. */
  readonly main: number
  /** Instructions of every other thread (V8's compiler and garbage-collector helpers, libuv's pool). */
  readonly others: number
}

/**
 * Counts the instructions process `pid` executes while `window` runs. The process must have been
 * started with {@link callgrindPrefix}`(outputDir)`, and nothing else may write there meanwhile.
 */
export async function countInstructions (pid: number, outputDir: string, window: () => Promise<void>): Promise<InstructionCount> {
  for (const file of dumpFiles(outputDir)) rmSync(join(outputDir, file))
  await control('--zero', pid)
  await control('--instr=on', pid)
  await window()
  await control('--instr=off', pid)
  await control('--dump', pid)
  // The dump is written after the command is acknowledged: wait for every thread's totals.
  for (let attempt = 0; attempt < 600; attempt++) {
    const files = dumpFiles(outputDir)
    const totals = files.map((file) => ({ thread: threadOf(file), total: totalsOf(readFileSync(join(outputDir, file), 'utf8')) }))
    if (totals.some(({ thread }) => thread === 1) && totals.every(({ total }) => total !== undefined)) {
      let main = 0
      let others = 0
      for (const { thread, total } of totals) {
        if (thread === 1) main += total!
        else others += total!
      }
      return { main, others }
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`callgrind wrote no complete dump for process ${pid} in ${outputDir} within 60 s`)
}

function dumpFiles (outputDir: string): string[] {
  return readdirSync(outputDir).filter((file) => threadOf(file) !== undefined)
}

async function control (command: string, pid: number): Promise<void> {
  await run('callgrind_control', [command, String(pid)])
}
