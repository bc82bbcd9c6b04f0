/** Scenario 6: the signature-check limit, measured by bench/crypto-limit.ts on the server's core. */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { log, type Fixture } from './fixture.ts'
import type { CryptoLimit } from './report.ts'
import { AUDIENCE } from './tokens.ts'

export async function measureCryptoLimit (fixture: Fixture, jwk: Record<string, unknown>): Promise<CryptoLimit> {
  log('signature-check limit (node:crypto.verify and jose jwtVerify loops)')
  const script = fileURLToPath(new URL('../crypto-limit.ts', import.meta.url))
  const [command = process.execPath, ...args] = [...fixture.cores.serverPrefix, process.execPath, '--import', 'tsx', script]
  const input = { jwk, token: fixture.pool[0], issuer: fixture.description.issuer, audience: AUDIENCE, seconds: fixture.settings.cryptoSeconds }
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_CRYPTO: JSON.stringify(input) } })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  if (code !== 0) throw new Error(`crypto-limit exited with ${String(code)}`)
  return JSON.parse(output.trim().split('\n').pop() ?? '{}') as CryptoLimit
}
