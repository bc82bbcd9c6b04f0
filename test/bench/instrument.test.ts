/**
 * The benchmark's own logic (not a benchmark: nothing here is timed). A wrong verdict or an
 * invalid token would make `npm run bench` report nonsense, so its pieces are checked here.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { createLocalJWKSet, jwtVerify } from 'jose'
import { threadOf, totalsOf } from '../../bench/lib/callgrind.ts'
import { parseCpuList } from '../../bench/lib/cores.ts'
import { listingFixture, singleCheckFixture } from '../../bench/lib/permission-fixture.ts'
import { rotating, type LoadResult } from '../../bench/lib/load.ts'
import { generationOf } from '../../bench/lib/scenarios.ts'
import { readSettings } from '../../bench/lib/settings.ts'
import { topSelfTime } from '../../bench/lib/profile.ts'
import { evaluateTargets, median, quantile, quietMachine, type FloodResult, type ScenarioRuns } from '../../bench/lib/report.ts'
import { decide, filterAllowed } from '../../src/permissions/index.ts'
import { AUDIENCE, createSigner, ES256_KID, generateBenchKeys, RS256_KID, tamperedToken, unknownKidToken } from '../../bench/lib/tokens.ts'

const ISSUER = 'https://idp.test.invalid'

describe('benchmark tokens', () => {
  const keys = generateBenchKeys()
  const jwks = createLocalJWKSet(keys.jwks as Parameters<typeof createLocalJWKSet>[0])
  const verify = async (token: string): Promise<unknown> => await jwtVerify(token, jwks, { issuer: ISSUER, audience: AUDIENCE })

  test('an RS256 pool token verifies with jose against the published key set', async () => {
    const token = createSigner({ alg: 'RS256', key: keys.rsaPrivate, kid: RS256_KID, issuer: ISSUER, lifetimeSeconds: 60 }).token(7)
    const { payload } = await verify(token) as { payload: Record<string, unknown> }
    assert.equal(payload.preferred_username, 'user7')
  })

  test('an ES256 memory-run token verifies with jose (raw r||s signature encoding)', async () => {
    const token = createSigner({ alg: 'ES256', key: keys.ecPrivate, kid: ES256_KID, issuer: ISSUER, lifetimeSeconds: 60 }).token(1)
    await assert.doesNotReject(verify(token))
  })

  test('distinct indexes give distinct tokens', () => {
    const signer = createSigner({ alg: 'ES256', key: keys.ecPrivate, kid: ES256_KID, issuer: ISSUER, lifetimeSeconds: 60 })
    assert.notEqual(signer.token(1), signer.token(2))
  })

  test('a tampered token and a random-kid token are refused by jose', async () => {
    const token = createSigner({ alg: 'RS256', key: keys.rsaPrivate, kid: RS256_KID, issuer: ISSUER, lifetimeSeconds: 60 }).token(3)
    await assert.rejects(verify(tamperedToken(token)), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' })
    await assert.rejects(verify(unknownKidToken(token)), { code: 'ERR_JWKS_NO_MATCHING_KEY' })
  })
})

describe('load helpers', () => {
  test('rotating hands out every pool token once before repeating', () => {
    const next = rotating(['a', 'b', 'c'])
    assert.deepEqual([next(), next(), next(), next()], ['a', 'b', 'c', 'a'])
  })

  test('parseCpuList expands ranges and lists', () => {
    assert.deepEqual(parseCpuList(' 0-2,5,7-8\n'), [0, 1, 2, 5, 7, 8])
  })

  test('rounds are shared among server generations in equal, consecutive shares', () => {
    const generations = Array.from({ length: 15 }, (_, index) => generationOf(index, 15, 5))
    assert.deepEqual(generations, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4])
    assert.equal(generationOf(-1, 15, 5), -1, 'before the first round: no generation, so the first round starts one')
  })

  test('the round and process counts default to 15 rounds over 5 generations, and 2 over 1 in quick mode', () => {
    const full = readSettings({})
    assert.deepEqual([full.rounds, full.processes, full.durationSeconds], [15, 5, 2])
    const quick = readSettings({ BENCH_QUICK: '1' })
    assert.deepEqual([quick.rounds, quick.processes], [2, 1])
  })

  test('each measured round is preceded by 1 s of unmeasured load, which BENCH_SETTLE sets or turns off', () => {
    assert.equal(readSettings({}).settleSeconds, 1)
    assert.equal(readSettings({ BENCH_SETTLE: '0' }).settleSeconds, 0)
    assert.equal(readSettings({ BENCH_SETTLE: '2.5' }).settleSeconds, 2.5)
    for (const raw of ['-1', 'one']) {
      assert.throws(() => readSettings({ BENCH_SETTLE: raw }), { message: `BENCH_SETTLE must be a number of seconds, 0 or more, got ${JSON.stringify(raw)}` })
    }
  })

  test('a process count that is not a positive number is refused, naming the variable', () => {
    for (const raw of ['0', '-1', 'five']) {
      assert.throws(() => readSettings({ BENCH_PROCESSES: raw }), { message: `BENCH_PROCESSES must be a positive number, got ${JSON.stringify(raw)}` })
    }
  })

  test('median ignores unmeasured values and averages the middle pair', () => {
    assert.equal(median([3, Number.NaN, 1, 2]), 2)
    assert.equal(median([4, 1, 3, 2]), 2.5)
  })
})

describe('target verdicts', () => {
  const run = (rps: number, cpuMicros: number, serverCpu: number): LoadResult => ({
    rps,
    p99Ms: 1,
    p50Ms: 1,
    maxMs: 1,
    ok: rps,
    non2xx: 0,
    status5xx: 0,
    errors: 0,
    seconds: 1,
    serverCpu,
    serverCpuMicrosPerRequest: cpuMicros,
    generatorCpu: 0.5
  })
  const scenario = (id: string, result: LoadResult): ScenarioRuns => ({ id, label: id, peer: false, runs: [result] })
  const verdictFor = (bare: LoadResult, oidc: LoadResult, basis: 'auto' | 'rps' | 'cpu'): string => {
    const verdicts = evaluateTargets({ basis, scenarios: [scenario('bare', bare), scenario('feast-oidc-repeat', oidc)], crypto: undefined, flood: undefined, memory: undefined })
    return verdicts.find((v) => v.target.startsWith('OIDC, one token repeated'))!.status
  }

  test('with both servers saturated, req/s decides', () => {
    assert.equal(verdictFor(run(10_000, 100, 1), run(8_000, 100, 1), 'auto'), 'FAIL')
  })

  test('with a server starved by a busy machine, CPU cost per request decides', () => {
    // Same CPU cost per request: the req/s gap is the machine, not the server.
    assert.equal(verdictFor(run(10_000, 100, 0.3), run(5_000, 100, 0.15), 'auto'), 'PASS')
  })

  test('with autocannon saturated, CPU cost per request decides', () => {
    const generatorBound = (result: LoadResult): LoadResult => ({ ...result, generatorCpu: 0.97 })
    assert.equal(verdictFor(generatorBound(run(50_000, 10, 0.9)), generatorBound(run(50_000, 20, 0.95)), 'auto'), 'FAIL')
  })

  test('BENCH_BASIS=rps forces the req/s reading', () => {
    assert.equal(verdictFor(run(10_000, 100, 0.3), run(5_000, 100, 0.15), 'rps'), 'FAIL')
  })

  test('distinct tokens must beat every peer by 1.05×, not only the slower one', () => {
    const verdicts = evaluateTargets({
      basis: 'auto',
      scenarios: [scenario('feast-oidc-pool', run(10_500, 95, 1)), scenario('fastify-jwt', run(10_100, 99, 1)), scenario('fastify-jwt-jwks', run(9_000, 110, 1))],
      crypto: undefined,
      flood: undefined,
      memory: undefined
    })
    assert.equal(verdicts.find((v) => v.target.startsWith('OIDC, distinct tokens ≥ 1.05×'))!.status, 'FAIL')
  })

  test('CPU-cost targets compare server CPU per request (rejections against the repeated token)', () => {
    const verdictFor = (rejectMicros: number): string => evaluateTargets({
      basis: 'auto',
      scenarios: [scenario('feast-oidc-repeat', run(60_000, 15, 1)), scenario('feast-oidc-reject', run(30_000, rejectMicros, 1))],
      crypto: undefined,
      flood: undefined,
      memory: undefined
    }).find((v) => v.target.startsWith('Rejections'))!.status
    assert.equal(verdictFor(29), 'PASS')
    assert.equal(verdictFor(31), 'FAIL')
  })

  test('the refresh target fails on one slow request, and on too many fetches', () => {
    const verdictFor = (maxMs: number, fetches: number): string => evaluateTargets({
      basis: 'auto',
      scenarios: [],
      crypto: undefined,
      flood: undefined,
      memory: undefined,
      refresh: { jwksDelayMs: 300, lifespanSeconds: 2, seconds: 10, fetches, run: { ...run(50_000, 15, 1), maxMs } }
    }).find((v) => v.target.startsWith('Refresh'))!.status
    assert.equal(verdictFor(12, 5), 'PASS')
    assert.equal(verdictFor(305, 5), 'FAIL')
    assert.equal(verdictFor(12, 40), 'FAIL')
  })

  /** A flood whose 30 s stretch reads 0.80× its references (the machine slowed during it). */
  const flood: FloodResult = {
    seconds: 30,
    floodRequests: 10_000,
    floodRejected: 10_000,
    flood5xx: 0,
    jwksFetches: 2,
    discoveryFetches: 0,
    before: run(40_000, 25, 1),
    after: run(40_000, 25, 1),
    valid: run(32_000, 31.25, 1)
  }
  const floodVerdict = (result: FloodResult, prefix: string): { status: string, measured: string } =>
    evaluateTargets({ basis: 'auto', scenarios: [], crypto: undefined, flood: result, memory: undefined }).find((v) => v.target.startsWith(prefix))!

  test('the flood\'s throughput verdict is the median of its paired rounds when it has them, not the long stretch against its references', () => {
    const prefix = 'Unknown-kid flood: valid tokens'
    assert.equal(floodVerdict(flood, prefix).status, 'FAIL')
    const paired = floodVerdict({
      ...flood,
      rounds: {
        alone: [run(40_000, 25, 1), run(20_000, 50, 1), run(30_000, 33, 1)],
        flooded: [run(38_000, 26, 1), run(19_000, 52, 1), run(28_500, 35, 1)]
      }
    }, prefix)
    assert.equal(paired.status, 'PASS')
    assert.match(paired.measured, /^\*\*0\.95×\*\* by req\/s, median of the rounds/)
  })

  test('any 5xx answer to the flood fails the fetch target, however few the fetches', () => {
    const prefix = 'Unknown-kid flood: ≤ 2 JWKS'
    assert.equal(floodVerdict(flood, prefix).status, 'PASS')
    assert.equal(floodVerdict({ ...flood, flood5xx: 1 }, prefix).status, 'FAIL')
  })

  /** One scenario's rounds, one per CPU cost (µs per request); req/s follows from the cost. */
  const rounds = (id: string, costs: number[], serverCpu = 0.5): ScenarioRuns =>
    ({ id, label: id, peer: false, runs: costs.map((cost) => run(1e6 / cost, cost, serverCpu)) })
  const repeatedVerdict = (bare: number[], oidc: number[]): { status: string, measured: string } => evaluateTargets({
    basis: 'auto',
    scenarios: [rounds('bare', bare), rounds('feast-oidc-repeat', oidc)],
    crypto: undefined,
    flood: undefined,
    memory: undefined
  }).find((v) => v.target.startsWith('OIDC, one token repeated'))!

  test('with rounds, a ratio verdict is the median of the rounds\' ratios, not the ratio of the medians', () => {
    // Each round the plugin costs 10% more than bare; the machine slowed down in between, and the
    // one fast round of the plugin makes the ratio of the medians look like a win.
    const verdict = repeatedVerdict([20, 40, 30], [22, 44, 28])
    assert.equal(verdict.status, 'FAIL')
    assert.match(verdict.measured, /^\*\*0\.91×\*\* by CPU cost, median of the rounds/)
    assert.match(verdict.measured, /CPU cost 1\.07×/)
  })

  test('a ratio verdict states the spread of its rounds\' ratios', () => {
    const verdict = repeatedVerdict([20, 30, 25, 25], [21, 36, 25, 25])
    assert.match(verdict.measured, /per round \(4\): median 0\.98×, middle half 0\.92–1\.00×, all 0\.83–1\.00×$/)
  })

  test('a cost ceiling is judged on the median of the rounds\' ratios too', () => {
    const verdict = evaluateTargets({
      basis: 'auto',
      scenarios: [rounds('verify-floor', [60, 100, 80], 1), rounds('feast-oidc-pool', [66, 110, 70], 1)],
      crypto: undefined,
      flood: undefined,
      memory: undefined
    }).find((v) => v.target.startsWith('OIDC, distinct tokens ≤ 1.2×'))!
    assert.equal(verdict.status, 'PASS')
    assert.match(verdict.measured, /^\*\*1\.10×\*\* \(median of the rounds\)/)
  })

  test('the middle half of a reference\'s rounds moving more than 10% marks the machine as not quiet', () => {
    const quiet = quietMachine([rounds('bare', [27, 28, 27.5, 27.2, 45], 1), rounds('verify-floor', [60, 62, 61], 1)])
    assert.equal(quiet.status, 'PASS', 'one round hit by a neighbour is not a noisy machine')
    const busy = quietMachine([rounds('bare', [27, 39, 28], 1), rounds('verify-floor', [60, 62, 61], 1)])
    assert.equal(busy.status, 'WARN')
    assert.match(busy.measured, /bare 27\.5–33\.5 µs\/req \(22%; all 27\.0–39\.0\)/)
  })

  test('quantile interpolates between the two nearest values', () => {
    assert.equal(quantile([1, 2, 3, 4, 5], 0.5), 3)
    assert.equal(quantile([4, 1, 3, 2], 0.25), 1.75)
    assert.ok(Number.isNaN(quantile([], 0.5)))
  })

  test('the Kubernetes scenario allows one review per cache lifespan, and no RoleBinding list', () => {
    const verdictFor = (tokenReviews: number, roleBindingLists: number): string => {
      const calls = { tokenReviews, roleBindingLists, requests: 900_000, firstAt: 0, lastAt: 300_000, reviewTtlSeconds: 60 }
      const kube: ScenarioRuns = { ...rounds('feast-kubernetes', [30, 30]), kube: calls }
      return evaluateTargets({ basis: 'auto', scenarios: [kube], crypto: undefined, flood: undefined, memory: undefined })
        .find((v) => v.target === 'Kubernetes steady state: 0 API calls per request')!.status
    }
    assert.equal(verdictFor(6, 0), 'PASS')
    assert.equal(verdictFor(7, 0), 'FAIL')
    assert.equal(verdictFor(0, 1), 'FAIL')
  })

  test('the quiet-machine check needs two rounds of a reference: one round says nothing of the noise', () => {
    assert.equal(quietMachine([{ id: 'bare', label: 'bare', peer: false, runs: [run(30_000, 30, 1)] }]).status, 'SKIP')
  })

  test('a target whose scenarios were not run is SKIP, not PASS', () => {
    const verdicts = evaluateTargets({ basis: 'auto', scenarios: [], crypto: undefined, flood: undefined, memory: undefined })
    assert.ok(verdicts.every((v) => v.status === 'SKIP'))
  })
})

