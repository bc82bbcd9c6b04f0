/** The markdown report around the table and the verdicts. */
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { ROUTE } from '../servers/common.ts'
import type { CorePlan } from './cores.ts'
import type { LoadResult } from './load.ts'
import { evaluateTargets, median, mib, micros, renderTable, renderVerdicts, type CryptoLimit, type FloodResult, type MemoryResult, type RefreshResult, type ScenarioRuns, type StartupResult } from './report.ts'
import type { Settings } from './settings.ts'

export interface Machine { nproc: number, cpu: string, node: string, pinning: string, loadAverage: number[] }

export function describeMachine (cores: CorePlan, nproc: number): Machine {
  let cpu = 'unknown'
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu
  } catch { /* not Linux */ }
  return {
    nproc,
    cpu,
    node: process.version,
    pinning: cores.note ?? `server on core ${String(cores.serverCore)}, autocannon on core ${String(cores.loadCore)} (taskset)`,
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100)
  }
}

export function renderReport (input: {
  settings: Settings
  machine: Machine
  results: readonly ScenarioRuns[]
  crypto: CryptoLimit | undefined
  flood: FloodResult | undefined
  memory: MemoryResult | undefined
  refresh?: RefreshResult | undefined
  startup?: StartupResult | undefined
  verdicts: ReturnType<typeof evaluateTargets>
}): string {
  const { settings, machine, crypto, flood } = input
  const lines = [
    `## Benchmark ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC${settings.quick ? ' (BENCH_QUICK: indicative only)' : ''}`,
    '',
    `Machine: ${machine.nproc} cores, ${machine.cpu}, Node ${machine.node}; ${machine.pinning}; load average at the end ${machine.loadAverage.join(' / ')}.`,
    `Load: autocannon, ${settings.connections} connections, ${settings.rounds} rounds of ${settings.durationSeconds} s per scenario, \`GET ${ROUTE}\`; ` +
      `all servers up together, measured in turn${settings.settleSeconds > 0 ? ` (each after ${settings.settleSeconds} s of unmeasured load)` : ''}, the order reversed every other round, ` +
      `and restarted (${settings.warmupSeconds} s warm-up) for each of ${Math.min(settings.processes, settings.rounds)} generations of rounds; ` +
      'a ratio verdict is the median of its rounds\' ratios.',
    '',
    renderTable(input.results),
    ''
  ]
  if (crypto !== undefined) {
    const bareCost = median(input.results.find((r) => r.id === 'bare')?.runs.map((run) => run.serverCpuMicrosPerRequest) ?? [])
    const verifyMicros = 1e6 / crypto.nodeCryptoVerifyPerSec
    lines.push(`Signature-check limit on the server core (RS256, same key and token shape, per CPU-second): \`node:crypto.verify\` **${Math.round(crypto.nodeCryptoVerifyPerSec).toLocaleString('en-US')}/s** (${verifyMicros.toFixed(1)} µs); ` +
      `jose \`jwtVerify\` ${Math.round(crypto.joseJwtVerifyPerSec).toLocaleString('en-US')}/s (${(crypto.joseJwtVerifyPerSec / crypto.nodeCryptoVerifyPerSec).toFixed(2)}× of it).` +
      (Number.isFinite(bareCost) ? ` A server that checks every signature costs at least ${Math.round(bareCost)} + ${verifyMicros.toFixed(1)} µs per request here, ≈ ${Math.round(1e6 / (bareCost + verifyMicros)).toLocaleString('en-US')} req/s on a core of its own.` : ''), '')
  }
  if (flood !== undefined) {
    const during = flood.valid
    const describe = (run: LoadResult): string => `${Math.round(run.rps).toLocaleString('en-US')} req/s, ${micros(run.serverCpuMicrosPerRequest)} µs/req`
    const describeMedian = (runs: readonly LoadResult[]): string =>
      `${Math.round(median(runs.map((run) => run.rps))).toLocaleString('en-US')} req/s, ${micros(median(runs.map((run) => run.serverCpuMicrosPerRequest)))} µs/req`
    lines.push(`Unknown-kid flood (scenario 2's server): ${flood.floodRequests.toLocaleString('en-US')} random-kid requests over ${flood.seconds} s → ${flood.jwksFetches} JWKS fetch(es). ` +
      `Valid traffic: ${describe(flood.before)} just before, ${describe(during)} during (server CPU of the flood included), ${describe(flood.after)} just after.` +
      (flood.rounds === undefined || flood.rounds.flooded.length === 0
        ? ''
        : ` Then ${flood.rounds.flooded.length} paired rounds of ${settings.durationSeconds} s, the flood's rate on and off (medians): ${describeMedian(flood.rounds.flooded)} with it, ${describeMedian(flood.rounds.alone)} without.`), '')
  }
  if (input.startup !== undefined) {
    const node = input.startup.probes.find((probe) => probe.id === 'node')
    lines.push(`Start-up (built package, plain node, median of ${input.startup.runs} fresh processes per probe, the probes taking turns, on the server core):`, '',
      '| import | time ms | RSS MiB | RSS over node alone |', '|---|---:|---:|---:|',
      ...input.startup.probes.map((probe) => `| ${probe.label} | ${probe.importMs.toFixed(1)} | ${mib(probe.rss)} | ${node === undefined ? '—' : `+${mib(probe.rss - node.rss)}`} |`), '',
      `From process start to the first authenticated answer (Fastify + the plugin in OIDC mode, discovery and key set included): **${Math.round(input.startup.firstAnswerMs)} ms**.`, '')
  }
  lines.push('### Targets', '', renderVerdicts(input.verdicts))
  return lines.join('\n')
}
