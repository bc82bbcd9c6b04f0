/** Turns the measurements into the markdown report, the target verdicts and the JSON file. */
import type { LoadResult } from './load.ts'
import type { Settings } from './settings.ts'

export interface ScenarioRuns {
  readonly id: string
  readonly label: string
  readonly peer: boolean
  readonly runs: LoadResult[]
  /** Kubernetes scenario: per-request API calls seen during the measured windows. */
  apiCalls?: number
  requests?: number
  skipped?: string
}

/** Signature checks per second of CPU time on the server's core (RS256). */
export interface CryptoLimit { readonly nodeCryptoVerifyPerSec: number, readonly joseJwtVerifyPerSec: number }

export interface FloodResult {
  readonly seconds: number
  readonly floodRequests: number
  readonly floodRejected: number
  readonly flood5xx: number
  readonly jwksFetches: number
  readonly discoveryFetches: number
  /** Valid traffic alone on the same server, just before and just after the flood. */
  readonly before: LoadResult
  readonly after: LoadResult
  /** Valid traffic during the flood. */
  readonly valid: LoadResult
}

export interface MemoryResult {
  /** Tokens asked for, and actually sent before the time cap. */
  readonly tokens: number
  readonly sent: number
  readonly accepted: number
  readonly rssBefore: number
  readonly rssAfter: number
  readonly rssPeak: number
  readonly heapBefore: number
  readonly heapAfter: number
  readonly rps: number
  readonly seconds: number
}

export interface Verdict {
  readonly target: string
  readonly status: 'PASS' | 'FAIL' | 'SKIP' | 'WARN'
  readonly measured: string
}

/** Below this share of its core, a server was not what limited the run (the machine was busy). */
const SATURATED = 0.8
/** Above this share of its core, autocannon itself was the limit. */
const GENERATOR_BOUND = 0.9

