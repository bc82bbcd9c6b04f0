/**
 * `npm run bench:instructions`: machine instructions per request of the hot paths, each server
 * under valgrind's callgrind, beside the reference it is judged against.
 *
 * Like `bench:in-process`, a tool for the one who optimises, not a judge of the targets: the
 * targets are about time, and time is not instructions (a regular expression runs more
 * instructions than a `charCodeAt` loop and is still faster). But the count does not move with
 * the machine's load: on a shared VM whose rounds move by 20%, it shows whether a change removed
 * work from the server's path, to a few hundred instructions per request.
 *
 * Each server runs as in `npm run bench` (the same files, the same identity provider and tokens),
 * started under callgrind with counting off; after a warm-up and a settling window, one window of
 * requests is counted. Pool scenarios send each token once (warm-up and windows included), as
 * the pool scenarios of `npm run bench` do; the refused scenario sends a fresh random `kid` each
 * time. Knobs: BENCH_INSTR_ONLY (scenario ids), BENCH_INSTR_REQUESTS (requests per window, default 3000; pool scenarios use two thirds).
 * Needs valgrind (Debian: `apt-get install valgrind`); takes about 8 minutes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { callgrindAvailable, callgrindPrefix, countInstructions, type InstructionCount } from './lib/callgrind.ts'
import { planCores } from './lib/cores.ts'
import { log, RESULTS_DIR } from './lib/fixture.ts'
import { startKubeFixture } from './lib/kube-fixture.ts'
import { startIdpServer } from './lib/idp-server.ts'
import { rotating, runLoad, type TokenSource } from './lib/load.ts'
import { startServer } from './lib/server-process.ts'
import { ISSUER, loadOrCreateTokens } from './lib/token-cache.ts'
import { describeIdp, unknownKidToken } from './lib/tokens.ts'
import { ROUTE } from './servers/common.ts'

interface InstructionScenario {
  readonly id: string
  readonly label: string
  readonly server: string
  readonly tokens: 'repeat' | 'pool' | 'kubernetes' | 'unknown-kid'
  /** The scenarios whose counts this one is divided by. */
  readonly references: readonly string[]
}

const SCENARIOS: readonly InstructionScenario[] = [
  { id: 'bare', label: 'bare Fastify (no auth), one token repeated', server: 'bare', tokens: 'repeat', references: [] },
  { id: 'feast-oidc-repeat', label: 'feast-authz OIDC, one token repeated', server: 'feast-oidc', tokens: 'repeat', references: ['bare'] },
  { id: 'feast-kubernetes', label: 'feast-authz kubernetes, one token repeated', server: 'feast-kubernetes', tokens: 'kubernetes', references: ['bare', 'feast-oidc-repeat'] },
  { id: 'feast-oidc-reject', label: 'feast-authz OIDC, random-kid tokens (every answer a 401)', server: 'feast-oidc', tokens: 'unknown-kid', references: ['feast-oidc-repeat'] },
  { id: 'verify-floor', label: 'verify-floor, distinct tokens', server: 'verify-floor', tokens: 'pool', references: [] },
  { id: 'verify-claims-floor', label: 'verify-claims-floor, distinct tokens', server: 'verify-claims-floor', tokens: 'pool', references: ['verify-floor'] },
  { id: 'fastify-jwt', label: '@fastify/jwt (public key), distinct tokens', server: 'fastify-jwt', tokens: 'pool', references: [] },
  { id: 'fastify-jwt-jwks', label: 'fastify-jwt-jwks, distinct tokens', server: 'fastify-jwt-jwks', tokens: 'pool', references: [] },
  { id: 'feast-oidc-pool', label: 'feast-authz OIDC, distinct tokens', server: 'feast-oidc', tokens: 'pool', references: ['verify-floor', 'verify-claims-floor', 'fastify-jwt', 'fastify-jwt-jwks'] },
  { id: 'bare-express', label: 'bare Express (no auth), one token repeated', server: 'bare-express', tokens: 'repeat', references: [] },
  { id: 'express-noop', label: 'bare Express + one no-op middleware, one token repeated', server: 'express-noop', tokens: 'repeat', references: ['bare-express'] },
  { id: 'feast-express-repeat', label: 'feast-authz on Express, one token repeated', server: 'feast-express', tokens: 'repeat', references: ['bare-express', 'express-noop'] }
]

