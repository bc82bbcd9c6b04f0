/**
 * The markdown a reader follows: every relative link of the README and docs/ leads to a file
 * that exists and, with a `#fragment`, to a heading of it; every file of the repository a text
 * names in backticks exists; every table is whole (its rows follow its header, none stranded
 * after a paragraph).
 */
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, test } from 'node:test'
import { REPO } from '../../helpers/markdown.ts'

function markdownFiles (dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith('.md') ? [path] : []
  })
}

const FILES = [join(REPO, 'README.md'), ...markdownFiles(join(REPO, 'docs'))]

/** Outside code fences only. */
function prose (text: string): string[] {
  let fenced = false
  return text.split('\n').map((line) => {
    if (/^```/.test(line)) { fenced = !fenced; return '' }
    return fenced ? '' : line
  })
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors (text: string): Set<string> {
  return new Set(prose(text).filter((line) => /^#{1,6} /.test(line)).map((line) =>
    line.replace(/^#+ /, '').trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')))
}

/**
 * A path into the repository's own folders, in backticks (the usual way the docs name a source
 * file, a test or a fixture), ending in a file's extension; bench/results/ is written by the
 * benchmark, not kept in the repository.
 */
const REPOSITORY_FILE = /`((?:src|test|bench(?!\/results\/)|fixtures|docs|scripts)\/[\w./-]+\.[a-z]+)`/g

describe('links and tables of the README and docs/', () => {
  for (const file of FILES) {
    const name = relative(REPO, file)
    const text = readFileSync(file, 'utf8')

    test(`${name}: every relative link leads to a file and heading that exist`, () => {
      const broken: string[] = []
      prose(text).forEach((line, i) => {
        for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (target === undefined || /^[a-z]+:/i.test(target)) continue
          const [path = '', fragment] = target.split('#')
          const destination = path === '' ? file : resolve(dirname(file), path)
          if (!existsSync(destination)) { broken.push(`${name}:${i + 1}: ${target} (no such file)`); continue }
          if (fragment !== undefined && destination.endsWith('.md') && !anchors(readFileSync(destination, 'utf8')).has(fragment)) {
            broken.push(`${name}:${i + 1}: ${target} (no such heading)`)
          }
        }
      })
      assert.deepEqual(broken, [])
    })

    test(`${name}: every repository file named in backticks exists`, () => {
      const missing: string[] = []
      prose(text).forEach((line, i) => {
        for (const [, path] of line.matchAll(REPOSITORY_FILE)) {
          if (path !== undefined && !existsSync(join(REPO, path))) missing.push(`${name}:${i + 1}: ${path}`)
        }
      })
      assert.deepEqual(missing, [])
    })

    test(`${name}: every table row belongs to a table with a header`, () => {
      const lines = prose(text)
      const stranded = lines.flatMap((line, i) => {
        if (!line.startsWith('|')) return []
        const previous = lines[i - 1] ?? ''
        const next = lines[i + 1] ?? ''
        const isHeader = /^\|[\s:|-]+\|$/.test(next.trim())
        return previous.startsWith('|') || isHeader ? [] : [`${name}:${i + 1}: ${line.slice(0, 60)}`]
      })
      assert.deepEqual(stranded, [])
    })
  }
})
