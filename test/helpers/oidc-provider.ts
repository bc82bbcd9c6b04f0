/**
 * A real OpenID provider (the `oidc-provider` package) on 127.0.0.1 for integration tests.
 *
 * Tokens come from its token endpoint (client-credentials or password grant, JWT access-token
 * format). Per-token claims travel through a resource indicator: `issue()` registers the wanted
 * claims under a fresh id and asks for `resource=urn:feast:test:<id>`; the provider's resource
 * server lookup and JWT customizer read them back from that identifier.
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWK } from 'jose'

export type ProviderAlg = 'RS256' | 'ES256' | 'PS256' | 'EdDSA'
export type ProviderEndpoint = 'discovery' | 'jwks' | 'token'
/**
 * A fault injected in front of an endpoint: an HTTP 500, an HTML page with status 200,
 * a response that never comes, a connection reset, a delay before the real answer, or the
 * real answer's JSON rewritten (e.g. a discovery document naming other URLs).
 */
export type ProviderFault = 'status500' | 'html' | 'hang' | 'reset' | { readonly delayMs: number } | { readonly rewrite: (json: Record<string, unknown>) => Record<string, unknown> }

export interface TestUser { password: string, claims: Record<string, unknown> }

export interface TestProvider {
  /** The issuer identifier (`iss` of issued tokens). Equals `baseUrl` unless `issuer` was given. */
  readonly issuer: string
  /** Where the provider listens, e.g. `http://127.0.0.1:41234`. */
  readonly baseUrl: string
  /** `baseUrl + '/.well-known/openid-configuration'` (= issuer + that path when no custom issuer). */
  readonly discoveryUrl: string
  readonly jwksUri: string
  readonly tokenEndpoint: string
  /** An OAuth client allowed client_credentials and password grants; authenticates with client_secret_post only. */
  readonly clientId: string
  readonly clientSecret: string
  /** Users of the password grant. */
  readonly users: Record<string, TestUser>
  /** HTTPS mode only: the self-signed certificate (PEM file), usable as `ca_cert_path`. */
  readonly caCertPath: string | undefined
  /** The signing algorithm of the provider's keys. */
  readonly alg: ProviderAlg
  /** `kid` of the current signing key. */
  readonly kid: string
  /** SPKI PEM of the current signing key (e.g. for the "HS256 keyed with the public key" attack). */
  publicKeyPem (): Promise<string>
  /** Public JWK of the current signing key. */
  readonly publicJwk: JWK
  /** A real access token via client_credentials; `claims` are added to (and may override) the token payload. */
  issue (claims: Record<string, unknown>, options?: IssueOptions): Promise<string>
  /** A real access token via the password grant for one of `users`. */
  issueForUser (username: string, password?: string, options?: IssueOptions): Promise<string>
  /** A crafted token signed with the provider's current private key (jose SignJWT), for bad-input tests. */
  sign (claims: Record<string, unknown>, options?: SignOptions): Promise<string>
  /**
   * A compact JWS with any header and payload (objects are JSON-encoded, strings used as they are:
   * non-JSON, unknown `crit`, ...), correctly signed with the current key by WebCrypto directly,
   * so no library check stands between the test and the verifier. The header defaults to `{ alg, kid }`.
   */
  signRaw (payload: string | Record<string, unknown> | unknown[], header?: string | Record<string, unknown>): Promise<string>
  /** New signing key with a new kid. `keepOld` keeps the previous public keys in the JWKS. */
  rotateKeys (options?: { keepOld?: boolean }): Promise<void>
  /** Requests served per endpoint (faulted requests included), for fetch-count assertions. */
  readonly stats: { discovery: number, jwks: number, token: number }
  resetStats (): void
  /** Injects (or with `null` removes) a fault in front of an endpoint. */
  fault (endpoint: ProviderEndpoint, fault: ProviderFault | null): void
  addUser (username: string, password: string, claims: Record<string, unknown>): void
  close (): Promise<void>
}

export interface IssueOptions {
  /** `aud` of the token. Default {@link DEFAULT_AUDIENCE}. */
  readonly audience?: string
  /** Lifetime in seconds. Default 300. */
  readonly ttlSeconds?: number
}

export interface SignOptions {
  readonly kid?: string
  readonly alg?: string
  /** Extra protected-header fields (override kid/alg/typ). */
  readonly header?: Record<string, unknown>
  /** Leave `exp` out of the payload. */
  readonly noExp?: boolean
}