describe('profile summary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('only samples inside the window count, idle excluded', () => {
    const file = join(dir, 'p.cpuprofile')
    writeFileSync(file, JSON.stringify({
      startTime: 1000,
      nodes: [
        { id: 1, callFrame: { functionName: 'startup', url: 'file:///x/loader.js', lineNumber: 0 } },
        { id: 2, callFrame: { functionName: 'verify', url: 'file:///x/verify.js', lineNumber: 9 } },
        { id: 3, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } }
      ],
      // Sample times: 1100 (startup), 1200, 1300 (verify), 1400 (idle).
      samples: [1, 2, 2, 3],
      timeDeltas: [100, 100, 100, 100]
    }))
    const { top, totalMs } = topSelfTime(file, 10, { from: 1150, to: 2000 })
    assert.deepEqual(top.map((entry) => entry.fn), ['verify'])
    assert.equal(totalMs, 0.2)
  })
})

describe('callgrind dumps (bench:instructions)', () => {
  test('the instruction total is read from the totals line, not the summary line callgrind writes first', () => {
    const dump = ['# callgrind format', 'events: Ir', 'summary: 0', '', 'fn=(1) main', '0 12', '', 'totals: 156439002', ''].join('\n')
    assert.equal(totalsOf(dump), 156439002)
  })

  test('a dump still being written (no totals line yet) has no total', () => {
    assert.equal(totalsOf('# callgrind format\nevents: Ir\nsummary: 0\n'), undefined)
  })

  test('a dump file names its thread, and the file written at start names none', () => {
    assert.equal(threadOf('out.18195.2-01'), 1)
    assert.equal(threadOf('out.18195.2-12'), 12)
    assert.equal(threadOf('out.18195'), undefined)
  })
})

describe('permission fixtures (bench:in-process)', () => {
  test('the listing hides some views and refuses none, with every filter-mode kind of denial present', () => {
    const { permissions, principal, resources, actions } = listingFixture()
    const result = filterAllowed(permissions, principal, resources, actions)
    const lastApplied = result.dropped.map(({ decision }) => decision.explanation.findLast((verdict) => verdict.applied))
    assert.deepEqual({
      views: resources.length,
      permissions: permissions.length,
      refused: result.refused,
      someKept: result.allowed.length > 0,
      hiddenWithNoPermissionApplying: lastApplied.some((verdict) => verdict === undefined),
      hiddenWithAnUnscopedOneApplyingFirst: result.dropped.some(({ decision }) => decision.explanation.some((verdict) => verdict.applied && verdict.permission === 'pii-auditors'))
    }, { views: 1_000, permissions: 30, refused: undefined, someKept: true, hiddenWithNoPermissionApplying: true, hiddenWithAnUnscopedOneApplyingFirst: true })
  })

  test('the single check is allowed', () => {
    const { permissions, principal, resources, actions } = singleCheckFixture()
    assert.equal(decide(permissions, principal, resources[0]!, actions).allowed, true)
  })
})
