import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { before, describe, test } from 'node:test'

/**
 * Runs the type tests (`test/types/*.test-d.ts`) with `tsc --noEmit -p test/types`, so that a
 * wrong type, or a wrong usage that starts compiling (an unused `@ts-expect-error`), shows up
 * in `npm test` as a failing test named after its file. The Express type tests run a second
 * time against @types/express 4 (`-p test/types/express4`, which maps `express` to the
 * `@types/express4` alias): the middleware's declarations must hold for an app on either major.
 */

const here = import.meta.dirname
const root = resolve(here, '../..')
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const typeTests = readdirSync(here).filter((name) => name.endsWith('.test-d.ts')).sort()

interface Compilation { readonly exitCode: number, readonly errors: readonly string[], readonly files: readonly string[] }

const PROJECTS = [
  { name: 'with @types/express 5', dir: here, files: typeTests },
  { name: 'with @types/express 4', dir: join(here, 'express4'), files: ['express.test-d.ts'] }
] as const

async function compile (project: string): Promise<Compilation> {
  return await new Promise<Compilation>((resolve, reject) => {
    execFile(process.execPath, [tsc, '--noEmit', '--pretty', 'false', '--listFiles', '-p', project], { cwd: root, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error !== null && typeof error.code !== 'number') { reject(error); return }
      // One diagnostic per line that starts with a location; continuation lines belong to it.
      const lines = stdout.split('\n')
      const errors = lines.reduce<string[]>((found, line) => {
        if (/^\S.*\(\d+,\d+\): error /.test(line)) found.push(line)
        else if (line.trim() !== '' && !line.startsWith('/') && found.length > 0) found[found.length - 1] += `\n${line}`
        return found
      }, [])
      resolve({ exitCode: error === null ? 0 : Number(error.code), errors, files: lines.filter((line) => line.startsWith('/')) })
    })
  })
}

const compilations = new Map<string, Compilation>()
before(async () => {
  for (const project of PROJECTS) compilations.set(project.name, await compile(project.dir))
}, { timeout: 360_000 })

describe('type tests of the public API', () => {
  test('there are type tests to run', () => {
    assert.ok(typeTests.length >= 4, `found only ${typeTests.join(', ')}`)
  })

  for (const project of PROJECTS) {
    describe(project.name, () => {
      const compilation = (): Compilation => compilations.get(project.name) as Compilation

      for (const file of project.files) {
        test(`${file} type-checks (right usage compiles, every @ts-expect-error is a real error)`, () => {
          const path = relative(root, resolve(here, file))
          const errors = compilation().errors.filter((error) => error.startsWith(path))
          assert.deepEqual(errors, [], errors.join('\n'))
        })
      }

      test('tsc exits 0 on the type tests and everything they import', () => {
        assert.equal(compilation().exitCode, 0, compilation().errors.join('\n'))
      })
    })
  }

  test('the second run reads the declarations of @types/express 4, and none of @types/express 5', () => {
    const files = compilations.get('with @types/express 4')?.files ?? []
    const major = (name: string): string | undefined => files.find((file) => file.endsWith(`/${name}/index.d.ts`))
    assert.ok(major('@types/express4') !== undefined, 'the run read no @types/express4')
    assert.equal(major('@types/express'), undefined)
    const core = files.filter((file) => file.endsWith('/@types/express-serve-static-core/index.d.ts'))
    assert.deepEqual(core.map((file) => (JSON.parse(readFileSync(join(dirname(file), 'package.json'), 'utf8')) as { version: string }).version.split('.')[0]), ['4'])
  })
})
