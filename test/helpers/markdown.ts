/**
 * Reads the machine-checked parts of the guides in docs/: fenced blocks marked with an HTML
 * comment on the line before them, and the `feast-authz` command lines of shell blocks.
 *
 *   <!-- guide-config: NAME -->                 a ```yaml feature_store.yaml with an `auth` section
 *   <!-- guide-token: NAME -->                  a ```json token payload, checked against config NAME
 *   <!-- guide-token: NAME config=OTHER -->     ... against config OTHER
 *   <!-- guide-principal: NAME -->              the ```json principal `feast-authz inspect` prints for token NAME
 *   <!-- guide-rejection: NAME -->              or the ```json {"status", "code"} the server answers to it
 *   <!-- guide-output: NAME config=OTHER -->    a ```sh `feast-authz` line and, as `# ` comments, what it prints on
 *                                               stderr under config OTHER when its provider refuses connections
 *   <!-- guide-output: NAME config=OTHER server=HOST:PORT -->
 *                                               ... under a kubernetes config OTHER, when the API server of the
 *                                               kubeconfig, https://HOST:PORT, refuses connections (no server=:
 *                                               when there is no cluster connection at all)
 *   <!-- guide-output: NAME config=OTHER answer=STATUS -->
 *                                               ... when the provider's origin answers every request with STATUS
 *   <!-- guide-output: NAME config=OTHER exit=CODE -->
 *                                               ... and the command exits CODE (default 3)
 *   <!-- guide-bad-config: NAME -->             a ```yaml feature_store.yaml broken on purpose: no valid-config check
 *                                               applies; a guide-output shows the error it stops with
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO = fileURLToPath(new URL('../../', import.meta.url))
export const DOCS = join(REPO, 'docs')

export type MarkerKind = 'guide-config' | 'guide-bad-config' | 'guide-token' | 'guide-principal' | 'guide-rejection' | 'guide-example' | 'guide-output'

export interface MarkedBlock {
  readonly kind: MarkerKind
  readonly name: string
  /** `key=value` options after the name. */
  readonly options: Readonly<Record<string, string>>
  /** The info string of the fence (`yaml`, `json`, `ts`, ...). */
  readonly language: string
  readonly text: string
  /** `docs/guides/keycloak.md:42`, for assertion messages. */
  readonly where: string
}

export interface Fence {
  readonly language: string
  readonly text: string
  readonly line: number
}

const MARKER = /^<!--\s*(guide-config|guide-bad-config|guide-token|guide-principal|guide-rejection|guide-example|guide-output):\s*([\w.-]+)((?:\s+[\w-]+=[\w.:-]+)*)\s*-->\s*$/

/** The docs this test owns: getting started, troubleshooting, migration notes and the provider guides. */
export function ownedDocs (): string[] {
  const guides = readdirSync(join(DOCS, 'guides')).filter((name) => name.endsWith('.md')).sort().map((name) => join(DOCS, 'guides', name))
  return [join(DOCS, 'getting-started.md'), join(DOCS, 'troubleshooting.md'), join(DOCS, 'migration-from-feast.md'), ...guides]
}

export function relativeToRepo (path: string): string {
  return relative(REPO, path)
}

/** Every fenced code block of a markdown text, with the line its opening fence is on (1-based). */
export function fences (markdown: string): Fence[] {
  const lines = markdown.split('\n')
  const found: Fence[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(```+)\s*([\w-]*)/.exec(lines[i] as string)
    if (open === null) continue
    const close = lines.findIndex((line, j) => j > i && line.startsWith(open[1] as string) && line.trim() === open[1])
    if (close < 0) throw new Error(`unclosed code fence at line ${i + 1}`)
    found.push({ language: open[2] ?? '', text: lines.slice(i + 1, close).join('\n'), line: i + 1 })
    i = close
  }
  return found
}

/** The marked blocks of one markdown file. A marker not directly followed by a fence is an error. */
export function markedBlocks (path: string): MarkedBlock[] {
  const markdown = readFileSync(path, 'utf8')
  const lines = markdown.split('\n')
  const byLine = new Map(fences(markdown).map((fence) => [fence.line, fence]))
  const blocks: MarkedBlock[] = []
  lines.forEach((line, index) => {
    const match = MARKER.exec(line.trim())
    if (match === null) {
      if (/<!--\s*guide-/.test(line)) throw new Error(`${relativeToRepo(path)}:${index + 1}: malformed guide marker: ${line.trim()}`)
      return
    }
    const fence = byLine.get(index + 2)
    const where = `${relativeToRepo(path)}:${index + 1}`
    if (fence === undefined) throw new Error(`${where}: a guide marker must be directly followed by a code fence`)
    const options = Object.fromEntries((match[3] ?? '').trim().split(/\s+/).filter((pair) => pair !== '').map((pair) => pair.split('=') as [string, string]))
    blocks.push({ kind: match[1] as MarkerKind, name: match[2] as string, options, language: fence.language, text: fence.text, where })
  })
  return blocks
}

/**
 * The `feast-authz ...` command lines in the shell blocks of a markdown text (a leading `$ ` is
 * dropped and lines ending in `\` are joined), with their location.
 */
export function commandLines (path: string): Array<{ line: string, where: string }> {
  const markdown = readFileSync(path, 'utf8')
  const found: Array<{ line: string, where: string }> = []
  // Inline code spans in the prose: `feast-authz token --config feature_store.yaml`.
  markdown.split('\n').forEach((text, index) => {
    if (text.startsWith('```')) return
    for (const match of text.matchAll(/`(feast-authz [a-z-]+(?:\s[^`]*)?)`/g)) found.push({ line: match[1] as string, where: `${relativeToRepo(path)}:${index + 1}` })
  })
  for (const fence of fences(markdown)) {
    if (!['sh', 'bash', 'console', 'shell', ''].includes(fence.language)) continue
    const lines = fence.text.split('\n')
    for (let i = 0; i < lines.length; i++) {
      let line = (lines[i] as string).trim().replace(/^\$\s+/, '').replace(/^!\s+/, '').replace(/^npx\s+/, '')
      const start = i
      while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1).trimEnd()} ${(lines[++i] as string).trim()}`
      if (/^feast-authz(\s|$)/.test(line)) found.push({ line, where: `${relativeToRepo(path)}:${fence.line + 1 + start}` })
    }
  }
  return found
}
