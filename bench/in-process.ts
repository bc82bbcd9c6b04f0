/**
 * `npm run bench:in-process`: what the plugin's own hooks cost per request, without HTTP.
 *
 * The HTTP benchmark (`npm run bench`) is the judge of the targets, but on a shared VM its
 * rounds move by 10–40% and a few hundred nanoseconds drown. This measures the same work in one
 * process, each round cut into slices of a few milliseconds in which every variant runs in turn,
 * so that a drift of the machine (which lasts seconds here) hits all variants alike within a round:
 * the Fastify plugin's `onRequest` and permission `preHandler` hooks called as Fastify calls them,
 * on a request object shaped like Fastify's, for one repeated token (the cached path) and for the
 * distinct-token pool, beside the two references of the HTTP bench done inline (`verify-floor`:
 * one `crypto.verify`; `verify-claims-floor`: plus the payload's JSON and exp/iss/aud).
 *
 * Two more variants time the permission gate every adapter runs (after authentication, with a
 * production logger at info level): a registry listing in filter mode, 1,000 feature views against
 * 30 permissions, and an ordinary single-resource check (bench/lib/permission-fixture.ts).
 *
 * It needs the token cache that `npm run bench` writes (`bench/results/tokens.json`) and makes it
 * when missing. Knobs: BENCH_IN_PROCESS_ROUNDS (default 9), BENCH_IN_PROCESS_SLICES (slices per
 * round, default 50), BENCH_IN_PROCESS_REPEAT (requests per round of the cached path and of the
 * single check, default 200,000), BENCH_IN_PROCESS_LISTINGS (listings per round, default 100).
 */
import { createPublicKey, verify } from 'node:crypto'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import { destination, pino } from 'pino'
import feastAuthz from '../src/index.ts'
import { createPermissionGate } from '../src/adapters/require-permission.ts'
import { listingFixture, singleCheckFixture, type PermissionCheckFixture } from './lib/permission-fixture.ts'
import { RESULTS_DIR } from './lib/fixture.ts'
import { startIdpServer } from './lib/idp-server.ts'
import { median } from './lib/report.ts'
import { ISSUER, loadOrCreateTokens } from './lib/token-cache.ts'
import { AUDIENCE, CLIENT_ID } from './lib/tokens.ts'

type Hook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void

const rounds = Number(process.env.BENCH_IN_PROCESS_ROUNDS ?? 9)
const slices = Number(process.env.BENCH_IN_PROCESS_SLICES ?? 50)
const repeatPerRound = Number(process.env.BENCH_IN_PROCESS_REPEAT ?? 200_000)
const listingsPerRound = Number(process.env.BENCH_IN_PROCESS_LISTINGS ?? 100)
const { keys, pool, repeatToken } = loadOrCreateTokens(`${RESULTS_DIR}tokens.json`, 20_000)
const idp = await startIdpServer(keys.jwks, ISSUER)

// The plugin's hooks, captured as it adds them (fastify-plugin hands it this very instance).
const hooks = new Map<string, Hook>()
const app = Fastify({ logger: false })
const addHook = app.addHook.bind(app)
app.addHook = ((name: string, hook: Hook) => {
  hooks.set(name, hook)
  return addHook(name as 'onRequest', hook)
}) as typeof app.addHook
await app.register(feastAuthz, {
  config: { project: 'bench', auth: { type: 'oidc', client_id: CLIENT_ID, auth_discovery_url: idp.discoveryUrl, audience: AUDIENCE, issuer: ISSUER } }
})
app.get('/features', async () => ({}))
await app.ready()
for (let i = 0; i < 200 && !app.feastAuthz.health().ready; i++) await new Promise((resolve) => setTimeout(resolve, 25))
if (!app.feastAuthz.health().ready) throw new Error('feast-authz did not load the key set within 5 s')
const onRequest = hooks.get('onRequest')!.bind(app)
const preHandler = hooks.get('preHandler')!.bind(app)

