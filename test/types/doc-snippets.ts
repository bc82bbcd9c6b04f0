/**
 * Writes every ```ts block of the README and docs/ as a module under .tmp/doc-snippets/, with a
 * tsconfig that resolves `feast-authz` (and its subpaths) to the sources, as the published
 * package's `exports` would to the build. test/types/doc-snippets.test.ts type-checks them.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fences, REPO } from '../helpers/markdown.ts'

export const SNIPPETS_DIR = join(REPO, '.tmp', 'doc-snippets')

function markdownFiles (dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith('.md') ? [path] : []
  })
}

export interface Snippet { readonly file: string, readonly where: string }

export function writeDocSnippets (): Snippet[] {
  rmSync(SNIPPETS_DIR, { recursive: true, force: true })
  mkdirSync(SNIPPETS_DIR, { recursive: true })
  const snippets: Snippet[] = []
  for (const doc of [join(REPO, 'README.md'), ...markdownFiles(join(REPO, 'docs'))]) {
    for (const fence of fences(readFileSync(doc, 'utf8'))) {
      if (fence.language !== 'ts' && fence.language !== 'typescript') continue
      const where = `${relative(REPO, doc)}:${fence.line}`
      const file = join(SNIPPETS_DIR, `${where.replace(/[/:.]/g, '_')}.ts`)
      // A module of its own: top-level await works, and names do not clash between snippets.
      writeFileSync(file, `${fence.text}\nexport {}\n`)
      snippets.push({ file, where })
    }
  }
  const src = relative(SNIPPETS_DIR, join(REPO, 'src'))
  writeFileSync(join(SNIPPETS_DIR, 'tsconfig.json'), JSON.stringify({
    extends: relative(SNIPPETS_DIR, join(REPO, 'tsconfig.json')),
    compilerOptions: {
      noEmit: true,
      rootDir: relative(SNIPPETS_DIR, REPO),
      // The repository's own settings (strict, and stricter), which a user's project will not exceed.
      paths: {
        'feast-authz': [`${src}/index.ts`],
        'feast-authz/express': [`${src}/adapters/express.ts`],
        'feast-authz/client': [`${src}/client/index.ts`],
        'feast-authz/server': [`${src}/server/index.ts`]
      }
    },
    include: ['*.ts']
  }, null, 2))
  return snippets
}
