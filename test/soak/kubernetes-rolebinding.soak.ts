/**
 * Soak: 50 concurrent clients (autocannon) against a real Fastify server with the plugin in
 * `kubernetes` mode, backed by the fake API server (TokenReview + RoleBinding watch). Halfway,
 * a RoleBinding adds a Role to every caller. Loopback only, bounded (SOAK_K8S_SECONDS,
 * default 50), stops by itself.
 *
 * Expected: zero non-2xx and zero socket errors, the new binding takes effect through the
 * watch (no restart, no relist) within a couple of seconds, TokenReviews stay at one per token
 * (cached), memory flat.
 */
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { after, before, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import Fastify, { type FastifyInstance } from 'fastify'
import { pino } from 'pino'
import feastAuthz from '../../src/adapters/fastify.ts'
import { createKubernetesManager } from '../../src/managers/kubernetes/kubernetes-manager.ts'
import type { AuthManager } from '../../src/managers/types.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi, type RoleBindingSubject } from '../helpers/fake-kube-api.ts'

const SECONDS = Math.min(Number(process.env.SOAK_K8S_SECONDS ?? 50), 120)
const CONNECTIONS = 50
const ACCOUNTS = 25
const MB = 1024 * 1024

let api: FakeKubeApi
let manager: AuthManager
let app: FastifyInstance
let url: string
let warnings = 0
const subjects: RoleBindingSubject[] = Array.from({ length: ACCOUNTS }, (_, i) => ({ kind: 'ServiceAccount', name: `sa-${i}`, namespace: 'apps' }))

before(async () => {
  api = await startFakeKubeApi({ namespace: 'feast' })
  for (let i = 0; i < ACCOUNTS; i++) api.addToken(jwsToken(`sa-${i}-token`), serviceAccountIdentity('apps', `sa-${i}`))
  api.putRole(feastRole('feast', 'reader'))
  api.putRoleBinding(roleBinding('feast', 'readers', 'reader', subjects))
  const counting = new Writable({ write (chunk: Buffer, _encoding, done) { if (/"level":(40|50|60)/.test(chunk.toString())) warnings++; done() } })
  const logger = pino({ level: 'warn' }, counting)
  manager = createKubernetesManager({ type: 'kubernetes', token_review_cache_ttl_seconds: 300 }, {
    logger,
    connection: { kubeConfig: api.kubeConfig(), source: 'kubeconfig', description: 'fake API server' },
    serviceAccountDir: join(tmpdir(), 'feast-authz-no-pod'),
    env: {}
  })
  app = Fastify({ logger: { level: 'warn', stream: counting } })
  await app.register(feastAuthz, { config: { project: 'soak', auth: { type: 'kubernetes' } }, manager, logger })
  app.get('/whoami', async (request) => ({ roles: request.principal?.roles }))
  url = await app.listen({ host: '127.0.0.1', port: 0 })
  const deadline = Date.now() + 10_000
  while (!manager.health().ready && Date.now() < deadline) await sleep(20)
  assert.ok(manager.health().ready, 'the RoleBinding informer synced')
})

after(async () => {
  await app?.close()
  await api?.close()
})

test(`${CONNECTIONS} clients for ${SECONDS} s with a RoleBinding change halfway: no error, the new binding served, memory flat`, { timeout: (SECONDS + 60) * 1000 }, async () => {
  for (let i = 0; i < ACCOUNTS; i++) assert.equal((await fetch(`${url}/whoami`, { headers: { authorization: `Bearer ${jwsToken(`sa-${i}-token`)}` } })).status, 200)
  const reviewsAfterWarmup = api.calls.tokenReviews
  const listsAfterWarmup = api.calls.roleBindingLists

  const gc = (globalThis as { gc?: () => void }).gc
  const heap: number[] = []
  const rss: number[] = []
  const sample = (): void => { gc?.(); const usage = process.memoryUsage(); heap.push(usage.heapUsed); rss.push(usage.rss) }
  sample()
  const sampler = setInterval(sample, 5000)

  let next = 0
  // eslint-disable-next-line prefer-const -- assigned halfway through the run, read by onResponse
  let changedAt: number | undefined
  let firstNewAt: number | undefined
  let lastOldAt: number | undefined
  const run = autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [{
      method: 'GET',
      path: '/whoami',
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${jwsToken(`sa-${next++ % ACCOUNTS}-token`)}` } }),
      onResponse: (status, body) => {
        if (status !== 200 || changedAt === undefined) return
        const now = Date.now()
        if (body.includes('"writer"')) firstNewAt ??= now
        else lastOldAt = now
      }
    }]
  })

  await sleep((SECONDS * 1000) / 2)
  changedAt = Date.now()
  api.putRole(feastRole('feast', 'writer'))
  api.putRoleBinding(roleBinding('feast', 'writers', 'writer', subjects))
  const result = await run
  clearInterval(sampler)
  sample()

  const byStatus: Record<string, number> = {}
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) byStatus[status] = count
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
    bindingVisibleAfterMs: firstNewAt === undefined ? null : firstNewAt - (changedAt ?? 0),
    lastOldRolesAfterMs: lastOldAt === undefined ? 0 : lastOldAt - (changedAt ?? 0),
    tokenReviewsDuringLoad: api.calls.tokenReviews - reviewsAfterWarmup,
    roleBindingListsDuringLoad: api.calls.roleBindingLists - listsAfterWarmup,
    warningsLogged: warnings,
    heapMeasuredAfterGc: gc !== undefined,
    rssMB: { start: round(rss[0]), max: round(Math.max(...rss)), end: round(rss.at(-1)) },
    heapUsedMB: { start: round(heap[0]), max: round(Math.max(...heap)), end: round(heap.at(-1)) }
  }
  console.log(`SOAK FIGURES ${JSON.stringify(figures)}`)
  if (process.env.SOAK_WRITE_DOCS === '1') writeDocs(figures)

  assert.equal(result.non2xx, 0, `non-2xx answers: ${JSON.stringify(byStatus)}`)
  assert.equal(result.errors, 0)
  assert.equal(result.timeouts, 0)
  assert.notEqual(firstNewAt, undefined, 'the new RoleBinding took effect')
  assert.ok(figures.lastOldRolesAfterMs < 5000, `old roles were still served ${figures.lastOldRolesAfterMs} ms after the change`)
  assert.equal(figures.tokenReviewsDuringLoad, 0, 'reviews are cached for the TTL')
  assert.equal(figures.roleBindingListsDuringLoad, 0, 'the change arrived through the watch, without a relist')
  if (gc !== undefined) assert.ok((heap.at(-1) ?? 0) - (heap[0] ?? 0) < 24 * MB, `live heap grew from ${round(heap[0])} MB to ${round(heap.at(-1))} MB`)
})

function round (bytes: number | undefined): number {
  return Math.round((bytes ?? 0) / MB)
}

function writeDocs (figures: Record<string, unknown>): void {
  const path = new URL('../../docs/security.md', import.meta.url)
  const text = readFileSync(path, 'utf8')
  const begin = '<!-- soak-k8s:begin -->'
  const end = '<!-- soak-k8s:end -->'
  const from = text.indexOf(begin)
  const to = text.indexOf(end)
  if (from === -1 || to === -1) return
  writeFileSync(path, `${text.slice(0, from)}${begin}\n\`\`\`json\n${JSON.stringify(figures, null, 2)}\n\`\`\`\n${text.slice(to)}`)
}
