import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { relative, resolve } from 'node:path'
import { before, describe, test } from 'node:test'

/**
 * Runs the type tests (`test/types/*.test-d.ts`) with `tsc --noEmit -p test/types`, so that a
 * wrong type, or a wrong usage that starts compiling (an unused `@ts-expect-error`), shows up
 * in `npm test` as a failing test named after its file.
 */

const here = import.meta.dirname
const root = resolve(here, '../..')
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const typeTests = readdirSync(here).filter((name) => name.endsWith('.test-d.ts')).sort()

interface Compilation { readonly exitCode: number, readonly errors: readonly string[] }
let compilation: Compilation

before(async () => {
  compilation = await new Promise<Compilation>((resolve, reject) => {
    execFile(process.execPath, [tsc, '--noEmit', '--pretty', 'false', '-p', here], { cwd: root, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error !== null && typeof error.code !== 'number') { reject(error); return }
      // One diagnostic per line that starts with a location; continuation lines belong to it.
      const errors = stdout.split('\n').reduce<string[]>((found, line) => {
        if (/^\S.*\(\d+,\d+\): error /.test(line)) found.push(line)
        else if (line.trim() !== '' && found.length > 0) found[found.length - 1] += `\n${line}`
        return found
      }, [])
      resolve({ exitCode: error === null ? 0 : Number(error.code), errors })
    })
  })
}, { timeout: 180_000 })

function errorsIn (file: string): string[] {
  const path = relative(root, resolve(here, file))
  return compilation.errors.filter((error) => error.startsWith(path))
}

describe('type tests of the public API', () => {
  test('there are type tests to run', () => {
    assert.ok(typeTests.length >= 4, `found only ${typeTests.join(', ')}`)
  })

  for (const file of typeTests) {
    test(`${file} type-checks (right usage compiles, every @ts-expect-error is a real error)`, () => {
      const errors = errorsIn(file)
      assert.deepEqual(errors, [], errors.join('\n'))
    })
  }

  test('tsc exits 0 on the type tests and everything they import', () => {
    assert.equal(compilation.exitCode, 0, compilation.errors.join('\n'))
  })
})
