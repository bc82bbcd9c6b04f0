/**
 * Core pinning: the server under test gets one core and the load generator (this process)
 * another, so that they do not steal each other's time. Needs `taskset` (util-linux) and at
 * least two usable cores; otherwise everything runs unpinned and the report says so.
 */
import { spawnSync } from 'node:child_process'

export interface CorePlan {
  /** Prefix for a server's command line (`['taskset', '-c', '0']`), or empty when not pinning. */
  readonly serverPrefix: readonly string[]
  readonly serverCore: number | undefined
  readonly loadCore: number | undefined
  /** Why pinning is off, when it is. */
  readonly note: string | undefined
}

export function planCores (): CorePlan {
  const probe = spawnSync('taskset', ['-pc', String(process.pid)], { encoding: 'utf8' })
  if (probe.error !== undefined || probe.status !== 0) {
    return { serverPrefix: [], serverCore: undefined, loadCore: undefined, note: 'taskset not found: server and load generator are not pinned' }
  }
  const cores = parseCpuList(probe.stdout.split(':').pop() ?? '')
  if (cores.length < 2) {
    return { serverPrefix: [], serverCore: undefined, loadCore: undefined, note: `only ${cores.length} usable core: server and load generator share it` }
  }
  const [serverCore, loadCore] = cores as [number, number]
  // -a: every thread of this process (libuv pool, V8 helpers), not only the main one.
  const pin = spawnSync('taskset', ['-a', '-pc', String(loadCore), String(process.pid)], { encoding: 'utf8' })
  if (pin.status !== 0) {
    return { serverPrefix: [], serverCore: undefined, loadCore: undefined, note: `taskset could not pin the harness: ${pin.stderr.trim()}` }
  }
  return { serverPrefix: ['taskset', '-c', String(serverCore)], serverCore, loadCore, note: undefined }
}

/** Parses `0-3,6,8-9`. */
export function parseCpuList (text: string): number[] {
  const cores: number[] = []
  for (const part of text.trim().split(',')) {
    const [from, to] = part.split('-').map((value) => Number.parseInt(value, 10))
    if (from === undefined || Number.isNaN(from)) continue
    for (let core = from; core <= (to ?? from); core++) cores.push(core)
  }
  return cores
}
