/** BENCH_PROFILE=1: where a request's CPU time goes, from `--cpu-prof` over the measured window. */
import { readdirSync, rmSync } from 'node:fs'
import { ROUTE } from '../servers/common.ts'
import { configEnv, RESULTS_DIR, type Fixture } from './fixture.ts'
import { fetchStatus, rotating, runLoad, sampleToken, type LoadResult, type TokenSource } from './load.ts'
import { topSelfTime } from './profile.ts'
import { startServer } from './server-process.ts'
import { unknownKidToken } from './tokens.ts'

/**
 * BENCH_PROFILE=1: scenario 2 and 3 servers beside their references (verify-floor, bare Fastify), one under random-`kid` tokens only, feast-authz on
 * Express beside bare Express, and the kubernetes scenario when available, each under `--cpu-prof`; prints their top self-time
 * functions over the measured window.
 */
export async function profileRun (fixture: Fixture): Promise<void> {
  const { settings } = fixture
  const dir = `${RESULTS_DIR}profiles/`
  rmSync(dir, { recursive: true, force: true })
  const out: string[] = []
  const profiled: Array<{ id: string, server: string, label: string, tokens: TokenSource, expectOk: boolean }> = [
    { id: 'feast-oidc-repeat', server: 'feast-oidc', label: 'feast-authz OIDC, one token repeated', tokens: fixture.repeatToken, expectOk: true },
    { id: 'feast-oidc-pool', server: 'feast-oidc', label: `feast-authz OIDC, ${fixture.pool.length.toLocaleString('en-US')} distinct tokens`, tokens: rotating(fixture.pool), expectOk: true },
    { id: 'verify-floor', server: 'verify-floor', label: `floor: bare Fastify + one node:crypto.verify, the same ${fixture.pool.length.toLocaleString('en-US')} distinct tokens (the line above's reference)`, tokens: rotating(fixture.pool), expectOk: true },
    { id: 'bare', server: 'bare', label: 'bare Fastify, no authentication (the reference of the repeated token)', tokens: fixture.repeatToken, expectOk: true },
    { id: 'feast-oidc-unknown-kid', server: 'feast-oidc', label: 'feast-authz OIDC, random-kid tokens only (every request a 401)', tokens: () => unknownKidToken(fixture.repeatToken), expectOk: false },
    { id: 'feast-express-repeat', server: 'feast-express', label: 'feast-authz on Express, one token repeated', tokens: fixture.repeatToken, expectOk: true },
    { id: 'bare-express', server: 'bare-express', label: 'bare Express (the ceiling of the line above)', tokens: fixture.repeatToken, expectOk: true },
    ...(fixture.kube === undefined ? [] : [{ id: 'feast-kubernetes', server: 'feast-kubernetes', label: 'feast-authz kubernetes, one token repeated', tokens: fixture.kube.token, expectOk: true }])
  ]
  for (const target of profiled.filter((t) => settings.only === undefined || settings.only.includes(t.id))) {
    const scenarioDir = `${dir}${target.id}/`
    const extraEnv: Record<string, string> = target.server === 'feast-kubernetes' && fixture.kube !== undefined ? { KUBECONFIG: fixture.kube.kubeconfigPath } : {}
    const server = await startServer(target.server, { cores: fixture.cores, env: configEnv(fixture, extraEnv), nodeFlags: ['--cpu-prof', '--cpu-prof-dir', scenarioDir] })
    let run: LoadResult
    let window: { from: number, to: number }
    try {
      const status = await fetchStatus(`${server.url}${ROUTE}`, sampleToken(target.tokens))
      if (status !== (target.expectOk ? 200 : 401)) throw new Error(`${target.id}: unexpected status ${status}`)
      await runLoad({ url: server.url, path: ROUTE, tokens: target.tokens, connections: settings.connections, durationSeconds: settings.warmupSeconds })
      const from = await server.clock()
      run = await runLoad({
        url: server.url,
        path: ROUTE,
        tokens: target.tokens,
        connections: settings.connections,
        // As long as a scenario is measured in the table, in one piece.
        durationSeconds: settings.durationSeconds * settings.rounds,
        serverCpuSeconds: server.cpuSeconds
      })
      window = { from, to: await server.clock() }
    } finally {
      await server.stop()
    }
    // One profile per thread; `.0.` is the main thread (the other is tsx's module-hooks worker).
    const file = readdirSync(scenarioDir).filter((name) => name.endsWith('.cpuprofile')).sort().find((name) => /\.0\.\d+\.cpuprofile$/.test(name))
    if (file === undefined) throw new Error(`no .cpuprofile written in ${scenarioDir}`)
    const { totalMs, top } = topSelfTime(`${scenarioDir}${file}`, 25, window)
    const windowSeconds = (window.to - window.from) / 1e6
    const answered = run.ok + run.non2xx
    out.push(`### ${target.label}`, '',
      `${Math.round(answered / run.seconds).toLocaleString('en-US')} answers/s under the profiler, ${Math.round(run.serverCpuMicrosPerRequest)} µs server CPU per request. ` +
      `Profile: \`bench/results/profiles/${target.id}/${file}\` (open in Chrome DevTools → Performance). ` +
      `Counted: the ${windowSeconds.toFixed(1)} s under load after warm-up, in which the main thread was busy ${(totalMs / 1000).toFixed(1)} s (idle excluded).`, '',
      '| self % | self ms | function | where |', '|---:|---:|---|---|',
      ...top.map((entry) => `| ${(entry.share * 100).toFixed(1)} | ${Math.round(entry.ms)} | \`${entry.fn}\` | ${entry.where} |`), '')
  }
  process.stdout.write(`${out.join('\n')}\n`)
}
