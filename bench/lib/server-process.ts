/**
 * Starts one benchmark server (`bench/servers/<name>.ts`) as a child process, optionally
 * pinned to a core, and talks to it over IPC.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { ClockReport, MemoryReport } from '../servers/common.ts'
import type { CorePlan } from './cores.ts'

export interface ServerProcess {
  readonly name: string
  readonly url: string
  readonly pid: number
  memory (): Promise<MemoryReport>
  /** The server's monotonic clock in µs (the time base of its CPU profile). */
  clock (): Promise<number>
  /** CPU time (user + system, all threads) the server process has used so far, in seconds; NaN off Linux. */
  cpuSeconds (): number
  /** Orderly stop (writes the CPU profile when one was asked for); kills it after 15 s. */
  stop (): Promise<void>
}

export interface StartOptions {
  readonly cores: CorePlan
  readonly env: Record<string, string>
  /** Extra node flags, e.g. `--expose-gc`, `--cpu-prof`. */
  readonly nodeFlags?: readonly string[]
}

const SERVERS_DIR = fileURLToPath(new URL('../servers/', import.meta.url))

export async function startServer (name: string, options: StartOptions): Promise<ServerProcess> {
  const nodeArgs = [...(options.nodeFlags ?? []), '--import', 'tsx', `${SERVERS_DIR}${name}.ts`]
  const [command = process.execPath, ...args] = [...options.cores.serverPrefix, process.execPath, ...nodeArgs]
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, ...options.env, NODE_ENV: 'production' }
  })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-4000) })
  const port = await readPort(child, () => stderr, name)
  const exited = once(child, 'exit')
  // One question at a time (replies carry no id), and a server that dies fails the question.
  let queue: Promise<unknown> = Promise.resolve()
  const ask = async <T>(type: 'memory' | 'clock'): Promise<T> => {
    const question = queue.catch(() => {}).then(async () => {
      const reply = once(child, 'message') as Promise<[T]>
      child.send({ type })
      const died = exited.then(([code]) => { throw new Error(`server ${name} exited (code ${String(code)}) before answering ${type}\n${stderr}`) })
      died.catch(() => {}) // handled by the race below; must not surface when the server stops later
      return (await Promise.race([reply, died]))[0]
    })
    queue = question
    return await question
  }
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? -1,
    memory: async () => await ask<MemoryReport>('memory'),
    clock: async () => (await ask<ClockReport>('clock')).micros,
    cpuSeconds: () => processCpuSeconds(child.pid ?? -1),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.send({ type: 'stop' })
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    }
  }
}

const CLOCK_TICKS_PER_SECOND = readClockTicks()

/**
 * utime + stime from /proc/<pid>/stat. `taskset -c N node …` execs node in place, so the
 * child's pid is the server's.
 */
export function processCpuSeconds (pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may contain spaces), from field 3 on.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND
  } catch {
    return Number.NaN
  }
}

function readClockTicks (): number {
  const result = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })
  const ticks = Number.parseInt(result.stdout ?? '', 10)
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100
}

async function readPort (child: ChildProcess, stderr: () => string, name: string): Promise<number> {
  return await new Promise((resolve, reject) => {
    let buffer = ''
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`server ${name} did not announce its port within 30 s\n${stderr()}`)) }, 30_000)
    const onData = (chunk: string): void => {
      buffer += chunk
      const line = buffer.split('\n').find((candidate) => candidate.startsWith('{"port":'))
      if (line === undefined) return
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      resolve((JSON.parse(line) as { port: number }).port)
    }
    child.stdout?.setEncoding('utf8').on('data', onData)
    // Keep draining stdout after the port line, so a chatty server never blocks on a full pipe.
    child.stdout?.resume()
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`server ${name} exited with code ${String(code)} before listening\n${stderr()}`))
    })
  })
}