// What the hooks read of a Fastify request; routeOptions is rebuilt on each read, as Fastify does.
const routeConfig = { url: '/features', method: 'GET' }
class BenchRequest {
  principal: unknown = null
  permittedResources: unknown = null
  readonly headers: Record<string, string>
  readonly raw: { rawHeaders: string[] }
  readonly log = app.log
  constructor (token: string) {
    // A fresh string per request, as Node's HTTP parser makes one, not a literal V8 shares.
    const authorization = `Bearer ${token}`.split('').join('')
    this.headers = { host: '127.0.0.1:3000', authorization }
    this.raw = { rawHeaders: ['host', '127.0.0.1:3000', 'authorization', authorization] }
  }

  get routeOptions (): object {
    return {
      method: 'GET',
      url: '/features',
      bodyLimit: 1_048_576,
      handlerTimeout: 0,
      attachValidation: false,
      logLevel: '',
      exposeHeadRoute: true,
      prefixTrailingSlash: 'both',
      handler: null,
      config: routeConfig,
      schema: undefined,
      version: undefined
    }
  }
}
const reply = { code (): never { throw new Error('a request of the in-process bench was refused') } } as unknown as FastifyReply
let accepted = 0
const done = (error?: Error): void => {
  if (error !== undefined) throw error
  accepted++
}

const repeated = Array.from({ length: 64 }, () => new BenchRequest(repeatToken))
const distinct = pool.map((token) => new BenchRequest(token))
const key = createPublicKey(keys.rsaPublicPem)
// Each walks the pool on its own: the hooks must meet a token again only after the whole pool
// (more than the verified-token cache's "seen" window), however the variants take turns.
let nextDistinct = 0
let nextFloor = 0
// The floors' token: the next of the pool, read from the same header strings the hooks get.
const nextToken = (): string => distinct[nextFloor++ % distinct.length]!.headers.authorization!.slice(7)
// verify-floor's one check: the signature over the first two segments, nothing else.
function signatureValid (token: string): boolean {
  const dot = token.lastIndexOf('.')
  return verify('sha256', Buffer.from(token.slice(0, dot), 'latin1'), key, Buffer.from(token.slice(dot + 1), 'base64url'))
}

// The gate as the adapters call it once the caller is authenticated; a refusal would mean the
// fixture no longer measures what it says, so it stops the run.
const gateLog = pino({ level: 'info' }, destination('/dev/null'))
function permissionCheck (fixture: PermissionCheckFixture, filter: boolean): (count: number) => void {
  const gate = createPermissionGate({ authType: 'oidc', permissions: fixture.permissions, realm: 'bench', logger: gateLog })
  const { principal, resources, actions } = fixture
  return (count) => {
    for (let i = 0; i < count; i++) {
      const outcome = gate.check(principal, resources, actions, { filter, project: undefined, log: gateLog })
      if (!outcome.allowed) throw new Error('a permission check of the in-process bench was refused')
      accepted++
    }
  }
}
const listing = listingFixture()

