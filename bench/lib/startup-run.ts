/**
 * Start-up: the import time and RSS of each entry point of the built package (compiled here
 * with tsc into bench/results/dist, run by plain node: users do not import through tsx), beside
 * Fastify alone and Fastify + jose + yaml, and the time from process start to the first
 * authenticated answer. Each figure is the median of several fresh processes, and the probes
 * take turns (every probe once, then again), so that a drift of the machine between the first
 * and the last process weighs on every probe alike rather than on the ones measured last.
 */
import { spawn, spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { configEnv, log, RESULTS_DIR, type Fixture } from './fixture.ts'
import { median, type StartupResult } from './report.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const DIST = `${RESULTS_DIR}dist/`
/** Fresh processes per probe, and first-answer runs. */
const RUNS = 7

/** What each probe imports: bare names resolve from the repository, the rest are built files. */
export const STARTUP_PROBES: ReadonlyArray<{ id: string, label: string, imports: readonly string[] }> = [
  { id: 'node', label: 'node alone (nothing imported)', imports: [] },
  { id: 'fastify', label: 'fastify', imports: ['fastify'] },
  { id: 'fastify+jose+yaml', label: 'fastify + jose + yaml', imports: ['fastify', 'jose', 'yaml'] },
  { id: 'feast-authz', label: '`feast-authz`', imports: ['dist:index.js'] },
  { id: 'feast-authz/express', label: '`feast-authz/express`', imports: ['dist:adapters/express.js'] },
  { id: 'feast-authz/client', label: '`feast-authz/client`', imports: ['dist:client/index.js'] },
  { id: 'feast-authz/online', label: '`feast-authz/online`', imports: ['dist:server/online.js'] },
  { id: 'feast-authz/server', label: '`feast-authz/server`', imports: ['dist:server/index.js'] }
]

const PROBE = 'const specs = JSON.parse(process.env.BENCH_IMPORTS); const started = performance.now(); ' +
  'for (const spec of specs) await import(spec); ' +
  'process.stdout.write(JSON.stringify({ ms: performance.now() - started, rss: process.memoryUsage().rss }))'

export async function runStartup (fixture: Fixture): Promise<StartupResult> {
  log('start-up: building the package into bench/results/dist (tsc)')
  rmSync(DIST, { recursive: true, force: true })
  const build = spawnSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${ROOT}tsconfig.build.json`, '--outDir', DIST, '--declaration', 'false', '--sourceMap', 'false'], { cwd: ROOT, encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`tsc failed: ${build.stdout}${build.stderr}`)
  const prefix = fixture.cores.serverPrefix
  const runs = STARTUP_PROBES.map(() => [] as Array<{ ms: number, rss: number }>)
  for (let i = 0; i < RUNS; i++) {
    for (const [index, probe] of STARTUP_PROBES.entries()) {
      const imports = probe.imports.map((spec) => spec.startsWith('dist:') ? pathToFileURL(`${DIST}${spec.slice(5)}`).href : spec)
      const [command = process.execPath, ...args] = [...prefix, process.execPath, '--input-type=module', '-e', PROBE]
      const child = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, BENCH_IMPORTS: JSON.stringify(imports) } })
      if (child.status !== 0) throw new Error(`import probe ${probe.id} failed: ${child.stderr}`)
      runs[index]!.push(JSON.parse(child.stdout) as { ms: number, rss: number })
    }
  }
  const probes = STARTUP_PROBES.map((probe, index) => ({
    id: probe.id,
    label: probe.label,
    importMs: median(runs[index]!.map((run) => run.ms)),
    rss: median(runs[index]!.map((run) => run.rss))
  }))
  const answers: number[] = []
  for (let i = 0; i < RUNS; i++) {
    // Asynchronous: the probe fetches discovery and keys from the identity provider in this process.
    const [command = process.execPath, ...args] = [...prefix, process.execPath, `${ROOT}bench/first-answer.mjs`]
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...configEnv(fixture), BENCH_DIST: pathToFileURL(DIST).href, BENCH_TOKEN: fixture.repeatToken, NODE_ENV: 'production' } })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    const result = code === 0 ? JSON.parse(stdout) as { ms: number, status: number } : undefined
    if (result?.status !== 200) throw new Error(`first-answer probe failed: ${stderr}${stdout}`)
    answers.push(result.ms)
  }
  log(`start-up: first authenticated answer after ${Math.round(median(answers))} ms`)
  return { probes, firstAnswerMs: median(answers), runs: RUNS }
}
