import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { basename } from 'node:path'
import { before, describe, test } from 'node:test'
import { REPO } from '../helpers/markdown.ts'
import { SNIPPETS_DIR, writeDocSnippets, type Snippet } from './doc-snippets.ts'

/**
 * Every ```ts block of the README and docs/ type-checks under `strict`, importing `feast-authz`
 * as users do: docs that show code are tested, and a typed route needs no cast.
 */

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const snippets: Snippet[] = writeDocSnippets()
let output = ''

before(async () => {
  output = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [tsc, '--pretty', 'false', '-p', SNIPPETS_DIR], { cwd: REPO, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error !== null && typeof error.code !== 'number') { reject(error); return }
      resolve(stdout)
    })
  })
}, { timeout: 180_000 })

describe('TypeScript in the docs', () => {
  test('there are snippets to check', () => {
    assert.ok(snippets.length >= 10, `found ${snippets.length}`)
  })

  for (const snippet of snippets) {
    test(`${snippet.where} type-checks`, () => {
      const errors = output.split('\n').filter((line) => line.includes(basename(snippet.file)))
      assert.deepEqual(errors, [])
    })
  }

  test('tsc reports nothing else', () => {
    assert.equal(output.trim(), '')
  })
})