if (!await callgrindAvailable()) {
  process.stderr.write('bench:instructions needs valgrind and callgrind_control (Debian: apt-get install valgrind)\n')
  process.exit(1)
}
const only = process.env.BENCH_INSTR_ONLY?.split(',').map((id) => id.trim())
const requests = Number(process.env.BENCH_INSTR_REQUESTS ?? 3000)
const { keys, pool, repeatToken } = loadOrCreateTokens(`${RESULTS_DIR}tokens.json`, 20_000)
const idp = await startIdpServer(keys.jwks, ISSUER)
const description = describeIdp(idp, keys, ISSUER)
const cores = planCores()
const selected = SCENARIOS.filter(({ id }) => only === undefined || only.includes(id))
// The Kubernetes scenario's fake API server, in this process as in `npm run bench`.
const kube = selected.some(({ tokens }) => tokens === 'kubernetes') ? await startKubeFixture() : undefined
const counts = new Map<string, { count: InstructionCount, requests: number }>()

try {
  for (const scenario of selected) {
    // A pool request costs a signature check, about 5 times a repeated one under callgrind.
    const window = scenario.tokens === 'pool' ? Math.round(requests * 2 / 3) : requests
    const warmup = scenario.tokens === 'pool' ? 3 * window : 7 * window
    if (scenario.tokens === 'pool' && warmup + 2 * window > pool.length) throw new Error(`BENCH_INSTR_REQUESTS=${requests} needs more distinct tokens than the pool's ${pool.length}`)
    const tokens: TokenSource = scenario.tokens === 'pool'
      ? rotating(pool)
      : scenario.tokens === 'unknown-kid' ? () => unknownKidToken(repeatToken) : scenario.tokens === 'kubernetes' ? kube!.token : repeatToken
    const refused = scenario.tokens === 'unknown-kid'
    const outputDir = mkdtempSync(join(tmpdir(), 'feast-authz-callgrind-'))
    log(`${scenario.id}: starting ${scenario.server} under callgrind`)
    const server = await startServer(scenario.server, {
      cores: { ...cores, serverPrefix: [...cores.serverPrefix, ...callgrindPrefix(outputDir)] },
      env: { BENCH_CONFIG: JSON.stringify(description), ...(scenario.tokens === 'kubernetes' ? { KUBECONFIG: kube!.kubeconfigPath } : {}) }
    })
    try {
      const send = async (amount: number): Promise<void> => {
        const result = await runLoad({ url: server.url, path: ROUTE, tokens, connections: 10, amount, ...(refused ? { expectStatus: 401 as const } : {}) })
        // Every answer a 200 (a 4xx, never a 5xx, for the refused scenario): anything else voids the window.
        const clean = refused ? result.non2xx === amount && result.status5xx === 0 : result.ok === amount
        if (!clean) throw new Error(`${scenario.id}: of ${amount} requests, ${result.ok} 2xx, ${result.non2xx} other statuses (${result.status5xx} 5xx), ${result.errors} errors`)
      }
      log(`${scenario.id}: warm-up, ${warmup} requests`)
      await send(warmup)
      // One window uncounted: the first requests after a warm-up still tier code up.
      await send(window)
      const count = await countInstructions(server.pid, outputDir, async () => { await send(window) })
      counts.set(scenario.id, { count, requests: window })
      log(`${scenario.id}: ${Math.round(count.main / window).toLocaleString('en-US')} instructions per request on the main thread`)
    } finally {
      await server.stop()
      rmSync(outputDir, { recursive: true, force: true })
    }
  }
} finally {
  await idp.close()
  await kube?.close()
}

const perRequest = (id: string, part: keyof InstructionCount): number => {
  const entry = counts.get(id)
  return entry === undefined ? Number.NaN : entry.count[part] / entry.requests
}
const lines = [
  'Instructions per request under callgrind (one counted window per server, after a warm-up):', '',
  '| scenario | main thread | other threads | × reference (main thread) |', '|---|---:|---:|---|',
  ...SCENARIOS.filter(({ id }) => counts.has(id)).map((scenario) => {
    const ratios = scenario.references.filter((reference) => counts.has(reference))
      .map((reference) => `${(perRequest(scenario.id, 'main') / perRequest(reference, 'main')).toFixed(3)}× ${reference}`)
    return `| ${scenario.label} | ${Math.round(perRequest(scenario.id, 'main')).toLocaleString('en-US')} | ` +
      `${Math.round(perRequest(scenario.id, 'others')).toLocaleString('en-US')} | ${ratios.join(', ')} |`
  })
]
process.stdout.write(`${lines.join('\n')}\n`)
