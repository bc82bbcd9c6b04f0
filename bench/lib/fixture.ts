/** What every run of the benchmark shares: settings, cores, the identity provider, the tokens. */
import { fileURLToPath } from 'node:url'
import type { CorePlan } from './cores.ts'
import type { IdpServer } from './idp-server.ts'
import type { KubeFixture } from './kube-fixture.ts'
import type { LoadResult } from './load.ts'
import type { Settings } from './settings.ts'
import type { createSigner, IdpDescription } from './tokens.ts'

export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url))

export interface Fixture {
  readonly settings: Settings
  readonly cores: CorePlan
  readonly idp: IdpServer
  readonly description: IdpDescription
  readonly repeatToken: string
  readonly pool: readonly string[]
  /** Tokens every verifying server must refuse with 401. */
  readonly badTokens: Readonly<Record<string, string>>
  readonly esSigner: ReturnType<typeof createSigner>
  readonly kube: KubeFixture | undefined
}

/** Progress on stderr: stdout carries only the report. */
export const log = (message: string): void => { process.stderr.write(`[bench] ${message}\n`) }

export function pct (share: number): string {
  return Number.isFinite(share) ? `${Math.round(share * 100)}%` : '?'
}

export function configEnv (fixture: Fixture, extra: Record<string, string> = {}): Record<string, string> {
  return { BENCH_CONFIG: JSON.stringify(fixture.description), ...extra }
}

export function assertClean (id: string, run: LoadResult): void {
  if (run.non2xx > 0 || run.errors > 0) {
    throw new Error(`${id}: ${run.non2xx} non-2xx responses and ${run.errors} errors/timeouts under load`)
  }
}
