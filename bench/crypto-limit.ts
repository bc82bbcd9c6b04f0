/**
 * Scenario 6, run as its own process on the server's core: how many RS256 signatures one
 * core can check, per second of CPU time. `node:crypto.verify` with a KeyObject prepared once and the token already
 * split is the hardware limit; jose's `jwtVerify` (WebCrypto, plus claim checks) is what a
 * straightforward verifier pays. Prints one JSON line.
 *
 * Input (BENCH_CRYPTO, JSON): { jwk, token, issuer, audience, seconds }.
 */
import { createPublicKey, verify } from 'node:crypto'
import { importJWK, jwtVerify, type JWK } from 'jose'

interface Input { jwk: JWK, token: string, issuer: string, audience: string, seconds: number }

const input = JSON.parse(process.env.BENCH_CRYPTO ?? '{}') as Input
const [header = '', payload = '', signature = ''] = input.token.split('.')
const signingInput = Buffer.from(`${header}.${payload}`)
const signatureBytes = Buffer.from(signature, 'base64url')
const keyObject = createPublicKey({ key: input.jwk, format: 'jwk' })
const cryptoKey = await importJWK(input.jwk, 'RS256')

/** Operations per second of CPU time (not of wall time: on a busy machine the loop is not always running). */
function measureSync (seconds: number, step: () => boolean): number {
  const end = performance.now() + seconds * 1000
  const cpu = process.cpuUsage()
  let count = 0
  while (performance.now() < end) {
    for (let i = 0; i < 100; i++) if (!step()) throw new Error('verification failed')
    count += 100
  }
  return count / cpuSeconds(cpu)
}

async function measureAsync (seconds: number, step: () => Promise<unknown>): Promise<number> {
  const end = performance.now() + seconds * 1000
  const cpu = process.cpuUsage()
  let count = 0
  while (performance.now() < end) {
    for (let i = 0; i < 100; i++) await step()
    count += 100
  }
  return count / cpuSeconds(cpu)
}

function cpuSeconds (since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / 1e6
}

const options = { issuer: input.issuer, audience: input.audience, algorithms: ['RS256'] }
// Short warm-up so that both loops are measured with optimised code.
measureSync(0.3, () => verify('sha256', signingInput, keyObject, signatureBytes))
await measureAsync(0.3, () => jwtVerify(input.token, cryptoKey, options))

const nodeCrypto = measureSync(input.seconds, () => verify('sha256', signingInput, keyObject, signatureBytes))
const jose = await measureAsync(input.seconds, () => jwtVerify(input.token, cryptoKey, options))
process.stdout.write(`${JSON.stringify({ nodeCryptoVerifyPerSec: nodeCrypto, joseJwtVerifyPerSec: jose })}\n`)
