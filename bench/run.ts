/**
 * `npm run bench`: every server in its own process on one core, autocannon in this process
 * on another, each scenario measured in BENCH_ROUNDS short rounds, interleaved with the others
 * (forwards, then backwards), then the signature-check limit, the unknown-`kid` flood, the
 * refresh run, the start-up probes and the memory run. Prints a markdown report on stdout
 * (progress goes to stderr) and writes bench/results/latest.json.
 *
 * See docs/performance.md for the knobs (BENCH_QUICK=1, BENCH_PROFILE=1, ...).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { planCores } from './lib/cores.ts'
import { measureCryptoLimit } from './lib/crypto-run.ts'
import { log, RESULTS_DIR, type Fixture } from './lib/fixture.ts'
import { runFlood } from './lib/flood-run.ts'
import { startIdpServer } from './lib/idp-server.ts'
import { kubernetesUnavailable, startKubeFixture, type KubeFixture } from './lib/kube-fixture.ts'
import { runMemory } from './lib/memory-run.ts'
import { runRefresh } from './lib/refresh-run.ts'
import { runStartup } from './lib/startup-run.ts'
import { profileRun } from './lib/profile-run.ts'
import { describeMachine, renderReport } from './lib/render.ts'
import { evaluateTargets, type ScenarioRuns } from './lib/report.ts'
import { measureScenarios, scenarioList } from './lib/scenarios.ts'
import { readSettings } from './lib/settings.ts'
import { ISSUER, loadOrCreateTokens } from './lib/token-cache.ts'
import { createSigner, describeIdp, ES256_KID, RS256_KID, tamperedToken } from './lib/tokens.ts'

/** Lifetime of the tokens made for this run (the cached pool lives 24 h). */
const TOKEN_LIFETIME_SECONDS = 2 * 3600

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
  const description = describeIdp(idp, keys, ISSUER)
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
    await measureScenarios(fixture, selected, results)

    const crypto = settings.skip.includes('crypto') ? undefined : await measureCryptoLimit(fixture, keys.jwks.keys[0]!)
    const flood = settings.skip.includes('flood') ? undefined : await runFlood(fixture)
    const refresh = settings.skip.includes('refresh') ? undefined : await runRefresh(fixture)
    const startup = settings.skip.includes('startup') ? undefined : await runStartup(fixture)
    const memory = settings.skip.includes('memory') ? undefined : await runMemory(fixture)
    const verdicts = evaluateTargets({ basis: settings.basis, scenarios: results, crypto, flood, memory, refresh, startup })
    const machine = describeMachine(cores, nproc)
    const report = renderReport({ settings, machine, results, crypto, flood, memory, refresh, startup, verdicts })
    process.stdout.write(`${report}\n`)
    writeFileSync(`${RESULTS_DIR}latest.json`, `${JSON.stringify({ date: new Date().toISOString(), machine, settings, scenarios: results, crypto, flood, memory, refresh, startup, verdicts }, null, 2)}\n`)
    log(`wrote ${RESULTS_DIR}latest.json`)
    if (settings.strict && verdicts.some((v) => v.status === 'FAIL')) process.exitCode = 1
  } finally {
    await kube?.close()
    await idp.close()
  }
}

await main()