export interface StartOidcProviderOptions {
  readonly https?: boolean
  readonly alg?: ProviderAlg
  readonly users?: Record<string, TestUser>
  /** Issuer identifier different from the listening URL (e.g. `https://sts.windows.net/<tenant>/`). */
  readonly issuer?: string
  /** Port to listen on (default: any free one); `npm start` pins it with DEMO_PROVIDER_PORT. */
  readonly port?: number
}

/** `aud` of tokens issued without an explicit audience. */
export const DEFAULT_AUDIENCE = 'feast-api'
const DEFAULT_RESOURCE = 'urn:feast:api'
// JWS signature parameters per algorithm (ECDSA's WebCrypto output is already JWS's r||s).
const WEBCRYPTO_SIGN: Record<ProviderAlg, Parameters<typeof crypto.subtle.sign>[0]> = {
  RS256: { name: 'RSASSA-PKCS1-v1_5' },
  PS256: { name: 'RSA-PSS', saltLength: 32 },
  ES256: { name: 'ECDSA', hash: 'SHA-256' },
  EdDSA: { name: 'Ed25519' }
}
const TEST_RESOURCE_PREFIX = 'urn:feast:test:'
const PATHS: Record<string, ProviderEndpoint> = {
  '/.well-known/openid-configuration': 'discovery',
  '/jwks': 'jwks',
  '/token': 'token'
}

// oidc-provider prints "Unsupported runtime" on Node 20 at import and notices at construction: harmless here.
const Provider = await quietly(async () => (await import('oidc-provider')).default)
const { errors: providerErrors } = await import('oidc-provider')

interface SigningKey { kid: string, privateJwk: JWK, publicJwk: JWK, privateKey: CryptoKey, publicKey: CryptoKey }
interface TokenRequest { claims: Record<string, unknown>, audience: string, ttlSeconds: number }

