/**
 * Refresh ahead of expiry: a provider whose key set answers in 300 ms, a key-set lifespan of
 * 2 s, one token under load for 10 s. No request may wait for a scheduled refresh (the slowest
 * stays under 30 ms) and the keys are fetched about once per lifespan.
 */
import { ROUTE } from '../servers/common.ts'
import { assertClean, configEnv, log, type Fixture } from './fixture.ts'
import { startIdpServer } from './idp-server.ts'
import { runLoad } from './load.ts'
import type { RefreshResult } from './report.ts'
import { startServer } from './server-process.ts'

export const REFRESH = { jwksDelayMs: 300, lifespanSeconds: 2, seconds: 10 } as const

export async function runRefresh (fixture: Fixture): Promise<RefreshResult> {
  log(`refresh ahead of expiry: key set answering in ${REFRESH.jwksDelayMs} ms, lifespan ${REFRESH.lifespanSeconds} s, one token for ${REFRESH.seconds} s`)
  const slowIdp = await startIdpServer(fixture.description.jwks, fixture.description.issuer, { jwksDelayMs: REFRESH.jwksDelayMs })
  const description = { ...fixture.description, discoveryUrl: slowIdp.discoveryUrl, jwksUrl: slowIdp.jwksUrl }
  try {
    const server = await startServer('feast-oidc', { cores: fixture.cores, env: { ...configEnv({ ...fixture, description }), BENCH_LIFESPAN_SECONDS: String(REFRESH.lifespanSeconds) } })
    try {
      // Short warm-up (the JIT), inside one lifespan of the first fetch, then the measured run.
      await runLoad({ url: server.url, path: ROUTE, tokens: fixture.repeatToken, connections: fixture.settings.connections, durationSeconds: 1 })
      const before = slowIdp.counts.jwks
      const run = await runLoad({
        url: server.url,
        path: ROUTE,
        tokens: fixture.repeatToken,
        connections: fixture.settings.connections,
        durationSeconds: REFRESH.seconds,
        serverCpuSeconds: server.cpuSeconds
      })
      assertClean('refresh', run)
      return { ...REFRESH, fetches: slowIdp.counts.jwks - before, run }
    } finally {
      await server.stop()
    }
  } finally {
    await slowIdp.close()
  }
}
