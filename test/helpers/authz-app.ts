/**
 * A real Fastify server with the feast-authz plugin, listening on 127.0.0.1:0, for
 * integration tests. Every log line (Fastify's and the plugin's) is captured.
 */
import assert from 'node:assert/strict'
import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify'
import type { Server } from 'node:http'
import feastAuthz, { type FeastAuthzOptions } from '../../src/adapters/fastify.ts'
import { principalToJSON } from '../../src/base/principal.ts'
import { captureLogs, type CapturedLogs } from './logs.ts'
import type { TestProvider } from './oidc-provider.ts'

export interface TestApp {
  readonly app: FastifyInstance
  readonly url: string
  /** Every log line written so far (Fastify's and the plugin's). */
  readonly logs: CapturedLogs
  /** GET (or `init.method`) `path` with the given Authorization header (none when undefined). */
  call (path: string, authorization?: string, init?: RequestInit): Promise<TestResponse>
  close (): Promise<void>
}

export interface TestResponse {
  readonly status: number
  readonly headers: Headers
  readonly body: Record<string, unknown>
}

export interface StartAppOptions {
  /** The `auth` section of feature_store.yaml. */
  readonly auth: Record<string, unknown>
  readonly plugin?: Omit<FeastAuthzOptions, 'config'>
  readonly fastify?: FastifyHttpOptions<Server>
  /** Extra routes, added after the plugin and before listening. */
  readonly routes?: (app: FastifyInstance) => void
}

/** The `auth` section for a server validating tokens of `provider`. */
export function oidcAuth (provider: TestProvider, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'oidc', auth_discovery_url: provider.discoveryUrl, client_id: provider.clientId, ...extra }
}

/**
 * Routes: `GET /whoami` (authenticated; answers the principal), `POST /echo`
 * (authenticated; answers the body), `GET /health` (public).
 */
export async function startApp (options: StartAppOptions): Promise<TestApp> {
  const logs = captureLogs()
  const app = Fastify({ logger: { level: 'debug', stream: logs.stream }, ...options.fastify })
  await app.register(feastAuthz, { config: { project: 'test', auth: options.auth }, oidc: { unknownKidCooldownSeconds: 0.05, failureBackoffSeconds: 0.05 }, ...options.plugin })
  app.get('/whoami', async (request) => ({ principal: request.principal === null ? null : principalToJSON(request.principal) }))
  app.post('/echo', async (request) => ({ body: request.body }))
  app.get('/health', { config: { feastAuthz: { public: true } } }, async (request) => ({ ok: true, principal: request.principal }))
  options.routes?.(app)
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  return {
    app,
    url,
    logs,
    call: async (path, authorization, init = {}) => {
      const headers = new Headers(init.headers)
      if (authorization !== undefined) headers.set('authorization', authorization)
      const response = await fetch(`${url}${path}`, { ...init, headers })
      const text = await response.text()
      return { status: response.status, headers: response.headers, body: text === '' ? {} : JSON.parse(text) as Record<string, unknown> }
    },
    close: async () => { await app.close() }
  }
}

/**
 * Asserts the answer to a token the server could not judge because the identity source failed:
 * 503 with `code` (the provider's by default, or the cluster's), a Retry-After in whole seconds
 * and no challenge (fail closed, never 401).
 */
export function assertUnavailable (response: TestResponse, code: 'provider_unavailable' | 'cluster_unavailable' = 'provider_unavailable'): void {
  assert.equal(response.status, 503, `expected 503, got ${response.status} ${JSON.stringify(response.body)}`)
  assert.equal(response.body.code, code)
  assert.match(response.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
  assert.equal(response.headers.get('www-authenticate'), null)
}
