/**
 * `npm run bench`: every server in its own process on one core, autocannon in this process
 * on another, each scenario measured BENCH_ROUNDS times round-robin, then the signature-check
 * limit, the unknown-`kid` flood and the memory run. Prints a markdown report on stdout
 * (progress goes to stderr) and writes bench/results/latest.json.
 *
 * See docs/performance.md for the knobs (BENCH_QUICK=1, BENCH_PROFILE=1, ...).
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { planCores, type CorePlan } from './lib/cores.ts'
import { startIdpServer, type IdpServer } from './lib/idp-server.ts'
import { kubernetesUnavailable, startKubeFixture, type KubeFixture } from './lib/kube-fixture.ts'
import { fetchStatus, rotating, runLoad, sampleToken, type LoadResult, type TokenSource } from './lib/load.ts'
import { topSelfTime } from './lib/profile.ts'
import { evaluateTargets, median, mib, renderTable, renderVerdicts, type CryptoLimit, type FloodResult, type MemoryResult, type ScenarioRuns } from './lib/report.ts'
import { startServer, type ServerProcess } from './lib/server-process.ts'
import { readSettings, type Settings } from './lib/settings.ts'
import { ISSUER, loadOrCreateTokens } from './lib/token-cache.ts'
import { AUDIENCE, CLIENT_ID, createSigner, ES256_KID, RS256_KID, tamperedToken, unknownKidToken, type IdpDescription } from './lib/tokens.ts'
import { ROUTE } from './servers/common.ts'

const RESULTS_DIR = fileURLToPath(new URL('results/', import.meta.url))
const TOKEN_LIFETIME_SECONDS = 2 * 3600

interface Scenario {
  readonly id: string
  readonly label: string
  readonly server: string
  /** `repeat`: one token for every request; `pool`: the distinct-token pool, in rotation. */
  readonly tokens: 'repeat' | 'pool' | 'kubernetes'
  readonly peer: boolean
  /** Whether the server authenticates (and must therefore refuse a bad token). */
  readonly verifies: boolean
}

function scenarioList (poolSize: number): Scenario[] {
  const pool = `${poolSize.toLocaleString('en-US')} distinct tokens`
  return [
    { id: 'bare', label: 'bare Fastify (no auth)', server: 'bare', tokens: 'repeat', peer: false, verifies: false },
    { id: 'feast-oidc-repeat', label: 'feast-authz OIDC, one token repeated', server: 'feast-oidc', tokens: 'repeat', peer: false, verifies: true },
    { id: 'feast-oidc-pool', label: `feast-authz OIDC, ${pool}`, server: 'feast-oidc', tokens: 'pool', peer: false, verifies: true },
    { id: 'fastify-jwt', label: `@fastify/jwt (public key), ${pool}`, server: 'fastify-jwt', tokens: 'pool', peer: true, verifies: true },
    { id: 'fastify-jwt-jwks', label: `fastify-jwt-jwks, ${pool}`, server: 'fastify-jwt-jwks', tokens: 'pool', peer: true, verifies: true },
    { id: 'express-jwt', label: `Express + express-jwt + jwks-rsa, ${pool}`, server: 'express-jwt', tokens: 'pool', peer: true, verifies: true },
    { id: 'feast-kubernetes', label: 'feast-authz kubernetes, one token repeated', server: 'feast-kubernetes', tokens: 'kubernetes', peer: false, verifies: true }
  ]
}

interface Fixture {
  readonly settings: Settings
  readonly cores: CorePlan
  readonly idp: IdpServer
  readonly description: IdpDescription
  readonly repeatToken: string
  readonly pool: readonly string[]
  /** Tokens every verifying server must refuse with 401. */
  readonly badTokens: Readonly<Record<string, string>>
  readonly esSigner: ReturnType<typeof createSigner>
  readonly kube: KubeFixture | undefined
}

const log = (message: string): void => { process.stderr.write(`[bench] ${message}\n`) }

