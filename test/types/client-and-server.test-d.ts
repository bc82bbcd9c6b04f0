/**
 * Type tests of `feast-authz/client` (token provider and authenticated fetch) and
 * `feast-authz/server` (the reference server). Checked by `npm run typecheck`.
 */
import type { FastifyInstance } from 'fastify'
import {
  createAuthFetch, createTokenProvider, loadClientAuthConfig, mintIntraToken, TokenSourceError,
  type AuthFetch, type ResolvedToken, type TokenProvider, type TokenSource, type TokenSourceErrorCode
} from '../../src/client/index.ts'
import {
  buildReferenceServer, createOnlineStore, emptyCatalog, readFeatures, readTarget,
  type FeatureCatalog, type OnlineFeaturesResponse, type ReadTarget, type ReferenceServerOptions
} from '../../src/server/index.ts'
import type { Resource } from '../../src/index.ts'
import { renderFeatureStore, type RenderedFeatureStore } from '../../src/operator/index.ts'
import { openFeastRegistry } from '../../src/registry/index.ts'
import { expectTrue, type Equal } from './assert-type.ts'

// --- createTokenProvider ------------------------------------------------------------------------

const config = loadClientAuthConfig('./feature_store.yaml')
const provider: TokenProvider = createTokenProvider(config)
createTokenProvider(config, { env: process.env, serviceAccountTokenPath: '/var/run/token', timeoutMs: 5000, logger: console })
createTokenProvider({ type: 'no_auth' })
// @ts-expect-error unknown option (the bound is `timeoutMs`)
createTokenProvider(config, { timeout: 5000 })
// @ts-expect-error the provider takes a validated `auth` section, not a file path
createTokenProvider('./feature_store.yaml')
// @ts-expect-error an auth section has a known `type`
createTokenProvider({ type: 'basic' })

expectTrue<Equal<ReturnType<typeof provider.resolve>, Promise<ResolvedToken | undefined>>>()
expectTrue<Equal<ReturnType<typeof provider.getToken>, Promise<string | undefined>>>()
const resolved = await provider.resolve()
if (resolved !== undefined) {
  const source: TokenSource = resolved.source
  void source
  // @ts-expect-error a resolved token is read-only
  resolved.token = 'other'
}

// --- createAuthFetch ----------------------------------------------------------------------------

const authFetch: AuthFetch = createAuthFetch(config, { allowedOrigins: ['https://feast.example.com'], fetch: globalThis.fetch })
createAuthFetch(provider)
const response: Response = await authFetch('https://feast.example.com/get-online-features', { method: 'POST', body: '{}' })
void response
authFetch.provider.close()
// @ts-expect-error `allowedOrigins` is a list of origins
createAuthFetch(config, { allowedOrigins: 'https://feast.example.com' })
// @ts-expect-error unknown option
createAuthFetch(config, { headers: { 'x-team': 'ml' } })
// @ts-expect-error the wrapped fetch takes a URL or a Request
void authFetch(42)

// --- Client errors and the intra token ------------------------------------------------------------

declare const error: unknown
if (error instanceof TokenSourceError) {
  expectTrue<Equal<typeof error.code, TokenSourceErrorCode>>()
}
expectTrue<Equal<ReturnType<typeof mintIntraToken>, Promise<string>>>()
// @ts-expect-error the intra secret is the decoded bytes, not the base64 text
void mintIntraToken('c2VjcmV0')

// --- feast-authz/server ---------------------------------------------------------------------------

const registry: FeatureCatalog = emptyCatalog('demo')
const server: FastifyInstance = await buildReferenceServer({ config: './feature_store.yaml', registry, bodyLimit: 1024 * 1024 })
await buildReferenceServer()
const serverOptions = { config: './feature_store.yaml', permissions: './permissions.yaml' } satisfies ReferenceServerOptions
void server, serverOptions
// @ts-expect-error `bodyLimit` is a number of bytes
void buildReferenceServer({ bodyLimit: '1mb' })
void buildReferenceServer({ onlineStoreMaxBytes: 256 * 1024 * 1024, maxAnsweredValues: 10_000 })
// @ts-expect-error `onlineStoreMaxBytes` is a number of bytes
void buildReferenceServer({ onlineStoreMaxBytes: '256mb' })
// @ts-expect-error unknown option
void buildReferenceServer({ port: 6566 })

// The get-online-features steps for another framework: any parsed body in, resources to check, then the read.
const target: ReadTarget = readTarget(registry, JSON.parse('{}') as unknown)
expectTrue<Equal<typeof target.resources, readonly Resource[]>>()
const answer: OnlineFeaturesResponse = readFeatures(target, createOnlineStore(registry))
void answer
// @ts-expect-error the read needs the target of step 1, not the raw body
readFeatures({ features: ['v:f'] }, createOnlineStore(registry))
// The read's one option, a bound in values.
void readFeatures(target, createOnlineStore(registry), { maxAnsweredValues: 1000 })
// @ts-expect-error maxAnsweredValues is a number
void readFeatures(target, createOnlineStore(registry), { maxAnsweredValues: '1000' })
// The store's one option, a bound in bytes.
void createOnlineStore(registry, { maxBytes: 1024 * 1024 })
// @ts-expect-error maxBytes is a number
void createOnlineStore(registry, { maxBytes: '1mb' })

// --- Registry and operator helpers of the main entry point -----------------------------------------

const feastRegistry = openFeastRegistry({ path: './registry.db', project: 'demo', pollIntervalMs: 0 })
void buildReferenceServer({ registry: feastRegistry })
feastRegistry.close()
// @ts-expect-error the server's project is required
openFeastRegistry({ path: './registry.db' })
const rendered: RenderedFeatureStore = renderFeatureStore({ apiVersion: 'feast.dev/v1', kind: 'FeatureStore', metadata: { name: 'demo' }, spec: { feastProject: 'demo' } })
const base64: string = rendered.feature_store_yaml_base64
void base64