export async function startOidcProvider (options: StartOidcProviderOptions = {}): Promise<TestProvider> {
  const alg = options.alg ?? 'RS256'
  const secure = options.https === true
  const clientId = 'feast-test-client'
  const clientSecret = `secret-${randomUUID()}`
  const users: Record<string, TestUser> = { ...options.users }
  const requests = new Map<string, TokenRequest>()
  const stats = { discovery: 0, jwks: 0, token: 0 }
  const faults = new Map<ProviderEndpoint, ProviderFault>()
  let keys: SigningKey[] = [await newKey(alg)]
  // The next rotation's key is generated ahead, off the event loop: RSA key generation on a
  // loaded machine can take long enough to outlast a short JWKS cache lifespan in a test.
  let spareKey = spare(alg)
  let handler: http.RequestListener = (_req, res) => { res.statusCode = 503; res.end() }

  const tls = secure ? await selfSignedCertificate() : undefined
  const listener: http.RequestListener = (req, res) => {
    const endpoint = PATHS[new URL(req.url ?? '/', 'http://x').pathname]
    if (endpoint === undefined) { handler(req, res); return }
    stats[endpoint]++
    const fault = faults.get(endpoint)
    if (fault === undefined) {
      handler(req, res)
    } else if (fault === 'status500') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error')
    } else if (fault === 'html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in</body></html>')
    } else if (fault === 'reset') {
      req.socket.destroy()
    } else if (fault === 'hang') {
      // never answers; closeAllConnections() ends it
    } else if ('rewrite' in fault) {
      rewriteAnswer(res, fault.rewrite)
      handler(req, res)
    } else {
      setTimeout(() => { handler(req, res) }, fault.delayMs)
    }
  }
  const server = tls === undefined ? http.createServer(listener) : https.createServer({ key: tls.key, cert: tls.cert }, listener)
  await new Promise<void>((resolve, reject) => {
    // A pinned port may be taken: the error is the caller's to report, not a listen that never ends.
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => { server.off('error', reject); resolve() })
  })
  const { port } = server.address() as AddressInfo
  const baseUrl = `${secure ? 'https' : 'http'}://127.0.0.1:${port}`
  const issuer = options.issuer ?? baseUrl

  const resourceInfo = (resource: string): TokenRequest => {
    const found = resource.startsWith(TEST_RESOURCE_PREFIX) ? requests.get(resource.slice(TEST_RESOURCE_PREFIX.length)) : undefined
    return found ?? { claims: {}, audience: DEFAULT_AUDIENCE, ttlSeconds: 300 }
  }

  const build = (): void => {
    const current = keys[0] as SigningKey
    const provider = quietlySync(() => new Provider(issuer, {
      clients: [{
        client_id: clientId,
        client_secret: clientSecret,
        grant_types: ['client_credentials', 'password'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_post'
      }],
      jwks: { keys: keys.map((key) => key.privateJwk) },
      clientDefaults: { id_token_signed_response_alg: alg },
      ttl: {
        AccessToken: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? 300,
        ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? 300
      },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => DEFAULT_RESOURCE,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => {
            const info = resourceInfo(resource)
            return { scope: 'api', audience: info.audience, accessTokenFormat: 'jwt', accessTokenTTL: info.ttlSeconds, jwt: { sign: { alg, kid: current.kid } } }
          }
        }
      },
      formats: {
        customizers: {
          // Unlike extraTokenClaims, the customizer may also override sub/iss/iat/...
          jwt: (
            _ctx: unknown,
            token: { resourceServer?: { identifier: () => string }, gty?: string, accountId?: string },
            jwt: { payload: Record<string, unknown> }
          ) => {
            const user = token.gty === 'password' && token.accountId !== undefined ? users[token.accountId] : undefined
            const resource = token.resourceServer?.identifier() ?? DEFAULT_RESOURCE
            Object.assign(jwt.payload, user?.claims, resourceInfo(resource).claims)
            for (const [claim, value] of Object.entries(jwt.payload)) if (value === undefined) Reflect.deleteProperty(jwt.payload, claim)
          }
        }
      }
    }))
    provider.registerGrantType('password', async (ctx: any) => {
      const { username, password, resource } = ctx.oidc.params as Record<string, string | undefined>
      const user = username !== undefined && Object.hasOwn(users, username) ? users[username] : undefined
      if (user === undefined || password === undefined || user.password !== password) throw new providerErrors.InvalidGrant!('invalid username or password')
      const identifier = resource ?? DEFAULT_RESOURCE
      const info = resourceInfo(identifier)
      const token = new provider.AccessToken({
        client: ctx.oidc.client,
        accountId: username,
        gty: 'password',
        scope: 'api',
        resourceServer: new provider.ResourceServer(identifier, { scope: 'api', audience: info.audience, accessTokenFormat: 'jwt', accessTokenTTL: info.ttlSeconds, jwt: { sign: { alg, kid: current.kid } } })
      })
      ctx.oidc.entity('AccessToken', token)
      const value: string = await token.save()
      ctx.body = { access_token: value, token_type: 'Bearer', expires_in: token.expiration, scope: 'api' }
    }, ['username', 'password', 'resource', 'scope'])
    handler = provider.callback()
  }
  build()

  const tokenRequest = async (form: Record<string, string>): Promise<string> => {
    const body = new URLSearchParams({ ...form, client_id: clientId, client_secret: clientSecret }).toString()
    const response = await request(`${baseUrl}/token`, { method: 'POST', body, ca: tls?.cert, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    // The per-token entry has served its purpose once the token is minted.
    if (form.resource?.startsWith(TEST_RESOURCE_PREFIX) === true) requests.delete(form.resource.slice(TEST_RESOURCE_PREFIX.length))
    let parsed: { access_token?: unknown } = {}
    try { parsed = JSON.parse(response.body) as { access_token?: unknown } } catch { /* reported below */ }
    if (response.status !== 200 || typeof parsed.access_token !== 'string') throw new Error(`token endpoint answered ${response.status}: ${response.body}`)
    return parsed.access_token
  }

  const register = (claims: Record<string, unknown>, options: IssueOptions): string => {
    const id = randomUUID()
    requests.set(id, { claims, audience: options.audience ?? DEFAULT_AUDIENCE, ttlSeconds: options.ttlSeconds ?? 300 })
    return `${TEST_RESOURCE_PREFIX}${id}`
  }

  return {
    issuer,
    baseUrl,
    discoveryUrl: `${baseUrl}/.well-known/openid-configuration`,
    jwksUri: `${baseUrl}/jwks`,
    tokenEndpoint: `${baseUrl}/token`,
    clientId,
    clientSecret,
    users,
    caCertPath: tls?.path,
    alg,
    get kid () { return (keys[0] as SigningKey).kid },
    get publicJwk () { return (keys[0] as SigningKey).publicJwk },
    publicKeyPem: async () => await exportSPKI((keys[0] as SigningKey).publicKey),
    stats,
    resetStats () { stats.discovery = 0; stats.jwks = 0; stats.token = 0 },
    fault (endpoint, fault) { if (fault === null) faults.delete(endpoint); else faults.set(endpoint, fault) },
    addUser (username, password, claims) { users[username] = { password, claims } },
    issue: async (claims, options = {}) => await tokenRequest({ grant_type: 'client_credentials', resource: register(claims, options) }),
    issueForUser: async (username, password, options = {}) => await tokenRequest({
      grant_type: 'password',
      username,
      password: password ?? (Object.hasOwn(users, username) ? users[username]?.password : undefined) ?? '',
      resource: register({}, options)
    }),
    sign: async (claims, options = {}) => {
      const key = keys[0] as SigningKey
      const now = Math.floor(Date.now() / 1000)
      const payload: Record<string, unknown> = { iss: issuer, sub: 'crafted-subject', aud: DEFAULT_AUDIENCE, iat: now, exp: now + 300, ...claims }
      if (options.noExp === true) delete payload.exp
      return await new SignJWT(payload)
        .setProtectedHeader({ alg: options.alg ?? alg, kid: options.kid ?? key.kid, typ: 'at+jwt', ...options.header })
        .sign(key.privateKey)
    },
    signRaw: async (payload, header) => {
      const key = keys[0] as SigningKey
      const encode = (part: unknown): string => Buffer.from(typeof part === 'string' ? part : JSON.stringify(part)).toString('base64url')
      const input = `${encode(header ?? { alg, kid: key.kid })}.${encode(payload)}`
      const signature = await crypto.subtle.sign(WEBCRYPTO_SIGN[alg], key.privateKey, new TextEncoder().encode(input))
      return `${input}.${Buffer.from(signature).toString('base64url')}`
    },
    rotateKeys: async (rotation = {}) => {
      const next = await spareKey
      spareKey = spare(alg)
      keys = rotation.keepOld === true ? [next, ...keys] : [next]
      build()
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
      if (tls !== undefined) await rm(tls.dir, { recursive: true, force: true })
    }
  }
}

// The provider answers JSON with one `res.end(body)`; headers are not sent before it.
function rewriteAnswer (res: http.ServerResponse, rewrite: (json: Record<string, unknown>) => Record<string, unknown>): void {
  const end = res.end.bind(res) as (chunk?: unknown) => http.ServerResponse
  res.end = ((chunk?: unknown) => {
    const text = JSON.stringify(rewrite(JSON.parse(Buffer.from(chunk as string | Buffer).toString('utf8')) as Record<string, unknown>))
    res.setHeader('content-length', Buffer.byteLength(text))
    return end(text)
  }) as typeof res.end
}

/** Joins base64url-encoded JSON (or raw string) segments into a compact token, for malformed-token tests. */
export function rawToken (...segments: ReadonlyArray<string | Record<string, unknown>>): string {
  return segments.map((segment) => Buffer.from(typeof segment === 'string' ? segment : JSON.stringify(segment)).toString('base64url')).join('.')
}

/** A key generated in the background; a failure surfaces only if the key is used. */
function spare (alg: ProviderAlg): Promise<SigningKey> {
  const key = newKey(alg)
  key.catch(() => {})
  return key
}

async function newKey (alg: ProviderAlg): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) })
  const kid = `key-${randomUUID().slice(0, 8)}`
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' }
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' }
  return { kid, privateJwk, publicJwk, privateKey, publicKey }
}