async function main (): Promise<void> {
  const settings = readSettings()
  // Before pinning: once pinned, this process sees a single core.
  const nproc = availableParallelism()
  const cores = planCores()
  log(cores.note ?? `server on core ${String(cores.serverCore)}, load generator on core ${String(cores.loadCore)}`)
  mkdirSync(RESULTS_DIR, { recursive: true })
  const { keys, pool, repeatToken, origin } = loadOrCreateTokens(`${RESULTS_DIR}tokens.json`, settings.poolSize)
  log(origin)
  const idp = await startIdpServer(keys.jwks, ISSUER)
  const description: IdpDescription = {
    issuer: ISSUER,
    discoveryUrl: idp.discoveryUrl,
    jwksUrl: idp.jwksUrl,
    audience: AUDIENCE,
    clientId: CLIENT_ID,
    rsaPublicKeyPem: keys.rsaPublicPem,
    jwks: keys.jwks
  }
  const foreignIssuer = createSigner({ alg: 'RS256', key: keys.rsaPrivate, kid: RS256_KID, issuer: 'https://other-issuer.example', lifetimeSeconds: TOKEN_LIFETIME_SECONDS })
  const badTokens = { 'a tampered signature': tamperedToken(repeatToken), 'a foreign issuer': foreignIssuer.token(1) }
  const esSigner = createSigner({ alg: 'ES256', key: keys.ecPrivate, kid: ES256_KID, issuer: ISSUER, lifetimeSeconds: TOKEN_LIFETIME_SECONDS })

  let kube: KubeFixture | undefined
  try {
    if (settings.profile) {
      if (kubernetesUnavailable() === undefined) kube = await startKubeFixture().catch(() => undefined)
      await profileRun({ settings, cores, idp, description, repeatToken, pool, badTokens, esSigner, kube })
      return
    }
    const selected = scenarioList(settings.poolSize).filter((s) => settings.only === undefined || settings.only.includes(s.id))
    const kubeMissing = selected.some((s) => s.id === 'feast-kubernetes') ? kubernetesUnavailable() : undefined
    if (selected.some((s) => s.id === 'feast-kubernetes') && kubeMissing === undefined) {
      try {
        kube = await startKubeFixture()
      } catch (error) {
        log(`kubernetes scenario disabled: the fake API server did not start: ${(error as Error).message}`)
      }
    }
    const fixture: Fixture = { settings, cores, idp, description, repeatToken, pool, badTokens, esSigner, kube }
    const results: ScenarioRuns[] = selected.map((s) => ({ id: s.id, label: s.label, peer: s.peer, runs: [] }))
    for (const [index, scenario] of selected.entries()) {
      if (scenario.id === 'feast-kubernetes' && kube === undefined) results[index]!.skipped = kubeMissing ?? 'fake API server did not start'
    }

    // Round-robin: every scenario once per round, so slow drifts of the machine hit all alike.
    for (let round = 1; round <= settings.rounds; round++) {
      for (const [index, scenario] of selected.entries()) {
        const result = results[index]!
        if (result.skipped !== undefined) continue
        try {
          await measureScenario(fixture, scenario, result, `round ${round}/${settings.rounds}`)
        } catch (error) {
          log(`${scenario.id}: ${(error as Error).message}`)
          result.skipped = `failed: ${(error as Error).message.split('\n')[0] ?? ''}`
        }
      }
    }

    const crypto = settings.skip.includes('crypto') ? undefined : await measureCryptoLimit(fixture, keys.jwks.keys[0]!)
    const flood = settings.skip.includes('flood') ? undefined : await runFlood(fixture)
    const memory = settings.skip.includes('memory') ? undefined : await runMemory(fixture)
    const verdicts = evaluateTargets({ basis: settings.basis, scenarios: results, crypto, flood, memory })
    const machine = describeMachine(cores, nproc)
    const report = renderReport({ settings, machine, results, crypto, flood, memory, verdicts })
    process.stdout.write(`${report}\n`)
    writeFileSync(`${RESULTS_DIR}latest.json`, `${JSON.stringify({ date: new Date().toISOString(), machine, settings, scenarios: results, crypto, flood, memory, verdicts }, null, 2)}\n`)
    log(`wrote ${RESULTS_DIR}latest.json`)
    if (settings.strict && verdicts.some((v) => v.status === 'FAIL')) process.exitCode = 1
  } finally {
    await kube?.close()
    await idp.close()
  }
}

function pct (share: number): string {
  return Number.isFinite(share) ? `${Math.round(share * 100)}%` : '?'
}

function configEnv (fixture: Fixture, extra: Record<string, string> = {}): Record<string, string> {
  return { BENCH_CONFIG: JSON.stringify(fixture.description), ...extra }
}

function tokenSourceFor (fixture: Fixture, scenario: Scenario): TokenSource {
  if (scenario.tokens === 'pool') return rotating(fixture.pool)
  return scenario.tokens === 'kubernetes' ? fixture.kube!.token : fixture.repeatToken
}

