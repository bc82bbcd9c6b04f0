/** The memory run: RSS growth over a million distinct tokens (every cache must be bounded). */
import { ROUTE } from '../servers/common.ts'
import { configEnv, log, pct, type Fixture } from './fixture.ts'
import { runLoad, type LoadResult } from './load.ts'
import { mib, type MemoryResult } from './report.ts'
import { startServer } from './server-process.ts'

/**
 * A million distinct valid tokens (ES256, signed on the fly: RSA signing could not keep up)
 * through one server; RSS read over IPC after a full GC before and after, and sampled during.
 */
export async function runMemory (fixture: Fixture): Promise<MemoryResult> {
  const { settings } = fixture
  log(`memory: ${settings.memoryTokens.toLocaleString('en-US')} distinct tokens through one server`)
  const server = await startServer('feast-oidc', { cores: fixture.cores, env: configEnv(fixture), nodeFlags: ['--expose-gc'] })
  try {
    await runLoad({ url: server.url, path: ROUTE, tokens: fixture.repeatToken, connections: settings.connections, durationSeconds: settings.warmupSeconds })
    const before = await server.memory()
    let peak = before.rss
    let next = 20_000_000
    const sampler = setInterval(() => {
      void server.memory().then((m) => { peak = Math.max(peak, m.rss) }, () => {})
    }, 2000)
    const started = performance.now()
    let run: LoadResult
    try {
      run = await runLoad({
        url: server.url,
        path: ROUTE,
        tokens: () => fixture.esSigner.token(next++),
        connections: settings.connections,
        amount: settings.memoryTokens,
        maxSeconds: settings.memoryMaxSeconds,
        serverCpuSeconds: server.cpuSeconds
      })
    } finally {
      clearInterval(sampler)
    }
    const seconds = (performance.now() - started) / 1000
    const after = await server.memory()
    peak = Math.max(peak, after.rss)
    const sent = run.ok + run.non2xx
    log(`memory: ${sent.toLocaleString('en-US')} tokens, RSS ${mib(before.rss)} → ${mib(after.rss)} MiB (peak ${mib(peak)}), ${Math.round(sent / seconds)} req/s, server ${pct(run.serverCpu)} CPU (${Math.round(run.serverCpuMicrosPerRequest)} µs/req), harness ${pct(run.generatorCpu)} CPU`)
    return {
      tokens: settings.memoryTokens,
      sent,
      accepted: run.ok,
      rssBefore: before.rss,
      rssAfter: after.rss,
      rssPeak: peak,
      heapBefore: before.heapUsed,
      heapAfter: after.heapUsed,
      rps: sent / seconds,
      seconds
    }
  } finally {
    await server.stop()
  }
}
