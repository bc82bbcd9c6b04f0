/** The unknown-`kid` flood: the JWKS fetches it causes, and what it costs valid traffic. */
import { ROUTE } from '../servers/common.ts'
import { assertClean, configEnv, log, type Fixture } from './fixture.ts'
import { runLoad, type LoadResult } from './load.ts'
import type { FloodResult } from './report.ts'
import { startServer } from './server-process.ts'
import { unknownKidToken } from './tokens.ts'

/** Length of each reference run around the flood (shorter when the flood itself is). */
const FLOOD_REFERENCE_SECONDS = 10

/**
 * Valid traffic (scenario 2's load) and, at the same time, requests whose token names a random
 * `kid`, at the issue's rate of 10,000 per 30 s. Counts the key-set fetches they cause, then
 * measures the valid traffic in paired rounds with and without the flood.
 */
export async function runFlood (fixture: Fixture): Promise<FloodResult> {
  const { settings, idp } = fixture
  log(`unknown-kid flood: ${settings.floodRequests} requests over ${settings.floodSeconds} s beside valid traffic`)
  const server = await startServer('feast-oidc', { cores: fixture.cores, env: configEnv(fixture) })
  try {
    const valid = fixture.repeatToken
    await runLoad({ url: server.url, path: ROUTE, tokens: valid, connections: settings.connections, durationSeconds: settings.warmupSeconds })
    // The reference: the same valid traffic on the same server just before and just after the
    // flood, so that a drift of the machine during the run does not pass for the flood's effect.
    const reference = async (seconds = Math.min(settings.floodSeconds, FLOOD_REFERENCE_SECONDS)): Promise<LoadResult> => {
      const run = await runLoad({
        url: server.url,
        path: ROUTE,
        tokens: valid,
        connections: settings.connections,
        durationSeconds: seconds,
        serverCpuSeconds: server.cpuSeconds
      })
      assertClean('flood (reference without flood)', run)
      return run
    }
    const before = await reference()
    const jwksBefore = idp.counts.jwks
    const discoveryBefore = idp.counts.discovery
    const floodRate = Math.max(1, Math.round(settings.floodRequests / settings.floodSeconds))
    const flooded = async (seconds: number, requests: number): Promise<[LoadResult, LoadResult]> => await Promise.all([
      runLoad({
        url: server.url,
        path: ROUTE,
        tokens: valid,
        connections: settings.connections,
        durationSeconds: seconds,
        serverCpuSeconds: server.cpuSeconds
      }),
      runLoad({
        url: server.url,
        path: ROUTE,
        tokens: () => unknownKidToken(fixture.repeatToken),
        connections: 4,
        amount: requests,
        overallRate: floodRate,
        maxSeconds: seconds + 5
      })
    ])
    const [validRun, floodRun] = await flooded(settings.floodSeconds, settings.floodRequests)
    const jwksFetches = idp.counts.jwks - jwksBefore
    const discoveryFetches = idp.counts.discovery - discoveryBefore
    assertClean('flood (valid traffic)', validRun)
    const after = await reference()
    // Paired rounds for the throughput verdict: the machine's drift over a minute moves the long
    // stretch above against its references by more than the tenth the target allows, while the
    // two sides of a round run seconds apart (alternating which goes first, as the table's rounds do).
    const rounds = { alone: [] as LoadResult[], flooded: [] as LoadResult[] }
    const seconds = settings.durationSeconds
    // A 5xx to the flood fails the fetch target whether it came in the long stretch or a round.
    let roundFlood5xx = 0
    for (let round = 0; round < settings.floodRounds; round++) {
      const sides = [
        async () => { rounds.alone.push(await reference(seconds)) },
        async () => {
          const [run, rejected] = await flooded(seconds, Math.max(1, Math.round(floodRate * seconds)))
          assertClean('flood round (valid traffic)', run)
          roundFlood5xx += rejected.status5xx
          rounds.flooded.push(run)
        }
      ]
      for (const side of round % 2 === 0 ? sides : sides.reverse()) await side()
    }
    return {
      seconds: settings.floodSeconds,
      floodRequests: settings.floodRequests,
      floodRejected: floodRun.non2xx,
      flood5xx: floodRun.status5xx + roundFlood5xx,
      jwksFetches,
      discoveryFetches,
      before,
      after,
      valid: validRun,
      rounds
    }
  } finally {
    await server.stop()
  }
}