async function measureScenario (fixture: Fixture, scenario: Scenario, result: ScenarioRuns, round: string): Promise<void> {
  const { settings } = fixture
  const env = scenario.tokens === 'kubernetes' ? configEnv(fixture, { KUBECONFIG: fixture.kube!.kubeconfigPath }) : configEnv(fixture)
  const server = await startServer(scenario.server, { cores: fixture.cores, env })
  try {
    const tokens = tokenSourceFor(fixture, scenario)
    await checkServer(fixture, scenario, server, sampleToken(tokens))
    await runLoad({ url: server.url, path: ROUTE, tokens, connections: settings.connections, durationSeconds: settings.warmupSeconds })
    const callsBefore = fixture.kube?.perRequestCalls() ?? 0
    const run = await runLoad({ url: server.url, path: ROUTE, tokens, connections: settings.connections, durationSeconds: settings.durationSeconds, serverCpuSeconds: server.cpuSeconds })
    if (scenario.tokens === 'kubernetes') {
      result.apiCalls = (result.apiCalls ?? 0) + fixture.kube!.perRequestCalls() - callsBefore
      result.requests = (result.requests ?? 0) + run.ok + run.non2xx
    }
    assertClean(scenario.id, run)
    result.runs.push(run)
    log(`${round} ${scenario.id}: ${Math.round(run.rps)} req/s, p99 ${run.p99Ms} ms, server ${pct(run.serverCpu)} CPU (${Math.round(run.serverCpuMicrosPerRequest)} µs/req), autocannon ${pct(run.generatorCpu)} CPU`)
  } finally {
    await server.stop()
  }
}

/** A peer that accepted anything would win every race: each one must refuse bad tokens. */
async function checkServer (fixture: Fixture, scenario: Scenario, server: ServerProcess, goodToken: string): Promise<void> {
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

function assertClean (id: string, run: LoadResult): void {
  if (run.non2xx > 0 || run.errors > 0) {
    throw new Error(`${id}: ${run.non2xx} non-2xx responses and ${run.errors} errors/timeouts under load`)
  }
}

async function measureCryptoLimit (fixture: Fixture, jwk: Record<string, unknown>): Promise<CryptoLimit> {
  log('signature-check limit (node:crypto.verify and jose jwtVerify loops)')
  const script = fileURLToPath(new URL('crypto-limit.ts', import.meta.url))
  const [command = process.execPath, ...args] = [...fixture.cores.serverPrefix, process.execPath, '--import', 'tsx', script]
  const input = { jwk, token: fixture.pool[0], issuer: fixture.description.issuer, audience: AUDIENCE, seconds: fixture.settings.cryptoSeconds }
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_CRYPTO: JSON.stringify(input) } })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  if (code !== 0) throw new Error(`crypto-limit exited with ${String(code)}`)
  return JSON.parse(output.trim().split('\n').pop() ?? '{}') as CryptoLimit
}

/**
 * Valid traffic (scenario 2's load) and, at the same time, requests whose token names a random
 * `kid`, at the issue's rate of 10,000 per 30 s. Counts the key-set fetches they cause.
 */
async function runFlood (fixture: Fixture): Promise<FloodResult> {
  const { settings, idp } = fixture
  log(`unknown-kid flood: ${settings.floodRequests} requests over ${settings.floodSeconds} s beside valid traffic`)
  const server = await startServer('feast-oidc', { cores: fixture.cores, env: configEnv(fixture) })
  try {
    const valid = fixture.repeatToken
    await runLoad({ url: server.url, path: ROUTE, tokens: valid, connections: settings.connections, durationSeconds: settings.warmupSeconds })
    // The reference: the same valid traffic on the same server just before the flood.
    const baseline = await runLoad({ url: server.url, path: ROUTE, tokens: valid, connections: settings.connections, durationSeconds: Math.min(settings.floodSeconds, settings.durationSeconds), serverCpuSeconds: server.cpuSeconds })
    assertClean('flood (baseline)', baseline)
    const jwksBefore = idp.counts.jwks
    const discoveryBefore = idp.counts.discovery
    const floodRate = Math.max(1, Math.round(settings.floodRequests / settings.floodSeconds))
    const [validRun, floodRun] = await Promise.all([
      runLoad({ url: server.url, path: ROUTE, tokens: valid, connections: settings.connections, durationSeconds: settings.floodSeconds, serverCpuSeconds: server.cpuSeconds }),
      runLoad({ url: server.url, path: ROUTE, tokens: () => unknownKidToken(fixture.repeatToken), connections: 4, amount: settings.floodRequests, overallRate: floodRate })
    ])
    assertClean('flood (valid traffic)', validRun)
    return {
      seconds: settings.floodSeconds,
      floodRequests: settings.floodRequests,
      floodRejected: floodRun.non2xx,
      flood5xx: floodRun.status5xx,
      jwksFetches: idp.counts.jwks - jwksBefore,
      discoveryFetches: idp.counts.discovery - discoveryBefore,
      baseline,
      valid: validRun
    }
  } finally {
    await server.stop()
  }
}