async function selfSignedCertificate (): Promise<{ dir: string, path: string, key: string, cert: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'feast-authz-oidc-tls-'))
  const keyPath = join(dir, 'key.pem')
  const path = join(dir, 'cert.pem')
  await promisify(execFile)('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyPath, '-out', path
  ])
  return { dir, path, key: await readFile(keyPath, 'utf8'), cert: await readFile(path, 'utf8') }
}

function request (
  url: string,
  options: { method: string, body: string, ca: string | undefined, headers: Record<string, string> }
): Promise<{ status: number, body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const client = target.protocol === 'https:' ? https : http
    const req = client.request(target, { method: options.method, headers: options.headers, ...(options.ca === undefined ? {} : { ca: options.ca }) }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }) })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

function isProviderNoise (args: unknown[]): boolean {
  return typeof args[0] === 'string' && args[0].startsWith('oidc-provider ')
}

async function quietly<T> (action: () => Promise<T>): Promise<T> {
  const { warn, info } = console
  console.warn = (...args: unknown[]) => { if (!isProviderNoise(args)) warn(...args) }
  console.info = (...args: unknown[]) => { if (!isProviderNoise(args)) info(...args) }
  try { return await action() } finally { console.warn = warn; console.info = info }
}

function quietlySync<T> (action: () => T): T {
  const { warn, info } = console
  console.warn = (...args: unknown[]) => { if (!isProviderNoise(args)) warn(...args) }
  console.info = (...args: unknown[]) => { if (!isProviderNoise(args)) info(...args) }
  try { return action() } finally { console.warn = warn; console.info = info }
}
