/** The table's scenarios, and how one run of one of them is measured. */
import { REVIEW_TTL_SECONDS, ROUTE } from '../servers/common.ts'
import { assertClean, configEnv, log, pct, type Fixture } from './fixture.ts'
import { fetchStatus, rotating, runLoad, sampleToken, type TokenSource } from './load.ts'
import type { ScenarioRuns } from './report.ts'
import { startServer, type ServerProcess } from './server-process.ts'
import { unknownKidToken } from './tokens.ts'

export interface Scenario {
  readonly id: string
  readonly label: string
  readonly server: string
  /**
   * `repeat`: one token for every request; `pool`: the distinct-token pool, in rotation;
   * `unknown-kid`: a fresh random `kid` per request (every answer a 401).
   */
  readonly tokens: 'repeat' | 'pool' | 'kubernetes' | 'unknown-kid'
  readonly peer: boolean
  /** Whether the server authenticates (and must therefore refuse a bad token). */
  readonly verifies: boolean
}

export function scenarioList (poolSize: number): Scenario[] {
  const pool = `${poolSize.toLocaleString('en-US')} distinct tokens`
  // The order of a round: each pair a verdict compares is measured within seconds of each other.
  return [
    { id: 'bare', label: 'bare Fastify (no auth)', server: 'bare', tokens: 'repeat', peer: false, verifies: false },
    { id: 'feast-oidc-repeat', label: 'feast-authz OIDC, one token repeated', server: 'feast-oidc', tokens: 'repeat', peer: false, verifies: true },
    { id: 'feast-kubernetes', label: 'feast-authz kubernetes, one token repeated', server: 'feast-kubernetes', tokens: 'kubernetes', peer: false, verifies: true },
    { id: 'feast-oidc-reject', label: 'feast-authz OIDC, random-kid tokens (every answer a 401)', server: 'feast-oidc', tokens: 'unknown-kid', peer: false, verifies: true },
    // A reference, not a verifier: the least any distinct-token check can cost on this machine.
    { id: 'verify-floor', label: `floor: bare Fastify + one node:crypto.verify, ${pool}`, server: 'verify-floor', tokens: 'pool', peer: false, verifies: false },
    { id: 'feast-oidc-pool', label: `feast-authz OIDC, ${pool}`, server: 'feast-oidc', tokens: 'pool', peer: false, verifies: true },
    { id: 'fastify-jwt', label: `@fastify/jwt (public key), ${pool}`, server: 'fastify-jwt', tokens: 'pool', peer: true, verifies: true },
    { id: 'fastify-jwt-jwks', label: `fastify-jwt-jwks, ${pool}`, server: 'fastify-jwt-jwks', tokens: 'pool', peer: true, verifies: true },
    // A reference too: verify-floor plus the payload's JSON and the exp/iss/aud checks every correct verifier needs.
    { id: 'verify-claims-floor', label: `floor + claims: verify-floor + payload JSON + exp/iss/aud, ${pool}`, server: 'verify-claims-floor', tokens: 'pool', peer: false, verifies: true },
    { id: 'express-jwt', label: `Express + express-jwt + jwks-rsa, ${pool}`, server: 'express-jwt', tokens: 'pool', peer: true, verifies: true },
    { id: 'bare-express', label: 'bare Express (no auth)', server: 'bare-express', tokens: 'repeat', peer: false, verifies: false },
    { id: 'feast-express-repeat', label: 'feast-authz on Express, one token repeated', server: 'feast-express', tokens: 'repeat', peer: false, verifies: true },
    // A reference, not a verifier: what Express charges for one more middleware layer.
    { id: 'express-noop', label: 'reference: bare Express + one no-op middleware', server: 'express-noop', tokens: 'repeat', peer: false, verifies: false }
  ]
}

export function tokenSourceFor (fixture: Fixture, scenario: Scenario): TokenSource {
  if (scenario.tokens === 'pool') return rotating(fixture.pool)
  if (scenario.tokens === 'unknown-kid') return () => unknownKidToken(fixture.repeatToken)
  return scenario.tokens === 'kubernetes' ? fixture.kube!.token : fixture.repeatToken
}

/**
 * Every scenario's rounds, interleaved. The servers of all scenarios are up together (idle while
 * the others are measured), so a round takes a few seconds per scenario and the two sides of each
 * ratio run seconds apart. They are restarted for each of `settings.processes` generations of
 * rounds: the same code runs up to 15% faster or slower from one process to the next (where the
 * heap and the compiled code land in memory), and a verdict must not rest on one draw of that.
 */
export async function measureScenarios (fixture: Fixture, scenarios: readonly Scenario[], results: ScenarioRuns[]): Promise<void> {
  const { rounds, processes } = fixture.settings
  const generations = Math.max(1, Math.min(processes, rounds))
  const live = new Map<string, LiveScenario>()
  const drop = async (result: ScenarioRuns, reason: string): Promise<void> => {
    log(`${result.id}: ${reason}`)
    result.skipped = `failed: ${reason.split('\n')[0] ?? ''}`
    await live.get(result.id)?.server.stop()
    live.delete(result.id)
  }
  const stopAll = async (): Promise<void> => {
    await Promise.all([...live.values()].map(async ({ server }) => { await server.stop() }))
    live.clear()
  }
  try {
    for (let round = 1; round <= rounds; round++) {
      if (generationOf(round - 1, rounds, generations) !== generationOf(round - 2, rounds, generations)) {
        await stopAll()
        for (const [index, scenario] of scenarios.entries()) {
          const result = results[index]!
          if (result.skipped !== undefined) continue
          try {
            live.set(scenario.id, await startScenario(fixture, scenario))
          } catch (error) {
            await drop(result, (error as Error).message)
          }
        }
      }
      for (const result of roundOrder(results, round)) {
        const started = live.get(result.id)
        if (started === undefined) continue
        try {
          await measureRound(fixture, started, result, `round ${round}/${rounds}`)
        } catch (error) {
          await drop(result, (error as Error).message)
        }
      }
    }
  } finally {
    await stopAll()
  }
}

