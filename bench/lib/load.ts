/** autocannon, driven from this process, with the token source chosen by the scenario. */
import autocannon, { type AutocannonResult } from 'autocannon'

/**
 * The bearer token of each request: one string for every request (the request is then built
 * once, the cheapest load autocannon can generate), or a function called per request.
 */
export type TokenSource = string | (() => string)

/** A token of the source, for the checks before measuring. */
export function sampleToken (source: TokenSource): string {
  return typeof source === 'string' ? source : source()
}

export interface LoadOptions {
  readonly url: string
  readonly path: string
  readonly tokens: TokenSource
  readonly connections: number
  readonly durationSeconds?: number
  readonly amount?: number
  /** Requests per second over all connections (the flood). */
  readonly overallRate?: number
  /** With `amount`: stop anyway after this long (a slow machine must not blow the time budget). */
  readonly maxSeconds?: number
  /** Reads the server's CPU seconds so far (to report its CPU cost per request). */
  readonly serverCpuSeconds?: () => number
  /** 401: every answer is expected to be a 401 (the rejection scenario); `rps` then counts those. */
  readonly expectStatus?: 200 | 401
}

export interface LoadResult {
  /** Successful (2xx) responses per second of the run (401s for a run that expects them). */
  readonly rps: number
  readonly p99Ms: number
  readonly p50Ms: number
  /** The slowest request of the run. */
  readonly maxMs: number
  readonly ok: number
  readonly non2xx: number
  readonly status5xx: number
  readonly errors: number
  readonly seconds: number
  /** Share of one core the server used during the run (1 = saturated: the server is what is measured). */
  readonly serverCpu: number
  /** Server CPU time per answered request, µs: less sensitive to a busy machine than req/s. */
  readonly serverCpuMicrosPerRequest: number
  /** Share of one core this process (autocannon) used: near 1, the load generator is the limit. */
  readonly generatorCpu: number
}

/**
 * A fixed token goes into prebuilt headers; a rotating one through `setupRequest`, which makes
 * autocannon rebuild every request (it then costs the generator about twice as much CPU, which
 * matters only when the server is faster than the generator: see the generator CPU column).
 */
export async function runLoad (options: LoadOptions): Promise<LoadResult> {
  const serverCpuBefore = options.serverCpuSeconds?.() ?? Number.NaN
  const generatorBefore = process.cpuUsage()
  const wallBefore = performance.now()
  const tokens = options.tokens
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    pipelining: 1,
    timeout: 10,
    ...(options.amount === undefined ? { duration: options.durationSeconds ?? 10 } : { amount: options.amount }),
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
    requests: [typeof tokens === 'string'
      ? { method: 'GET', path: options.path, headers: { authorization: `Bearer ${tokens}` } }
      : {
          method: 'GET',
          path: options.path,
          setupRequest: (request) => {
            request.headers = { ...request.headers, authorization: `Bearer ${tokens()}` }
            return request
          }
        }]
  })
  const timer = options.maxSeconds === undefined ? undefined : setTimeout(() => instance.stop(), options.maxSeconds * 1000)
  let result: AutocannonResult
  try {
    result = await instance
  } finally {
    clearTimeout(timer)
  }
  const wall = (performance.now() - wallBefore) / 1000
  const generator = process.cpuUsage(generatorBefore)
  const serverCpu = (options.serverCpuSeconds?.() ?? Number.NaN) - serverCpuBefore
  const answered = result['2xx'] + result.non2xx
  return {
    rps: (options.expectStatus === 401 ? result['4xx'] : result['2xx']) / result.duration,
    p99Ms: result.latency.p99,
    p50Ms: result.latency.p50,
    maxMs: result.latency.max,
    ok: result['2xx'],
    non2xx: result.non2xx,
    status5xx: result['5xx'],
    errors: result.errors + result.timeouts,
    seconds: result.duration,
    serverCpu: serverCpu / wall,
    serverCpuMicrosPerRequest: answered === 0 ? Number.NaN : serverCpu * 1e6 / answered,
    generatorCpu: (generator.user + generator.system) / 1e6 / wall
  }
}

/** One request, for the sanity checks before measuring. */
export async function fetchStatus (url: string, token: string | undefined): Promise<number> {
  const response = await fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } })
  await response.arrayBuffer()
  return response.status
}

/** Cycles through a pool, one token per request over all connections. */
export function rotating (pool: readonly string[]): () => string {
  let next = 0
  return () => {
    const token = pool[next]!
    next = next + 1 === pool.length ? 0 : next + 1
    return token
  }
}
