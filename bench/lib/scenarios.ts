/** The table's scenarios, and how one run of one of them is measured. */
import { ROUTE } from '../servers/common.ts'
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
  return [
    { id: 'bare', label: 'bare Fastify (no auth)', server: 'bare', tokens: 'repeat', peer: false, verifies: false },
    { id: 'feast-oidc-repeat', label: 'feast-authz OIDC, one token repeated', server: 'feast-oidc', tokens: 'repeat', peer: false, verifies: true },
    { id: 'feast-oidc-pool', label: `feast-authz OIDC, ${pool}`, server: 'feast-oidc', tokens: 'pool', peer: false, verifies: true },
    // A reference, not a verifier: the least any distinct-token check can cost on this machine.
    { id: 'verify-floor', label: `floor: bare Fastify + one node:crypto.verify, ${pool}`, server: 'verify-floor', tokens: 'pool', peer: false, verifies: false },
    // A reference too: verify-floor plus the payload's JSON and the exp/iss/aud checks every correct verifier needs.
    { id: 'verify-claims-floor', label: `floor + claims: verify-floor + payload JSON + exp/iss/aud, ${pool}`, server: 'verify-claims-floor', tokens: 'pool', peer: false, verifies: true },
    { id: 'fastify-jwt', label: `@fastify/jwt (public key), ${pool}`, server: 'fastify-jwt', tokens: 'pool', peer: true, verifies: true },
    { id: 'fastify-jwt-jwks', label: `fastify-jwt-jwks, ${pool}`, server: 'fastify-jwt-jwks', tokens: 'pool', peer: true, verifies: true },
    { id: 'express-jwt', label: `Express + express-jwt + jwks-rsa, ${pool}`, server: 'express-jwt', tokens: 'pool', peer: true, verifies: true },
    { id: 'feast-kubernetes', label: 'feast-authz kubernetes, one token repeated', server: 'feast-kubernetes', tokens: 'kubernetes', peer: false, verifies: true },
    { id: 'feast-oidc-reject', label: 'feast-authz OIDC, random-kid tokens (every answer a 401)', server: 'feast-oidc', tokens: 'unknown-kid', peer: false, verifies: true },
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

export async function measureScenario (fixture: Fixture, scenario: Scenario, result: ScenarioRuns, round: string): Promise<void> {
  const { settings } = fixture
  const env = scenario.tokens === 'kubernetes' ? configEnv(fixture, { KUBECONFIG: fixture.kube!.kubeconfigPath }) : configEnv(fixture)
  const server = await startServer(scenario.server, { cores: fixture.cores, env })
  try {
    const tokens = tokenSourceFor(fixture, scenario)
    const rejecting = scenario.tokens === 'unknown-kid'
    await checkServer(fixture, scenario, server, rejecting ? fixture.repeatToken : sampleToken(tokens))
    const expectStatus = rejecting ? 401 as const : 200 as const
    await runLoad({ url: server.url, path: ROUTE, tokens, connections: settings.connections, durationSeconds: settings.warmupSeconds, expectStatus })
    const callsBefore = fixture.kube?.perRequestCalls() ?? 0
    const run = await runLoad({
      url: server.url,
      path: ROUTE,
      tokens,
      connections: settings.connections,
      durationSeconds: settings.durationSeconds,
      serverCpuSeconds: server.cpuSeconds,
      expectStatus
    })
    if (scenario.tokens === 'kubernetes') {
      result.apiCalls = (result.apiCalls ?? 0) + fixture.kube!.perRequestCalls() - callsBefore
      result.requests = (result.requests ?? 0) + run.ok + run.non2xx
    }
    if (rejecting) {
      if (run.ok > 0 || run.status5xx > 0 || run.errors > 0) throw new Error(`${scenario.id}: ${run.ok} accepted, ${run.status5xx} 5xx and ${run.errors} errors under load (every answer must be a 401)`)
    } else {
      assertClean(scenario.id, run)
    }
    result.runs.push(run)
    log(`${round} ${scenario.id}: ${Math.round(run.rps)} req/s, p99 ${run.p99Ms} ms, server ${pct(run.serverCpu)} CPU (${Math.round(run.serverCpuMicrosPerRequest)} µs/req), autocannon ${pct(run.generatorCpu)} CPU`)
  } finally {
    await server.stop()
  }
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