/** Which of `generations` equal shares of `rounds` the 0-based round `index` falls in (-1 before the first). */
export function generationOf (index: number, rounds: number, generations: number): number {
  return index < 0 ? -1 : Math.floor(index * generations / rounds)
}

/** A scenario's server, started for a generation of rounds, with its token source. */
interface LiveScenario {
  readonly scenario: Scenario
  readonly server: ServerProcess
  /** Kept across rounds: a pool rotation continues where the last round stopped. */
  readonly tokens: TokenSource
}

/** Starts the scenario's server, checks that it refuses bad tokens, and warms it up. */
async function startScenario (fixture: Fixture, scenario: Scenario): Promise<LiveScenario> {
  const env = scenario.tokens === 'kubernetes' ? configEnv(fixture, { KUBECONFIG: fixture.kube!.kubeconfigPath }) : configEnv(fixture)
  const server = await startServer(scenario.server, { cores: fixture.cores, env })
  try {
    const tokens = tokenSourceFor(fixture, scenario)
    const rejecting = scenario.tokens === 'unknown-kid'
    await checkServer(fixture, scenario, server, rejecting ? fixture.repeatToken : sampleToken(tokens))
    const { connections, warmupSeconds } = fixture.settings
    await runLoad({ url: server.url, path: ROUTE, tokens, connections, durationSeconds: warmupSeconds, expectStatus: expectedStatus(scenario) })
    return { scenario, server, tokens }
  } catch (error) {
    await server.stop()
    throw error
  }
}

function expectedStatus (scenario: Scenario): 200 | 401 {
  return scenario.tokens === 'unknown-kid' ? 401 : 200
}

/** One measured round of a started scenario, appended to `result.runs`. */
async function measureRound (fixture: Fixture, live: LiveScenario, result: ScenarioRuns, round: string): Promise<void> {
  const { scenario, server, tokens } = live
  // Only the Kubernetes scenario's rounds are charged with the fake API server's calls (the
  // settling load's included: every call the server makes under load counts).
  const callsBefore = scenario.tokens === 'kubernetes' ? fixture.kube?.calls() : undefined
  const startedAt = Date.now()
  // A server that idled while the others were measured (about half a minute) costs far more
  // for its first seconds of load (on the development VM, 1.6–1.9× for the first 2 s after 15 s
  // idle): unmeasured load first, so that a round reads the steady state the targets are about.
  const { connections, settleSeconds } = fixture.settings
  const expectStatus = expectedStatus(scenario)
  if (settleSeconds > 0) await runLoad({ url: server.url, path: ROUTE, tokens, connections, durationSeconds: settleSeconds, expectStatus })
  const run = await runLoad({
    url: server.url,
    path: ROUTE,
    tokens,
    connections,
    durationSeconds: fixture.settings.durationSeconds,
    serverCpuSeconds: server.cpuSeconds,
    expectStatus
  })
  if (callsBefore !== undefined) {
    const callsAfter = fixture.kube!.calls()
    result.kube ??= { tokenReviews: 0, roleBindingLists: 0, requests: 0, firstAt: startedAt, lastAt: startedAt, reviewTtlSeconds: REVIEW_TTL_SECONDS }
    result.kube.tokenReviews += callsAfter.tokenReviews - callsBefore.tokenReviews
    result.kube.roleBindingLists += callsAfter.roleBindingLists - callsBefore.roleBindingLists
    result.kube.requests += run.ok + run.non2xx
    result.kube.lastAt = Date.now()
  }
  if (scenario.tokens === 'unknown-kid') {
    if (run.ok > 0 || run.status5xx > 0 || run.errors > 0) throw new Error(`${scenario.id}: ${run.ok} accepted, ${run.status5xx} 5xx and ${run.errors} errors under load (every answer must be a 401)`)
  } else {
    assertClean(scenario.id, run)
  }
  result.runs.push(run)
  log(`${round} ${scenario.id}: ${Math.round(run.rps)} req/s, p99 ${run.p99Ms} ms, server ${pct(run.serverCpu)} CPU (${Math.round(run.serverCpuMicrosPerRequest)} µs/req), autocannon ${pct(run.generatorCpu)} CPU`)
}

/**
 * The order of one round. Every other round runs it backwards, so that two neighbours of the list
 * are measured A B, B A, A B, …: a drift of the machine between them hits both alike, and each
 * ratio a verdict compares has its two sides measured seconds apart.
 */
export function roundOrder<T> (items: readonly T[], round: number): readonly T[] {
  return round % 2 === 1 ? items : [...items].reverse()
}

/** A peer that accepted anything would win every race: each one must refuse bad tokens. */
export async function checkServer (fixture: Fixture, scenario: Scenario, server: ServerProcess, goodToken: string): Promise<void> {
  const url = `${server.url}${ROUTE}`
  const good = await fetchStatus(url, goodToken)
  if (good !== 200) throw new Error(`${scenario.id} answered ${good} to a valid token`)
  if (!scenario.verifies) return
  const bad = scenario.tokens === 'kubernetes'
    ? { 'an unknown service-account token': `${goodToken.slice(0, -8)}AAAAAAAA` }
    : fixture.badTokens
  for (const [what, token] of Object.entries({ ...bad, 'no token': undefined })) {
    const status = await fetchStatus(url, token)
    if (status !== 401) throw new Error(`${scenario.id} answered ${status} (expected 401) to a request with ${what}: it does not verify`)
  }
}
