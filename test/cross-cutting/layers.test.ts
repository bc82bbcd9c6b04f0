/**
 * The layering of src/ (docs/architecture.md), checked on every import, `import type` and
 * dynamic `import()` included: a file imports only from its own layer group or from a layer
 * below it, and no import cycle exists between files. There are no exceptions to list here.
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, test } from 'node:test'
import ts from 'typescript'

const SRC = fileURLToPath(new URL('../../src/', import.meta.url))

/** Bottom-up. A group may import its own files and any group of a lower rank. */
const LAYERS: ReadonlyArray<{ readonly rank: number, readonly group: string, readonly paths: readonly string[] }> = [
  { rank: 0, group: 'base', paths: ['base/'] },
  { rank: 1, group: 'config', paths: ['config/'] },
  { rank: 2, group: 'permissions', paths: ['permissions/'] },
  { rank: 2, group: 'managers', paths: ['managers/'] },
  { rank: 3, group: 'registry', paths: ['registry/'] },
  { rank: 4, group: 'adapters', paths: ['adapters/'] },
  { rank: 5, group: 'entry', paths: ['index.ts'] },
  { rank: 6, group: 'server', paths: ['server/'] },
  { rank: 6, group: 'client', paths: ['client/'] },
  { rank: 6, group: 'operator', paths: ['operator/'] },
  { rank: 7, group: 'cli', paths: ['cli/'] }
]

/** Groups that must stay usable without the rest of the package: they may import only these. */
const ONLY: Readonly<Record<string, readonly string[]>> = {
  client: ['base', 'config', 'client'],
  operator: ['base', 'config', 'operator']
}

/**
 * Groups built only from what a user of the package can import (the reference server is the
 * worked example users copy): outside their own folder, they import entry points only.
 */
const PUBLIC_API_ONLY: readonly string[] = ['server']

/** The source file behind each entry point of package.json's `exports` (dist/x.js is built from src/x.ts). */
const ENTRY_POINTS: ReadonlySet<string> = new Set(Object.values(
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).exports as Record<string, string | { import?: string }>
).flatMap((target) => {
  const built = typeof target === 'string' ? target : target.import
  return built?.startsWith('./dist/') === true ? [join(SRC, built.slice('./dist/'.length).replace(/\.js$/, '.ts'))] : []
}))

function sourceFiles (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Every module specifier of a file: static imports and re-exports (type-only too), `import()` calls and `import('x').T` types. */
function specifiers (file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments
      assert.ok(argument !== undefined && ts.isStringLiteralLike(argument), `${relative(SRC, file)}: import() with a computed specifier cannot be checked`)
      found.push(argument.text)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

function layerOf (file: string): (typeof LAYERS)[number] | undefined {
  const path = relative(SRC, file).split('\\').join('/')
  return LAYERS.find((layer) => layer.paths.some((prefix) => prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix))
}

const files = sourceFiles(SRC)
const edges = new Map(files.map((file) => [file, specifiers(file)
  .filter((specifier) => specifier.startsWith('.'))
  .map((specifier) => resolve(dirname(file), specifier))]))
const name = (file: string): string => relative(SRC, file)

describe('the layers of src/', () => {
  test('every source file belongs to a layer', () => {
    assert.deepEqual(files.filter((file) => layerOf(file) === undefined).map(name), [])
  })

  test('every relative import names a file that exists', () => {
    const known = new Set(files)
    const missing = [...edges].flatMap(([file, targets]) => targets.filter((target) => !known.has(target)).map((target) => `${name(file)} -> ${name(target)}`))
    assert.deepEqual(missing, [])
  })

  test('no file imports from its own rank in another group or from a layer above it', () => {
    assert.deepEqual(violations(edges).map(([file, target]) => `${name(file)} -> ${name(target)}`), [])
  })

  test('docs/architecture.md draws every layer group at its rank', () => {
    const drawing = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8')
    for (const layer of LAYERS) {
      for (const path of layer.paths) {
        assert.match(drawing, new RegExp(`^${layer.rank} .*\\b${path.replace('.', '\\.')}`, 'm'), `${path} at rank ${layer.rank}`)
      }
    }
  })

  test('the entry points read from package.json are source files', () => {
    const known = new Set(files)
    assert.ok(ENTRY_POINTS.size >= 7, `${ENTRY_POINTS.size} entry points`)
    assert.deepEqual([...ENTRY_POINTS].filter((file) => !known.has(file)).map(name), [])
  })

  test('no import cycle exists between files', () => {
    assert.deepEqual(cycles(edges).map((cycle) => cycle.map(name).join(' -> ')), [])
  })
})

describe('the layer check itself', () => {
  test('finds a cycle of two files and one of a file importing itself', () => {
    const graph = new Map([['a', ['b']], ['b', ['a']], ['c', ['c']], ['d', ['a']]])
    assert.deepEqual(cycles(graph).map((cycle) => [...cycle].sort()), [['a', 'b'], ['c']])
  })

  test('refuses an import of the reference server from anything but an entry point', () => {
    const at = (path: string): string => join(SRC, path)
    const graph = new Map([[at('server/app.ts'), [at('index.ts'), at('registry/index.ts'), at('adapters/setup.ts'), at('config/errors.ts'), at('server/catalog.ts')]]])
    assert.deepEqual(violations(graph).map(([file, target]) => `${name(file)} -> ${name(target)}`), [
      'server/app.ts -> adapters/setup.ts',
      'server/app.ts -> config/errors.ts'
    ])
  })

  test('refuses an import from a layer above, from another group of the same rank, and from outside client/operator\'s allowance', () => {
    const at = (path: string): string => join(SRC, path)
    const graph = new Map([
      [at('base/errors.ts'), [at('config/errors.ts')]],
      [at('managers/types.ts'), [at('permissions/model.ts'), at('base/principal.ts')]],
      [at('client/index.ts'), [at('managers/types.ts'), at('config/errors.ts')]],
      [at('cli/main.ts'), [at('server/app.ts'), at('client/index.ts')]]
    ])
    assert.deepEqual(violations(graph).map(([file, target]) => `${name(file)} -> ${name(target)}`), [
      'base/errors.ts -> config/errors.ts',
      'managers/types.ts -> permissions/model.ts',
      'client/index.ts -> managers/types.ts'
    ])
  })

  test('reads type-only imports, re-exports, dynamic imports and import types', () => {
    const probe = join(SRC, 'base', 'probe.ts')
    const text = [
      "import type { A } from './a.ts'",
      "export { B } from './b.ts'",
      "const c = await import('./c.ts')",
      "type D = import('./d.ts').D"
    ].join('\n')
    assert.deepEqual(specifiers(probe, text), ['./a.ts', './b.ts', './c.ts', './d.ts'])
  })
})

/** Each `[file, target]` import that crosses the layers the wrong way. */
function violations (graph: ReadonlyMap<string, readonly string[]>): Array<[string, string]> {
  const found: Array<[string, string]> = []
  for (const [file, targets] of graph) {
    const from = layerOf(file)!
    for (const target of targets) {
      const to = layerOf(target)
      if (to === undefined || to.group === from.group) continue
      const allowed = to.rank < from.rank && (ONLY[from.group]?.includes(to.group) ?? true) &&
        (!PUBLIC_API_ONLY.includes(from.group) || ENTRY_POINTS.has(target))
      if (!allowed) found.push([file, target])
    }
  }
  return found
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles (graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const connect = (node: string): void => {
    index.set(node, counter)
    low.set(node, counter)
    counter++
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!))
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.reverse())
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) connect(node)
  return found
}
