import assert from 'node:assert/strict'
import { resolve } from 'node:path'
import { before, describe, test } from 'node:test'
import ts from 'typescript'

/**
 * The public API as the TypeScript compiler sees it: every export of the entry points
 * (`feast-authz`, `/express`, `/permissions`, `/registry`, `/operator`, `/client`, `/server`, `/online`) carries a TSDoc comment, the main functions
 * show an example, and the security-relevant options carry a WARNING.
 */

const root = resolve(import.meta.dirname, '../..')
const ENTRY_POINTS: Readonly<Record<string, string>> = {
  'feast-authz': 'src/index.ts',
  'feast-authz/express': 'src/adapters/express.ts',
  'feast-authz/permissions': 'src/permissions/index.ts',
  'feast-authz/registry': 'src/registry/index.ts',
  'feast-authz/operator': 'src/operator/index.ts',
  'feast-authz/client': 'src/client/index.ts',
  'feast-authz/server': 'src/server/index.ts',
  'feast-authz/online': 'src/server/online.ts'
}

/** The functions a user starts from: their comment shows how to call them. */
const NEEDS_EXAMPLE: ReadonlyArray<readonly [entry: string, name: string]> = [
  ['feast-authz', 'default'], ['feast-authz', 'feastAuthz'], ['feast-authz', 'loadAuthConfig'],
  ['feast-authz/permissions', 'permission'], ['feast-authz/permissions', 'allowAll'], ['feast-authz/permissions', 'roleBasedPolicy'],
  ['feast-authz/permissions', 'groupBasedPolicy'], ['feast-authz/permissions', 'namespaceBasedPolicy'],
  ['feast-authz/permissions', 'combinedGroupNamespacePolicy'], ['feast-authz/permissions', 'decide'],
  ['feast-authz/operator', 'renderFeatureStore'], ['feast-authz/registry', 'openFeastRegistry'],
  ['feast-authz/express', 'feastAuthzExpress'],
  ['feast-authz/client', 'createTokenProvider'], ['feast-authz/client', 'createAuthFetch'],
  ['feast-authz/server', 'buildReferenceServer']
]

/** Options and values that open access or weaken checks: their comment says so with `WARNING:`. */
const NEEDS_WARNING: ReadonlyArray<readonly [entry: string, path: string]> = [
  ['feast-authz', 'OidcAuthConfig.verify_ssl'],
  ['feast-authz', 'NoAuthConfig'],
  ['feast-authz/permissions', 'allowAll'],
  ['feast-authz', 'AuthzOptions.permissions'],
  ['feast-authz', 'AuthzOptions.manager'],
  ['feast-authz', 'FeastAuthzOptions.healthRoute'],
  ['feast-authz', 'RouteAuthzConfig.public'],
  ['feast-authz', 'AuthSource'],
  ['feast-authz/permissions', 'decide'],
  ['feast-authz/operator', 'renderFeatureStore'],
  ['feast-authz/client', 'mintIntraToken'],
  ['feast-authz/client', 'createTokenProvider'],
  ['feast-authz/client', 'AuthFetchOptions.allowedOrigins']
]

/** Files whose `declare module` / `declare global` blocks add to Fastify's and Express's types. */
const AUGMENTING_FILES = ['src/adapters/fastify.ts', 'src/adapters/fastify-permissions.ts', 'src/adapters/express.ts']

interface Api {
  readonly program: ts.Program
  readonly checker: ts.TypeChecker
  /** entry → export name → the symbol it resolves to. */
  readonly exports: ReadonlyMap<string, ReadonlyMap<string, ts.Symbol>>
}

let api: Api

