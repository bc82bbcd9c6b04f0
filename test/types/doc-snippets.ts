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
      paths: sourcePaths(src)
    },
    include: ['*.ts']
  }, null, 2))
  return snippets
}

/**
 * `feast-authz` and every subpath of package.json's `exports`, to the source its build comes from
 * (`./dist/x.js` ← `src/x.ts`). Without an entry, a subpath resolves to dist/, which exists only
 * after a build: the check would then pass or fail depending on what ran before it.
 */
function sourcePaths (src: string): Record<string, string[]> {
  const { name, exports } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { name: string, exports: Record<string, string | { import?: string }> }
  const paths: Record<string, string[]> = {}
  for (const [subpath, target] of Object.entries(exports)) {
    const built = typeof target === 'string' ? target : target.import
    if (built === undefined || !built.startsWith('./dist/') || !built.endsWith('.js')) continue
    paths[subpath === '.' ? name : `${name}${subpath.slice(1)}`] = [`${src}/${built.slice('./dist/'.length, -'.js'.length)}.ts`]
  }
  return paths
}
