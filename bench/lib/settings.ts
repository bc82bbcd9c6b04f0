/** The benchmark's knobs, all from environment variables (documented in docs/performance.md). */

export interface Settings {
  readonly quick: boolean
  readonly profile: boolean
  readonly strict: boolean
  readonly rounds: number
  /** Generations of server processes the rounds are shared among (each scenario's servers restart between them). */
  readonly processes: number
  readonly durationSeconds: number
  readonly warmupSeconds: number
  /** Seconds of unmeasured load on a server right before each of its measured rounds. */
  readonly settleSeconds: number
  readonly connections: number
  readonly poolSize: number
  readonly floodSeconds: number
  readonly floodRequests: number
  /** Paired rounds after the flood: valid traffic alone, then with the flood's rate, each `durationSeconds`. */
  readonly floodRounds: number
  readonly memoryTokens: number
  /** The memory run stops after this long even if not every token was sent (reported). */
  readonly memoryMaxSeconds: number
  readonly cryptoSeconds: number
  /**
   * What a ratio target is judged on: `rps` (req/s, as the issue states them), `cpu` (server CPU
   * time per request, robust on a busy machine), or `auto`: req/s when both servers were
   * saturated (≥ 80% of their core), CPU cost otherwise.
   */
  readonly basis: 'auto' | 'rps' | 'cpu'
  /** Scenario ids to run (all when undefined). */
  readonly only: readonly string[] | undefined
  /** Extra runs to leave out: `crypto`, `flood`, `refresh`, `startup`, `memory`. */
  readonly skip: readonly string[]
}

export function readSettings (env: NodeJS.ProcessEnv = process.env): Settings {
  const quick = env.BENCH_QUICK === '1'
  const floodSeconds = number(env, 'BENCH_FLOOD_SECONDS', quick ? 5 : 30)
  return {
    quick,
    profile: env.BENCH_PROFILE === '1',
    strict: env.BENCH_STRICT === '1',
    // Many short rounds rather than a few long ones: a verdict is the median of its rounds' ratios,
    // and the two sides of each ratio run seconds apart (see bench/run.ts).
    rounds: number(env, 'BENCH_ROUNDS', quick ? 2 : 15),
    processes: number(env, 'BENCH_PROCESSES', quick ? 1 : 5),
    durationSeconds: number(env, 'BENCH_DURATION', 2),
    warmupSeconds: number(env, 'BENCH_WARMUP', quick ? 1 : 2),
    settleSeconds: number(env, 'BENCH_SETTLE', 1, { zero: true }),
    connections: number(env, 'BENCH_CONNECTIONS', 10),
    // Twice the verified-token cache's default size (10,000): a smaller pool would be served from the cache.
    poolSize: Math.max(10_000, number(env, 'BENCH_POOL', 20_000)),
    floodSeconds,
    // The rate: 10,000 requests per 30 s; a shorter flood keeps the rate.
    floodRequests: number(env, 'BENCH_FLOOD_REQUESTS', Math.round(10_000 * floodSeconds / 30)),
    floodRounds: number(env, 'BENCH_FLOOD_ROUNDS', quick ? 2 : 10),
    memoryTokens: number(env, 'BENCH_MEMORY_TOKENS', quick ? 50_000 : 1_000_000),
    memoryMaxSeconds: number(env, 'BENCH_MEMORY_MAX_SECONDS', quick ? 15 : 240),
    cryptoSeconds: number(env, 'BENCH_CRYPTO_SECONDS', quick ? 1 : 3),
    basis: basis(env.BENCH_BASIS),
    only: list(env.BENCH_ONLY),
    skip: list(env.BENCH_SKIP) ?? []
  }
}

function number (env: NodeJS.ProcessEnv, name: string, fallback: number, { zero = false } = {}): number {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zero)) {
    throw new Error(`${name} must be ${zero ? 'a number of seconds, 0 or more' : 'a positive number'}, got ${JSON.stringify(raw)}`)
  }
  return value
}

function basis (raw: string | undefined): Settings['basis'] {
  if (raw === undefined || raw === '') return 'auto'
  if (raw === 'auto' || raw === 'rps' || raw === 'cpu') return raw
  throw new Error(`BENCH_BASIS must be auto, rps or cpu, got ${JSON.stringify(raw)}`)
}

function list (raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined
  return raw.split(',').map((item) => item.trim()).filter((item) => item !== '')
}
