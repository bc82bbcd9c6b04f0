/**
 * The package as users get it, for the tests that check it from outside: `npm pack` (which
 * builds through `prepack`), and consumer projects that import it by name.
 *
 * The tarball is made once for every test file that asks, and again only when what it is built
 * from changes: the files run in parallel processes, and two packs at once would each rebuild
 * dist/ under the other. The consumers live inside the repository so that the packed package
 * finds its dependencies in the repository's node_modules, as it would in the user's.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'

export const run = promisify(execFile)
export const root = resolve(import.meta.dirname, '../..')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
export const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' }

/**
 * The compilers users check their apps with: TypeScript 5 (JavaScript) and TypeScript 7 (the
 * native port, its own `typescript` package, installed here under the alias `typescript-7`).
 */
export const COMPILERS = [
  { name: 'TypeScript 5', tsc: join(root, 'node_modules/typescript/bin/tsc') },
  { name: 'TypeScript 7', tsc: join(root, 'node_modules/typescript-7/bin/tsc') }
] as const

export interface PackedPackage {
  /** Path of the `.tgz`. */
  readonly tarball: string
  /** The paths `npm pack` put in it (`dist/index.js`, `README.md`...). */
  readonly files: readonly string[]
}

// What `prepack` builds from and `npm pack` puts in the tarball; the lockfile for the compiler's version.
const INPUTS = ['src', 'bin', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE']
const PACKS = join(root, '.tmp', 'packed')
/** A lock older than this was left by a run that died while packing. */
const STALE_LOCK_MS = 5 * 60_000

/** The tarball of the current sources, packed by whichever test file asks first. */
export async function packedPackage (): Promise<PackedPackage> {
  const key = inputsDigest()
  const dir = join(PACKS, key)
  const report = join(dir, 'report.json')
  const lock = join(PACKS, `${key}.lock`)
  mkdirSync(PACKS, { recursive: true })
  for (;;) {
    if (existsSync(report)) return JSON.parse(readFileSync(report, 'utf8')) as PackedPackage
    if (takeLock(lock)) break
    await sleep(250)
  }
  try {
    // Packs of older sources are of no use any more.
    for (const name of readdirSync(PACKS)) if (name !== key && !name.endsWith('.lock')) rmSync(join(PACKS, name), { recursive: true, force: true })
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir)
    const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', dir], { cwd: root, env: npmEnv, maxBuffer: 16 * 1024 * 1024 })
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string, files: Array<{ path: string }> }>
    assert.ok(packed !== undefined, 'npm pack reported no tarball')
    const result: PackedPackage = { tarball: join(dir, packed.filename), files: packed.files.map((file) => file.path) }
    // Written whole, then renamed: a waiting file never reads half a report.
    writeFileSync(`${report}.part`, JSON.stringify(result))
    renameSync(`${report}.part`, report)
    return result
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

function takeLock (lock: string): boolean {
  try {
    mkdirSync(lock)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true })
    } catch {}
    return false
  }
}

function inputsDigest (): string {
  const hash = createHash('sha256')
  const add = (path: string): void => {
    const full = join(root, path)
    if (!existsSync(full)) return
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) add(join(path, name))
      return
    }
    hash.update(`${path}\0`).update(readFileSync(full)).update('\0')
  }
  for (const input of INPUTS) add(input)
  return hash.digest('hex').slice(0, 16)
}

/** Consumer projects of one test file, in a directory of their own that `remove` deletes. */
export interface Consumers {
  /** A consumer project with the tarball unpacked as node_modules/feast-authz and `manifest` as its package.json. */
  unpackInto (name: string, manifest: Record<string, unknown>): Promise<string>
  /**
   * A consumer project whose `app.ts` is `source`, with a strict NodeNext tsconfig that checks it;
   * `compilerOptions` adds to or replaces the tsconfig's.
   */
  typedConsumer (
    name: string,
    source: readonly string[],
    options: { skipLibCheck: boolean, compilerOptions?: Record<string, unknown> }
  ): Promise<string>
  remove (): void
}

export function createConsumers (packed: PackedPackage): Consumers {
  const workDir = mkdtempSync(join(root, '.tmp', 'consumer-'))
  const unpackInto = async (name: string, manifest: Record<string, unknown>): Promise<string> => {
    const consumer = join(workDir, name)
    mkdirSync(join(consumer, 'node_modules'), { recursive: true })
    await run('tar', ['-xzf', packed.tarball, '-C', join(consumer, 'node_modules')])
    await run('mv', [join(consumer, 'node_modules/package'), join(consumer, 'node_modules/feast-authz')])
    writeFileSync(join(consumer, 'package.json'), JSON.stringify(manifest))
    return consumer
  }
  return {
    unpackInto,
    async typedConsumer (name, source, { skipLibCheck, compilerOptions }) {
      const consumer = await unpackInto(name, { name: 'consumer', type: 'module', private: true })
      const strict = { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck, types: ['node'], typeRoots: [join(root, 'node_modules/@types')] }
      writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({
        compilerOptions: { ...strict, ...compilerOptions },
        files: ['app.ts']
      }))
      writeFileSync(join(consumer, 'app.ts'), source.join('\n'))
      return consumer
    },
    remove: () => { rmSync(workDir, { recursive: true, force: true }) }
  }
}

/** Type-checks `consumer` with `tsc` (failing on any error) and answers the files the compiler read. */
export async function filesCheckedIn (consumer: string, tsc: string): Promise<string[]> {
  const { stdout } = await run(process.execPath, [tsc, '-p', consumer, '--listFiles'], { cwd: consumer, maxBuffer: 16 * 1024 * 1024 })
  return stdout.split('\n')
}
