import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { parse } from 'yaml'
import { main } from '../../../src/cli/main.ts'
import { runCli, runInProcess } from '../../helpers/cli.ts'
import { startScriptedServer } from '../../helpers/scripted-server.ts'
import { DOCS, markedBlocks, type MarkedBlock } from '../../helpers/markdown.ts'

// What docs/troubleshooting.md shows a command printing is what it prints: the page's
// feature_store.yaml is used as written, except that its provider's origin (or, in kubernetes
// mode, the API server of the kubeconfig, named by the marker) is a loopback port nobody listens
// on (or, with answer=STATUS, a loopback server answering every request with that status), which
// the output then names in place of the page's host. A file broken on purpose
// (guide-bad-config) stops the command with exit 2; the output names it as feature_store.yaml.

const blocks = markedBlocks(join(DOCS, 'troubleshooting.md'))
const configs = new Map(blocks.filter((block) => block.kind === 'guide-config' || block.kind === 'guide-bad-config').map((block) => [block.name, block]))
const outputs = blocks.filter((block) => block.kind === 'guide-output')
const dir = mkdtempSync(join(tmpdir(), 'feast-authz-troubleshooting-'))
// A home with no .kube/config, for a kubernetes configuration off any cluster.
const NO_CLUSTER_HOME = mkdtempSync(join(tmpdir(), 'feast-authz-troubleshooting-home-'))
// Port 9 (discard) on loopback: nothing listens, so the connection is refused at once.
const REFUSING = 'https://127.0.0.1:9'
// Any compact JWS: the provider is asked for its keys (the cluster for a review) before the signature is looked at.
const TOKEN = `${Buffer.from('{"alg":"RS256","kid":"k"}').toString('base64url')}.${Buffer.from('{"sub":"alice"}').toString('base64url')}.c2ln`
// A kubeconfig as a developer's: one cluster, at the refusing port, and a user with a token.
const KUBECONFIG = join(dir, 'kubeconfig')
writeFileSync(KUBECONFIG, `apiVersion: v1
kind: Config
clusters:
- name: docs
  cluster:
    server: ${REFUSING}
users:
- name: docs
  user:
    token: docs-user-token
contexts:
- name: docs
  context:
    cluster: docs
    user: docs
current-context: docs
`)

function commandOf (block: MarkedBlock): { args: string[], printed: string } {
  const lines = block.text.split('\n')
  const command = lines[0] ?? ''
  assert.match(command, /^feast-authz /, `${block.where}: the block starts with the command`)
  return { args: command.split(/\s+/).slice(1), printed: lines.slice(1).map((line) => line.replace(/^# /, '')).join('\n') }
}

interface Auth { type: string, auth_discovery_url?: string }
type Run = (args: string[]) => Promise<{ code: number | null, stdout: string, stderr: string }>

/** The auth section of a page's file; undefined when the file is broken before there is one. */
function authOf (config: MarkedBlock): Auth | undefined {
  try {
    const auth = (parse(config.text) as { auth?: unknown } | null)?.auth
    return typeof auth === 'object' && auth !== null ? auth as Auth : undefined
  } catch {
    return undefined
  }
}

/** The page's origin the loopback address stands for (if any), how the command runs, and what to close after. */
async function setUp (block: MarkedBlock, auth: Auth | undefined): Promise<{ origin?: string, loopback?: string, run: Run, close: () => Promise<void> }> {
  const inProcess: Run = async (args) => await runInProcess(main, args)
  const nothing = async (): Promise<void> => {}
  if (auth?.type === 'kubernetes') {
    // The cluster connection is found in the process's environment: a process of its own, with a HOME of nothing.
    if (block.options.server === undefined) return { run: async (args) => await runCli(args, { env: { HOME: NO_CLUSTER_HOME } }), close: nothing }
    return { origin: `https://${block.options.server}`, loopback: REFUSING, run: async (args) => await runCli(args, { env: { HOME: dir, KUBECONFIG } }), close: nothing }
  }
  if (auth?.auth_discovery_url === undefined) return { run: inProcess, close: nothing }
  const origin = new URL(auth.auth_discovery_url).origin
  if (block.options.answer === undefined) return { origin, loopback: REFUSING, run: inProcess, close: nothing }
  const server = await startScriptedServer([{ status: Number(block.options.answer) }])
  return { origin, loopback: server.url, run: inProcess, close: async () => { await server.close() } }
}

describe('the output shown in docs/troubleshooting.md', () => {
  test('the page shows the output of an unreachable provider', () => {
    assert.ok(outputs.some((block) => block.name === 'provider-unreachable'), 'no <!-- guide-output: provider-unreachable -->')
  })

  test('the page shows the output of an unreachable Kubernetes API server', () => {
    assert.ok(outputs.some((block) => block.name === 'cluster-unreachable'), 'no <!-- guide-output: cluster-unreachable -->')
  })

  for (const block of outputs) {
    const exit = Number(block.options.exit ?? 3)
    test(`${block.where}: is exactly what the command prints on stderr, and it exits ${exit}`, async () => {
      const config = configs.get(block.options.config ?? block.name)
      assert.ok(config !== undefined, `${block.where}: no <!-- guide-config: ${block.options.config ?? block.name} --> (or guide-bad-config)`)
      const { origin, loopback, run, close } = await setUp(block, authOf(config))
      try {
        const configPath = join(dir, `${block.name}.yaml`)
        const tokenPath = join(dir, `${block.name}.jwt`)
        writeFileSync(configPath, origin === undefined || loopback === undefined ? config.text : config.text.split(origin).join(loopback))
        writeFileSync(tokenPath, TOKEN)
        const { args, printed } = commandOf(block)
        const files: Record<string, string> = { 'feature_store.yaml': configPath, 'token.jwt': tokenPath }
        const { code, stdout, stderr } = await run(args.map((arg) => files[arg] ?? arg))
        assert.equal(code, exit)
        assert.equal(stdout, '')
        let shown = stderr.split(configPath).join('feature_store.yaml')
        if (origin !== undefined && loopback !== undefined) shown = shown.split(loopback).join(origin)
        assert.equal(shown, `${printed}\n`)
      } finally {
        await close()
      }
    })
  }

  test('every file broken on purpose is shown failing', () => {
    const failing = new Set(outputs.map((block) => block.options.config ?? block.name))
    const bad = blocks.filter((block) => block.kind === 'guide-bad-config')
    assert.ok(bad.length > 0, 'no <!-- guide-bad-config -->')
    assert.deepEqual(bad.filter((block) => !failing.has(block.name)).map((block) => block.where), [])
  })
})
