/**
 * Soak: 50 concurrent clients (autocannon) against a real Fastify server with the plugin in
 * `oidc` mode, validating tokens of a real OpenID provider that rotates its signing key
 * halfway through. Loopback only, bounded (SOAK_SECONDS, default 90), stops by itself.
 *
 * Expected: zero non-2xx answers and zero socket errors for valid tokens, the new key takes
 * effect (tokens of the new key are served), and memory stays flat.
 *
 * Run with `npm run soak` (not part of `npm test`: the file name does not end in .test.ts).
 * With SOAK_WRITE_DOCS=1 the figures replace the soak block of docs/security.md.
 */
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { Writable } from 'node:stream'
import { after, before, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import Fastify, { type FastifyInstance } from 'fastify'
import feastAuthz from '../../src/adapters/fastify.ts'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.ts'

const SECONDS = Math.min(Number(process.env.SOAK_SECONDS ?? 90), 150)
const CONNECTIONS = 50
const TOKENS_PER_KEY = 25
const MB = 1024 * 1024

let provider: TestProvider
let app: FastifyInstance
let url: string
let warnings = 0

before(async () => {
  // The provider is started here, not by the OIDC-app fixture: the soak server logs at warn level into a counter, under autocannon.
  provider = await startOidcProvider()
  // Only warnings and errors are kept (counted): a debug log of every request would itself grow memory.
  const stream = new Writable({ write (chunk: Buffer, _encoding, done) { if (/"level":(40|50|60)/.test(chunk.toString())) warnings++; done() } })
  app = Fastify({ logger: { level: 'warn', stream } })
  await app.register(feastAuthz, { config: { project: 'soak', auth: { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId } } })
  app.get('/whoami', async (request) => ({ username: request.principal?.username }))
  url = await app.listen({ host: '127.0.0.1', port: 0 })
})

after(async () => {
  await app?.close()
  await provider?.close()
})

async function issueTokens (prefix: string): Promise<string[]> {
  const tokens: string[] = []
  for (let i = 0; i < TOKENS_PER_KEY; i++) {
    tokens.push(await provider.issue({ preferred_username: `${prefix}-${i}`, groups: ['soak'] }, { ttlSeconds: SECONDS * 3 + 600 }))
  }
  return tokens
}

function kidOf (token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid: string }).kid
}

test(`${CONNECTIONS} clients for ${SECONDS} s with a signing-key rotation halfway: no error, the new key served, memory flat`, { timeout: (SECONDS + 90) * 1000 }, async () => {
  const oldTokens = await issueTokens('before')
  const oldKid = provider.kid
  let pool = oldTokens
  let next = 0
  let sentWithNewKey = 0
  let newTokens: string[] = []

  // Warm-up: keys fetched, JIT warm, before the memory baseline is taken.
  for (const token of oldTokens) assert.equal((await fetch(`${url}/whoami`, { headers: { authorization: `Bearer ${token}` } })).status, 200)
  const rssSamples: number[] = []
  const heapSamples: number[] = []
  // With --expose-gc (the soak script passes it) the heap is measured after a full collection,
  // so growth means retained objects, not garbage the collector has not reached yet.
  const gc = (globalThis as { gc?: () => void }).gc
  const sample = (): void => {
    gc?.()
    const usage = process.memoryUsage()
    rssSamples.push(usage.rss)
    heapSamples.push(usage.heapUsed)
  }
  sample()
  const sampler = setInterval(sample, 5000)

  const run = autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [{
      method: 'GET',
      path: '/whoami',
      setupRequest: (request) => {
        const current = pool
        const token = current[next++ % current.length]!
        if (current === newTokens) sentWithNewKey++
        return { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } }
      }
    }]
  })

  // Halfway: the provider rotates (old key still published, as real providers overlap keys),
  // new tokens are issued under load, and the clients switch to them.
  await sleep((SECONDS * 1000) / 2)
  await provider.rotateKeys({ keepOld: true })
  const rotatedAt = Date.now()
  newTokens = await issueTokens('after')
  pool = newTokens
  const rotationToNewTokensMs = Date.now() - rotatedAt
  const result = await run
  clearInterval(sampler)

  const byStatus: Record<string, number> = {}
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) byStatus[status] = count
  sample()
  const warm = rssSamples[Math.min(1, rssSamples.length - 1)] ?? 0
  const warmHeap = heapSamples[Math.min(1, heapSamples.length - 1)] ?? 0
  const figures = {
    date: new Date().toISOString(),
    node: process.version,
    connections: CONNECTIONS,
    seconds: SECONDS,
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.average),
    byStatus,
    non2xx: result.non2xx,
    socketErrors: result.errors,
    timeouts: result.timeouts,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    newKeyRequests: sentWithNewKey,
    rotationToNewTokensMs,
    heapMeasuredAfterGc: gc !== undefined,
    jwksFetches: provider.stats.jwks,
    warningsLogged: warnings,
    rssMB: { start: round(rssSamples[0]), afterWarmup: round(warm), max: round(Math.max(...rssSamples)), end: round(rssSamples.at(-1)) },
    heapUsedMB: { start: round(heapSamples[0]), afterWarmup: round(warmHeap), max: round(Math.max(...heapSamples)), end: round(heapSamples.at(-1)) }
  }
  console.log(`SOAK FIGURES ${JSON.stringify(figures)}`)
  if (process.env.SOAK_WRITE_DOCS === '1') writeDocs(figures)

  assert.ok(result.requests.total > 0)
  assert.equal(result.non2xx, 0, `non-2xx answers: ${JSON.stringify(byStatus)}`)
  assert.equal(result.errors, 0)
  assert.equal(result.timeouts, 0)
  assert.ok(sentWithNewKey > 0, 'tokens of the new key were sent and all answered 200')
  assert.notEqual(kidOf(newTokens[0]!), oldKid)
  const check = await fetch(`${url}/whoami`, { headers: { authorization: `Bearer ${newTokens[0]!}` } })
  assert.equal(check.status, 200)
  // One fetch at startup, one for the new kid; a few more only if the cache lifespan (300 s) passed.
  assert.ok(provider.stats.jwks <= 4, `${provider.stats.jwks} key-set fetches`)
  // Flat memory: after warm-up, the live heap must not climb with the request count (hundreds of
  // thousands of requests); RSS may breathe with the allocator but within a bound.
  if (gc !== undefined) assert.ok((heapSamples.at(-1) ?? 0) - warmHeap < 24 * MB, `live heap grew from ${round(warmHeap)} MB to ${round(heapSamples.at(-1))} MB`)
  assert.ok((rssSamples.at(-1) ?? 0) - warm < 128 * MB, `RSS grew from ${round(warm)} MB to ${round(rssSamples.at(-1))} MB`)
})

function round (bytes: number | undefined): number {
  return Math.round((bytes ?? 0) / MB)
}

function writeDocs (figures: Record<string, unknown>): void {
  const path = new URL('../../docs/security.md', import.meta.url)
  const text = readFileSync(path, 'utf8')
  const begin = '<!-- soak:begin -->'
  const end = '<!-- soak:end -->'
  const from = text.indexOf(begin)
  const to = text.indexOf(end)
  if (from === -1 || to === -1) return
  const block = `${begin}\n\`\`\`json\n${JSON.stringify(figures, null, 2)}\n\`\`\`\n`
  writeFileSync(path, text.slice(0, from) + block + text.slice(to))
}
