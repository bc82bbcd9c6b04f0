import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { parse } from 'yaml'
import { main } from '../../../src/cli/main.ts'
import { runCli, runInProcess } from '../../helpers/cli.ts'
import { DOCS, markedBlocks, type MarkedBlock } from '../../helpers/markdown.ts'

// What docs/troubleshooting.md shows a command printing is what it prints: the page's
// feature_store.yaml is used as written, except that its provider's origin (or, in kubernetes
// mode, the API server of the kubeconfig, named by the marker) is a loopback port nobody listens
// on, which the output then names in place of the page's host.

const blocks = markedBlocks(join(DOCS, 'troubleshooting.md'))
const configs = new Map(blocks.filter((block) => block.kind === 'guide-config').map((block) => [block.name, block]))
const outputs = blocks.filter((block) => block.kind === 'guide-output')
const dir = mkdtempSync(join(tmpdir(), 'feast-authz-troubleshooting-'))
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

/** The page's origin the refusing port stands for, and how the command runs. */
function setUp (block: MarkedBlock, auth: Auth): { origin: string, run: Run } {
  if (auth.type !== 'kubernetes') return { origin: new URL(auth.auth_discovery_url ?? '').origin, run: async (args) => await runInProcess(main, args) }
  assert.ok(block.options.server !== undefined, `${block.where}: a kubernetes output names the kubeconfig's API server (server=HOST:PORT)`)
  // The cluster connection is found in the process's environment: a process of its own, with a HOME of nothing.
  return { origin: `https://${block.options.server}`, run: async (args) => await runCli(args, { env: { HOME: dir, KUBECONFIG } }) }
}

describe('the output shown in docs/troubleshooting.md', () => {
  test('the page shows the output of an unreachable provider', () => {
    assert.ok(outputs.some((block) => block.name === 'provider-unreachable'), 'no <!-- guide-output: provider-unreachable -->')
  })

  test('the page shows the output of an unreachable Kubernetes API server', () => {
    assert.ok(outputs.some((block) => block.name === 'cluster-unreachable'), 'no <!-- guide-output: cluster-unreachable -->')
  })

  for (const block of outputs) {
    test(`${block.where}: is exactly what the command prints on stderr, and it exits 3`, async () => {
      const config = configs.get(block.options.config ?? block.name)
      assert.ok(config !== undefined, `${block.where}: no <!-- guide-config: ${block.options.config ?? block.name} -->`)
      const { origin, run } = setUp(block, (parse(config.text) as { auth: Auth }).auth)
      const configPath = join(dir, `${block.name}.yaml`)
      const tokenPath = join(dir, `${block.name}.jwt`)
      writeFileSync(configPath, config.text.split(origin).join(REFUSING))
      writeFileSync(tokenPath, TOKEN)
      const { args, printed } = commandOf(block)
      const files: Record<string, string> = { 'feature_store.yaml': configPath, 'token.jwt': tokenPath }
      const { code, stdout, stderr } = await run(args.map((arg) => files[arg] ?? arg))
      assert.equal(code, 3)
      assert.equal(stdout, '')
      assert.equal(stderr.split(REFUSING).join(origin), `${printed}\n`)
    })
  }
})