export function median (values: readonly number[]): number {
  const finite = values.filter(Number.isFinite)
  if (finite.length === 0) return Number.NaN
  const sorted = [...finite].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** The medians a scenario is summarised by. */
interface Summary { rps: number, p99: number, cpuMicros: number, serverCpu: number, generatorCpu: number }

function summarise (runs: readonly LoadResult[]): Summary {
  return {
    rps: median(runs.map((run) => run.rps)),
    p99: median(runs.map((run) => run.p99Ms)),
    cpuMicros: median(runs.map((run) => run.serverCpuMicrosPerRequest)),
    serverCpu: median(runs.map((run) => run.serverCpu)),
    generatorCpu: median(runs.map((run) => run.generatorCpu))
  }
}

/** The reference around the flood: the mean of the runs just before and just after it. */
function mean (a: Summary, b: Summary): Summary {
  return {
    rps: (a.rps + b.rps) / 2,
    p99: (a.p99 + b.p99) / 2,
    cpuMicros: (a.cpuMicros + b.cpuMicros) / 2,
    serverCpu: Math.min(a.serverCpu, b.serverCpu),
    generatorCpu: Math.max(a.generatorCpu, b.generatorCpu)
  }
}

function summaryOf (scenario: ScenarioRuns | undefined): Summary | undefined {
  return scenario === undefined || scenario.skipped !== undefined || scenario.runs.length === 0 ? undefined : summarise(scenario.runs)
}

export function medianRps (scenario: ScenarioRuns | undefined): number {
  return summaryOf(scenario)?.rps ?? Number.NaN
}

export function renderTable (scenarios: readonly ScenarioRuns[]): string {
  const bare = summaryOf(scenarios.find((s) => s.id === 'bare'))
  const peers = scenarios.filter((s) => s.peer).map(summaryOf).filter((s): s is Summary => s !== undefined)
  const bestPeerRps = peers.length === 0 ? Number.NaN : Math.max(...peers.map((s) => s.rps))
  const lines = [
    '| scenario | req/s (median) | p99 ms | × bare Fastify | × best peer | server CPU µs/req | server / autocannon CPU | runs (req/s) |',
    '|---|---:|---:|---:|---:|---:|---:|---|'
  ]
  for (const scenario of scenarios) {
    const summary = summaryOf(scenario)
    if (summary === undefined) {
      lines.push(`| ${scenario.label} | — | — | — | — | — | — | skipped: ${scenario.skipped ?? 'no run'} |`)
      continue
    }
    lines.push(`| ${scenario.label} | ${Math.round(summary.rps).toLocaleString('en-US')} | ${summary.p99.toFixed(1)} | ${ratio(summary.rps, bare?.rps ?? Number.NaN)} | ${ratio(summary.rps, bestPeerRps)} | ` +
      `${micros(summary.cpuMicros)} | ${percent(summary.serverCpu)} / ${percent(summary.generatorCpu)} | ${scenario.runs.map((run) => Math.round(run.rps)).join(', ')} |`)
  }
  return lines.join('\n')
}

export function renderVerdicts (verdicts: readonly Verdict[]): string {
  return ['| target | result | measured |', '|---|---|---|', ...verdicts.map((v) => `| ${v.target} | **${v.status}** | ${v.measured} |`)].join('\n')
}

/**
 * `value` must reach `minimum` × `base`. Two readings of the same runs: req/s, and server CPU
 * per request (its inverse ratio: the throughput each would reach on a core of its own).
 */
function compare (target: string, value: Summary | undefined, base: Summary | undefined, minimum: number, basis: Settings['basis'], names: string): Verdict {
  if (value === undefined || base === undefined) return { target, status: 'SKIP', measured: `not measured (${names})` }
  const byRps = value.rps / base.rps
  const byCpu = base.cpuMicros / value.cpuMicros
  const saturated = value.serverCpu >= SATURATED && base.serverCpu >= SATURATED
  const generatorBound = value.generatorCpu >= GENERATOR_BOUND || base.generatorCpu >= GENERATOR_BOUND
  const useCpu = Number.isFinite(byCpu) && (basis === 'cpu' || (basis === 'auto' && (!saturated || generatorBound)))
  const chosen = useCpu ? byCpu : byRps
  const why = basis !== 'auto'
    ? `BENCH_BASIS=${basis}`
    : generatorBound
      ? `autocannon saturated (${percent(value.generatorCpu)} / ${percent(base.generatorCpu)} of its core): req/s measures the load generator`
      : saturated ? 'both servers saturated' : `server not saturated (${percent(value.serverCpu)} / ${percent(base.serverCpu)} of a core): the machine was busy`
  return {
    target,
    status: chosen >= minimum ? 'PASS' : 'FAIL',
    measured: `**${chosen.toFixed(2)}×** by ${useCpu ? 'CPU cost' : 'req/s'} (${why}). req/s ${byRps.toFixed(2)}× (${Math.round(value.rps)} / ${Math.round(base.rps)}); ` +
      `CPU cost ${Number.isFinite(byCpu) ? `${byCpu.toFixed(2)}× (${micros(base.cpuMicros)} / ${micros(value.cpuMicros)} µs/req)` : 'not measured'}`
  }
}

export function evaluateTargets (input: {
  basis: Settings['basis']
  scenarios: readonly ScenarioRuns[]
  crypto: CryptoLimit | undefined
  flood: FloodResult | undefined
  memory: MemoryResult | undefined
}): Verdict[] {
  const of = (id: string): Summary | undefined => summaryOf(input.scenarios.find((s) => s.id === id))
  const verdicts: Verdict[] = []

  verdicts.push(compare('OIDC, one token repeated ≥ 0.90× bare Fastify', of('feast-oidc-repeat'), of('bare'), 0.9, input.basis, 'feast-oidc-repeat, bare'))
  verdicts.push(compare('OIDC, distinct tokens ≥ 1.6× fastify-jwt-jwks', of('feast-oidc-pool'), of('fastify-jwt-jwks'), 1.6, input.basis, 'feast-oidc-pool, fastify-jwt-jwks'))

  const kube = input.scenarios.find((s) => s.id === 'feast-kubernetes')
  if (kube === undefined || kube.skipped !== undefined || kube.apiCalls === undefined) {
    verdicts.push({ target: 'Kubernetes steady state: 0 API calls per request', status: 'SKIP', measured: kube?.skipped ?? 'not measured' })
  } else {
    verdicts.push({
      target: 'Kubernetes steady state: 0 API calls per request',
      status: kube.apiCalls === 0 ? 'PASS' : 'FAIL',
      measured: `${kube.apiCalls} TokenReview/RoleBinding-list calls over ${(kube.requests ?? 0).toLocaleString('en-US')} measured requests`
    })
  }
  verdicts.push(compare('Kubernetes steady state ≥ 0.9× OIDC repeated token', of('feast-kubernetes'), of('feast-oidc-repeat'), 0.9, input.basis, 'feast-kubernetes, feast-oidc-repeat'))

  const flood = input.flood
  if (flood === undefined) {
    verdicts.push({ target: 'Unknown-kid flood: ≤ 2 JWKS fetches', status: 'SKIP', measured: 'not measured' })
    verdicts.push({ target: 'Unknown-kid flood: valid tokens keep ≥ 0.9× their throughput', status: 'SKIP', measured: 'not measured' })
  } else {
    verdicts.push({
      target: 'Unknown-kid flood: ≤ 2 JWKS fetches',
      status: flood.jwksFetches <= 2 && flood.flood5xx === 0 ? 'PASS' : 'FAIL',
      measured: `${flood.jwksFetches} JWKS + ${flood.discoveryFetches} discovery fetches for ${flood.floodRequests.toLocaleString('en-US')} random-kid requests over ${flood.seconds} s (${flood.floodRejected} answered 401, ${flood.flood5xx} 5xx)`
    })
    verdicts.push(compare('Unknown-kid flood: valid tokens keep ≥ 0.9× their throughput', summarise([flood.valid]), mean(summarise([flood.before]), summarise([flood.after])), 0.9, input.basis, 'flood'))
  }

  const memory = input.memory
  if (memory === undefined) {
    verdicts.push({ target: 'Memory: 1,000,000 distinct tokens raise RSS < 64 MiB', status: 'SKIP', measured: 'not measured' })
  } else {
    const growth = Math.max(memory.rssAfter, memory.rssPeak) - memory.rssBefore
    const allAccepted = memory.accepted === memory.sent
    const allSent = memory.sent >= memory.tokens
    const small = growth < 64 * 2 ** 20
    verdicts.push({
      target: `Memory: ${memory.tokens.toLocaleString('en-US')} distinct tokens raise RSS < 64 MiB`,
      // Cut short by the time cap, a small growth is only a hint: WARN, not PASS.
      status: !allAccepted || !small ? 'FAIL' : allSent ? 'PASS' : 'WARN',
      measured: `+${mib(growth)} MiB RSS (${mib(memory.rssBefore)} → peak ${mib(memory.rssPeak)}, end ${mib(memory.rssAfter)}); heap ${mib(memory.heapBefore)} → ${mib(memory.heapAfter)} MiB; ` +
        `${memory.sent.toLocaleString('en-US')} sent in ${Math.round(memory.seconds)} s${allSent ? '' : ' (time cap BENCH_MEMORY_MAX_SECONDS reached)'}, ${memory.accepted.toLocaleString('en-US')} accepted${allAccepted ? '' : ' (NOT every token was accepted)'}`
    })
  }

  // Not a target of the issue, a guard on the instrument: a distinct-token request that costs the
  // server less CPU than one signature check was served from a cache, and scenario 3 is void.
  const pool = of('feast-oidc-pool')
  if (input.crypto !== undefined && pool !== undefined && Number.isFinite(pool.cpuMicros)) {
    const verifyMicros = 1e6 / input.crypto.nodeCryptoVerifyPerSec
    verdicts.push({
      target: 'Sanity: each distinct token costs at least one signature check (no cache hits in scenario 3)',
      status: pool.cpuMicros >= verifyMicros ? 'PASS' : 'WARN',
      measured: `${micros(pool.cpuMicros)} µs/req vs ${verifyMicros.toFixed(1)} µs per node:crypto.verify${pool.cpuMicros >= verifyMicros ? '' : ': raise BENCH_POOL above the verified-token cache size'}`
    })
  }
  return verdicts
}

/** µs with one decimal where it matters (a cached request costs ~20 µs). */
export function micros (value: number): string {
  if (!Number.isFinite(value)) return '—'
  return value < 100 ? value.toFixed(1) : String(Math.round(value))
}

export function percent (share: number): string {
  return Number.isFinite(share) ? `${Math.round(share * 100)}%` : '—'
}

function ratio (value: number, base: number): string {
  return Number.isFinite(value) && Number.isFinite(base) && base > 0 ? `${(value / base).toFixed(2)}×` : '—'
}

export function mib (bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1)
}