/**
 * A million distinct valid tokens (ES256, signed on the fly: RSA signing could not keep up)
 * through one server; RSS read over IPC after a full GC before and after, and sampled during.
 */
async function runMemory (fixture: Fixture): Promise<MemoryResult> {
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
      run = await runLoad({ url: server.url, path: ROUTE, tokens: () => fixture.esSigner.token(next++), connections: settings.connections, amount: settings.memoryTokens, maxSeconds: settings.memoryMaxSeconds, serverCpuSeconds: server.cpuSeconds })
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

/**
 * BENCH_PROFILE=1: scenario 2 and 3 servers, one under random-`kid` tokens only, and the
 * kubernetes scenario when available, each under `--cpu-prof`; prints their top self-time
 * functions over the measured window.
 */
async function profileRun (fixture: Fixture): Promise<void> {
  const { settings } = fixture
  const dir = `${RESULTS_DIR}profiles/`
  rmSync(dir, { recursive: true, force: true })
  const out: string[] = []
  const profiled: Array<{ id: string, server: string, label: string, tokens: TokenSource, expectOk: boolean }> = [
    { id: 'feast-oidc-repeat', server: 'feast-oidc', label: 'feast-authz OIDC, one token repeated', tokens: fixture.repeatToken, expectOk: true },
    { id: 'feast-oidc-pool', server: 'feast-oidc', label: `feast-authz OIDC, ${fixture.pool.length.toLocaleString('en-US')} distinct tokens`, tokens: rotating(fixture.pool), expectOk: true },
    { id: 'feast-oidc-unknown-kid', server: 'feast-oidc', label: 'feast-authz OIDC, random-kid tokens only (every request a 401)', tokens: () => unknownKidToken(fixture.repeatToken), expectOk: false },
    ...(fixture.kube === undefined ? [] : [{ id: 'feast-kubernetes', server: 'feast-kubernetes', label: 'feast-authz kubernetes, one token repeated', tokens: fixture.kube.token, expectOk: true }])
  ]
  for (const target of profiled) {
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
      run = await runLoad({ url: server.url, path: ROUTE, tokens: target.tokens, connections: settings.connections, durationSeconds: settings.durationSeconds, serverCpuSeconds: server.cpuSeconds })
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

interface Machine { nproc: number, cpu: string, node: string, pinning: string, loadAverage: number[] }

function describeMachine (cores: CorePlan, nproc: number): Machine {
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

function renderReport (input: {
  settings: Settings
  machine: Machine
  results: readonly ScenarioRuns[]
  crypto: CryptoLimit | undefined
  flood: FloodResult | undefined
  memory: MemoryResult | undefined
  verdicts: ReturnType<typeof evaluateTargets>
}): string {
  const { settings, machine, crypto, flood } = input
  const lines = [
    `## Benchmark ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC${settings.quick ? ' (BENCH_QUICK: indicative only)' : ''}`,
    '',
    `Machine: ${machine.nproc} cores, ${machine.cpu}, Node ${machine.node}; ${machine.pinning}; load average at the end ${machine.loadAverage.join(' / ')}.`,
    `Load: autocannon, ${settings.connections} connections, ${settings.rounds} × ${settings.durationSeconds} s per scenario (round-robin, ${settings.warmupSeconds} s warm-up each, fresh server process each run), \`GET ${ROUTE}\`.`,
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
    lines.push(`Unknown-kid flood (scenario 2's server): ${flood.floodRequests.toLocaleString('en-US')} random-kid requests over ${flood.seconds} s → ${flood.jwksFetches} JWKS fetch(es); valid traffic ${Math.round(flood.baseline.rps).toLocaleString('en-US')} req/s just before, ${Math.round(flood.valid.rps).toLocaleString('en-US')} req/s during (p99 ${flood.baseline.p99Ms} → ${flood.valid.p99Ms} ms).`, '')
  }
  lines.push('### Targets', '', renderVerdicts(input.verdicts))
  return lines.join('\n')
}

await main()
