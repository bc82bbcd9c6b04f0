import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Fastify from 'fastify'
import { parse } from 'yaml'
import { feastAuthz } from '../../../src/adapters/fastify.ts'
import { loadAuthConfig } from '../../../src/config/auth-config.ts'
import { principalToJSON } from '../../../src/base/principal.ts'
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.ts'
import { DOCS, markedBlocks, ownedDocs, relativeToRepo, type MarkedBlock } from '../../helpers/markdown.ts'

// Every `feature_store.yaml` a guide documents is loaded as written, pointed at a real OpenID
// provider whose issuer identifier is the documented token's `iss`; that provider issues a real
// token with the documented claims, a real Fastify server with the plugin authenticates it, and
// the principal (or the rejection) must be exactly the one the guide shows. The docs cannot
// drift from the code.

const blocks = ownedDocs().flatMap(markedBlocks)
const named = (kind: MarkedBlock['kind']): Map<string, MarkedBlock> => {
  const map = new Map<string, MarkedBlock>()
  for (const block of blocks.filter((candidate) => candidate.kind === kind)) {
    const previous = map.get(block.name)
    if (previous !== undefined) throw new Error(`${block.where}: ${kind} "${block.name}" is already defined at ${previous.where}`)
    map.set(block.name, block)
  }
  return map
}
const configs = named('guide-config')
const tokens = named('guide-token')
const principals = named('guide-principal')
const rejections = named('guide-rejection')

/** Claims the provider sets itself (a documented `exp` would be in the past). */
const PROVIDER_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti'])

const providers = new Map<string, Promise<TestProvider>>()
/** One provider per issuer identifier, started on first use. */
const providerFor = async (issuer: string): Promise<TestProvider> => {
  let provider = providers.get(issuer)
  if (provider === undefined) {
    // The provider is started here, not by the OIDC-app fixture: the guides' programs run as written, one provider per issuer.
    provider = startOidcProvider({ issuer })
    providers.set(issuer, provider)
  }
  return await provider
}

after(async () => {
  await Promise.all([...providers.values()].map(async (provider) => { await (await provider).close() }))
})

function configFor (token: MarkedBlock): MarkedBlock {
  const name = token.options.config ?? token.name
  const config = configs.get(name)
  assert.ok(config !== undefined, `${token.where}: token "${token.name}" names config "${name}", which no <!-- guide-config --> defines`)
  return config
}

function parseJson (block: MarkedBlock): Record<string, unknown> {
  assert.equal(block.language, 'json', `${block.where}: expected a json block`)
  try {
    return JSON.parse(block.text) as Record<string, unknown>
  } catch (error) {
    throw new Error(`${block.where}: not valid JSON: ${(error as Error).message}`)
  }
}

/** Authenticates the documented token through a real server; returns status and body. */
async function present (config: MarkedBlock, token: MarkedBlock): Promise<{ status: number, body: Record<string, unknown> }> {
  const payload = parseJson(token)
  const { iss, aud } = payload
  assert.equal(typeof iss, 'string', `${token.where}: a guide token shows its "iss"`)
  assert.equal(typeof payload.sub, 'string', `${token.where}: a guide token shows its "sub"`)
  const provider = await providerFor(iss as string)

  const claims = Object.fromEntries(Object.entries(payload).filter(([claim]) => !PROVIDER_CLAIMS.has(claim)))
  // A list-valued aud (Auth0) overrides the provider's; a string one is the issued audience.
  if (Array.isArray(aud)) claims.aud = aud
  const jwt = await provider.issue(claims, typeof aud === 'string' ? { audience: aud } : {})

  const documentedUrl = (parse(config.text) as { auth: { auth_discovery_url: string } }).auth.auth_discovery_url
  const yaml = config.text.split(documentedUrl).join(provider.discoveryUrl)
  const app = Fastify({ logger: { level: 'error' } })
  try {
    await app.register(feastAuthz, { config: { yaml, source: config.where }, oidc: { failureBackoffSeconds: 0.05 } })
    app.get('/whoami', async (request) => request.principal === null ? null : principalToJSON(request.principal))
    const response = await app.inject({ method: 'GET', url: '/whoami', headers: { authorization: `Bearer ${jwt}` } })
    return { status: response.statusCode, body: response.json<Record<string, unknown>>() }
  } finally {
    await app.close()
  }
}

describe('identity-provider guides', () => {
  const guideFiles = readdirSync(join(DOCS, 'guides')).filter((name) => name.endsWith('.md')).sort()

  test('there is a guide for each identity provider users run', () => {
    assert.deepEqual(guideFiles, ['auth0.md', 'dex.md', 'entra-id.md', 'google.md', 'keycloak.md', 'okta.md'])
  })

  for (const file of guideFiles) {
    test(`${file} documents a configuration and a token with the principal it yields`, () => {
      const own = blocks.filter((block) => block.where.startsWith(relativeToRepo(join(DOCS, 'guides', file))))
      assert.ok(own.some((block) => block.kind === 'guide-config'), 'no <!-- guide-config --> block')
      assert.ok(own.some((block) => block.kind === 'guide-token' && principals.has(block.name)), 'no <!-- guide-token --> with a <!-- guide-principal -->')
    })
  }

  test('every documented configuration is exercised by a documented token or command output', () => {
    const outputs = blocks.filter((block) => block.kind === 'guide-output')
    const used = new Set([...tokens.values(), ...outputs].map((block) => block.options.config ?? block.name))
    assert.deepEqual([...configs.keys()].filter((name) => !used.has(name)), [])
  })

  test('every documented principal or rejection belongs to a documented token, and every token has exactly one', () => {
    for (const name of [...principals.keys(), ...rejections.keys()]) assert.ok(tokens.has(name), `"${name}" has no <!-- guide-token -->`)
    for (const [name, token] of tokens) {
      assert.equal(Number(principals.has(name)) + Number(rejections.has(name)), 1, `${token.where}: token "${name}" needs one <!-- guide-principal --> or <!-- guide-rejection -->`)
    }
  })

  for (const config of configs.values()) {
    test(`${config.where} (${config.name}) is a valid server configuration as written`, () => {
      assert.equal(config.language, 'yaml', 'expected a yaml block')
      const { auth } = loadAuthConfig({ yaml: config.text, source: config.where })
      // Kubernetes configurations are documented with the output of a cluster that cannot be reached.
      assert.ok(auth.type === 'oidc' || auth.type === 'kubernetes', `auth.type ${auth.type}`)
    })
  }

  for (const token of tokens.values()) {
    const principal = principals.get(token.name)
    const rejection = rejections.get(token.name)
    if (principal !== undefined) {
      test(`${token.where} (${token.name}) authenticates as the principal the guide shows`, async () => {
        const { status, body } = await present(configFor(token), token)
        assert.equal(status, 200, JSON.stringify(body))
        assert.deepEqual(body, parseJson(principal), `${principal.where}: the documented principal differs from the real one`)
      })
    }
    if (rejection !== undefined) {
      test(`${token.where} (${token.name}) is rejected with the status and code the guide shows`, async () => {
        const { status, body } = await present(configFor(token), token)
        const expected = parseJson(rejection)
        assert.deepEqual({ status, code: body.code }, expected, `${rejection.where}: the documented rejection differs from the real one`)
      })
    }
  }
})
