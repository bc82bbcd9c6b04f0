/**
 * The keys and the RS256 pool, kept in bench/results/ (git-ignored) between runs: RSA signing
 * runs at a few thousand tokens per second, so a fresh 20,000-token pool costs 5–20 s that a
 * quick run while optimising should not pay each time. Tokens live 24 h; the cache is rebuilt
 * when fewer than 2 h remain, when the pool is too small, or when the file is unreadable.
 * These are throw-away benchmark keys, not secrets of anything.
 */
import { createPrivateKey } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { AUDIENCE, createSigner, generateBenchKeys, publicParts, RS256_KID, type BenchKeys } from './tokens.ts'

/** Fixed, so that cached tokens stay valid whatever port the key-set server gets. */
export const ISSUER = 'https://idp.bench.invalid/realms/feast'
const LIFETIME_SECONDS = 24 * 3600
const MIN_REMAINING_SECONDS = 2 * 3600
const VERSION = 1

interface CacheFile {
  version: number
  audience: string
  issuer: string
  exp: number
  rsaPrivatePem: string
  ecPrivatePem: string
  pool: string[]
  repeatToken: string
}

export interface TokenFixture {
  readonly keys: BenchKeys
  readonly pool: readonly string[]
  readonly repeatToken: string
  /** Where the fixture came from, for the log. */
  readonly origin: string
}

export function loadOrCreateTokens (file: string, poolSize: number): TokenFixture {
  const cached = readCache(file)
  const now = Math.floor(Date.now() / 1000)
  if (cached !== undefined && cached.version === VERSION && cached.issuer === ISSUER && cached.audience === AUDIENCE &&
      cached.exp - now > MIN_REMAINING_SECONDS && cached.pool.length >= poolSize) {
    const keys = publicParts(createPrivateKey(cached.rsaPrivatePem), createPrivateKey(cached.ecPrivatePem))
    return { keys, pool: cached.pool.slice(0, poolSize), repeatToken: cached.repeatToken, origin: `reused ${file}` }
  }
  const started = performance.now()
  const keys = generateBenchKeys()
  const signer = createSigner({ alg: 'RS256', key: keys.rsaPrivate, kid: RS256_KID, issuer: ISSUER, lifetimeSeconds: LIFETIME_SECONDS })
  const pool = Array.from({ length: poolSize }, (_, i) => signer.token(i))
  const repeatToken = signer.token(10_000_000)
  const content: CacheFile = {
    version: VERSION,
    audience: AUDIENCE,
    issuer: ISSUER,
    exp: now + LIFETIME_SECONDS,
    rsaPrivatePem: keys.rsaPrivate.export({ format: 'pem', type: 'pkcs8' }).toString(),
    ecPrivatePem: keys.ecPrivate.export({ format: 'pem', type: 'pkcs8' }).toString(),
    pool,
    repeatToken
  }
  writeFileSync(file, JSON.stringify(content))
  return { keys, pool, repeatToken, origin: `signed ${poolSize.toLocaleString('en-US')} RS256 tokens in ${((performance.now() - started) / 1000).toFixed(1)} s (cached in ${file})` }
}

function readCache (file: string): CacheFile | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as CacheFile
  } catch {
    return undefined
  }
}