before(() => {
  const parsed = ts.getParsedCommandLineOfConfigFile(resolve(root, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => { throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')) }
  })
  assert.ok(parsed !== undefined)
  const files = Object.values(ENTRY_POINTS).map((file) => resolve(root, file))
  const program = ts.createProgram(files, { ...parsed.options, noEmit: true })
  const checker = program.getTypeChecker()
  const exports = new Map<string, Map<string, ts.Symbol>>()
  for (const [entry, file] of Object.entries(ENTRY_POINTS)) {
    const source = program.getSourceFile(resolve(root, file))
    assert.ok(source !== undefined, `${file} is not in the program`)
    const module = checker.getSymbolAtLocation(source)
    assert.ok(module !== undefined, `${file} is not a module`)
    const named = new Map<string, ts.Symbol>()
    for (const symbol of checker.getExportsOfModule(module)) {
      named.set(symbol.getName(), (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol)
    }
    exports.set(entry, named)
  }
  api = { program, checker, exports }
}, { timeout: 120_000 })

function exported (entry: string, name: string): ts.Symbol {
  const symbol = api.exports.get(entry)?.get(name)
  assert.ok(symbol !== undefined, `${entry} does not export ${name}`)
  return symbol
}

/** `Type.member` → the member's symbol; a plain name → the export itself. */
function lookUp (entry: string, path: string): ts.Symbol {
  const [name, member] = path.split('.') as [string, string | undefined]
  const symbol = exported(entry, name)
  if (member === undefined) return symbol
  const found = api.checker.getDeclaredTypeOfSymbol(symbol).getProperty(member)
  assert.ok(found !== undefined, `${entry}: ${name} has no member ${member}`)
  return found
}

function documentation (symbol: ts.Symbol): string {
  return ts.displayPartsToString(symbol.getDocumentationComment(api.checker)).trim()
}

function tags (symbol: ts.Symbol): readonly ts.JSDocTagInfo[] {
  return symbol.getJsDocTags(api.checker)
}

/** `Interface.member` of every interface inside a `declare module` or `declare global` block of `file`. */
function augmentedMembers (file: string): Array<{ name: string, node: ts.Node }> {
  const source = api.program.getSourceFile(resolve(root, file))
  assert.ok(source !== undefined, `${file} is not in the program`)
  const found: Array<{ name: string, node: ts.Node }> = []
  const augments = (node: ts.Node): boolean =>
    ts.isModuleDeclaration(node) && (ts.isStringLiteral(node.name) || (node.flags & ts.NodeFlags.GlobalAugmentation) !== 0)
  const visit = (node: ts.Node, inAugmentation: boolean): void => {
    if (inAugmentation && ts.isInterfaceDeclaration(node)) {
      for (const member of node.members) found.push({ name: `${node.name.text}.${member.name?.getText(source) ?? '?'}`, node: member })
      return
    }
    ts.forEachChild(node, (child) => { visit(child, inAugmentation || augments(child)) })
  }
  visit(source, false)
  return found
}

describe('TSDoc of the public API', () => {
  test('every export of every entry point has a TSDoc comment', () => {
    const missing: string[] = []
    for (const [entry, named] of api.exports) {
      for (const [name, symbol] of named) {
        if (documentation(symbol) === '') missing.push(`${entry}: ${name}`)
      }
    }
    assert.deepEqual(missing, [], `exports without a TSDoc comment:\n  ${missing.join('\n  ')}`)
  })

  test('each entry point exports something (the walk saw the API)', () => {
    for (const entry of Object.keys(ENTRY_POINTS)) {
      assert.ok((api.exports.get(entry)?.size ?? 0) > 0, `${entry} exports nothing`)
    }
  })

  test('the main functions show an @example', () => {
    const missing = NEEDS_EXAMPLE
      .filter(([entry, name]) => !tags(exported(entry, name)).some((tag) => tag.name === 'example' && ts.displayPartsToString(tag.text).trim() !== ''))
      .map(([entry, name]) => `${entry}: ${name}`)
    assert.deepEqual(missing, [], `functions without an @example:\n  ${missing.join('\n  ')}`)
  })

  test('security-relevant options and values carry a WARNING note', () => {
    const missing = NEEDS_WARNING
      .filter(([entry, path]) => !documentation(lookUp(entry, path)).includes('WARNING:'))
      .map(([entry, path]) => `${entry}: ${path}`)
    assert.deepEqual(missing, [], `without a WARNING: note:\n  ${missing.join('\n  ')}`)
  })

  test('what the adapters add to Fastify and Express types (request.principal, fastify.feastAuthz, ...) is documented', () => {
    const members = AUGMENTING_FILES.flatMap((file) => augmentedMembers(file).map((member) => ({ ...member, file })))
    assert.ok(members.some(({ name }) => name === 'FastifyRequest.principal'), 'the walk did not find the Fastify declaration merging')
    const missing = members
      .filter(({ node }) => !ts.getJSDocCommentsAndTags(node).some((doc) => ts.isJSDoc(doc) && ts.getTextOfJSDocComment(doc.comment)?.trim()))
      .map(({ file, name }) => `${file}: ${name}`)
    assert.deepEqual(missing, [], `augmented members without a TSDoc comment:\n  ${missing.join('\n  ')}`)
  })
})