interface Variant { readonly id: string, readonly label: string, readonly perRound: number, run (count: number): void }
const variants: Variant[] = [
  {
    id: 'cached',
    label: 'feast-authz hooks, one token repeated (the cached path)',
    perRound: repeatPerRound,
    run (count) {
      for (let i = 0; i < count; i++) {
        const request = repeated[i & 63]! as unknown as FastifyRequest
        onRequest(request, reply, done)
        preHandler(request, reply, done)
      }
    }
  },
  {
    id: 'distinct',
    label: `feast-authz hooks, ${pool.length.toLocaleString('en-US')} distinct tokens in rotation`,
    perRound: pool.length,
    run (count) {
      for (let i = 0; i < count; i++) {
        const request = distinct[nextDistinct++ % distinct.length]! as unknown as FastifyRequest
        onRequest(request, reply, done)
        preHandler(request, reply, done)
      }
    }
  },
  {
    id: 'floor',
    label: 'verify-floor inline: one crypto.verify, the same tokens',
    perRound: pool.length,
    run (count) {
      for (let i = 0; i < count; i++) {
        if (signatureValid(nextToken())) accepted++
      }
    }
  },
  {
    id: 'claims-floor',
    label: 'verify-claims-floor inline: plus the payload JSON and exp/iss/aud',
    perRound: pool.length,
    run (count) {
      for (let i = 0; i < count; i++) {
        const token = nextToken()
        if (!signatureValid(token)) continue
        const claims = JSON.parse(Buffer.from(token.slice(token.indexOf('.') + 1, token.lastIndexOf('.')), 'base64url').toString('utf8')) as { exp?: number, iss?: string, aud?: string }
        if (typeof claims.exp === 'number' && claims.exp > Date.now() / 1000 && claims.iss === ISSUER && claims.aud === AUDIENCE) accepted++
      }
    }
  },
  {
    id: 'listing',
    label: `permission gate, filter mode: ${listing.resources.length.toLocaleString('en-US')} feature views, ${listing.permissions.length} permissions (one listing)`,
    perRound: listingsPerRound,
    run: permissionCheck(listing, true)
  },
  {
    id: 'single-check',
    label: 'permission gate, one feature view, 5 permissions (one check)',
    perRound: repeatPerRound,
    run: permissionCheck(singleCheckFixture(), false)
  }
]

const nanos = new Map<string, number[]>(variants.map((variant) => [variant.id, []]))
for (let round = 0; round < rounds; round++) {
  const spent = new Map<string, number>(variants.map((variant) => [variant.id, 0]))
  const done = new Map<string, number>(variants.map((variant) => [variant.id, 0]))
  for (let slice = 0; slice < slices; slice++) {
    // Alternate the order, so that no variant always runs first (or right after the slow one).
    for (const variant of slice % 2 === 0 ? variants : [...variants].reverse()) {
      const count = Math.max(1, Math.round(variant.perRound / slices))
      const started = process.hrtime.bigint()
      variant.run(count)
      spent.set(variant.id, spent.get(variant.id)! + Number(process.hrtime.bigint() - started))
      done.set(variant.id, done.get(variant.id)! + count)
    }
  }
  for (const variant of variants) nanos.get(variant.id)!.push(spent.get(variant.id)! / done.get(variant.id)!)
}
await app.close()
await idp.close()

// The first round warms the JIT and is left out.
const of = (id: string): number => median(nanos.get(id)!.slice(1))
// A ratio is the median of its rounds' ratios: both sides of each ran in the same slices.
const ratio = (id: string, base: string): number => median(nanos.get(id)!.slice(1).map((n, i) => n / nanos.get(base)!.slice(1)[i]!))
const lines = [
  `In process, ${rounds - 1} rounds of ${slices} slices after one warm-up round (median ns per request; ${accepted.toLocaleString('en-US')} accepted):`, '',
  '| variant | ns/request | rounds |', '|---|---:|---|',
  ...variants.map((variant) => `| ${variant.label} | ${Math.round(of(variant.id)).toLocaleString('en-US')} | ${nanos.get(variant.id)!.slice(1).map((n) => Math.round(n)).join(', ')} |`),
  '',
  `Distinct tokens: ${ratio('distinct', 'floor').toFixed(2)}× verify-floor, ${ratio('distinct', 'claims-floor').toFixed(2)}× verify-claims-floor ` +
    `(${Math.round(of('distinct') - of('claims-floor')).toLocaleString('en-US')} ns above it); verify-claims-floor ${ratio('claims-floor', 'floor').toFixed(2)}× verify-floor ` +
    '(medians of the rounds\' ratios).',
  `Permissions: ${(of('listing') / 1e6).toFixed(2)} ms per filtered listing (${Math.round(of('listing') / listing.resources.length).toLocaleString('en-US')} ns per view), ` +
    `${Math.round(of('single-check')).toLocaleString('en-US')} ns per single-resource check.`
]
process.stdout.write(`${lines.join('\n')}\n`)
