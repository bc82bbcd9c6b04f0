import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { parse } from 'yaml'
import { main } from '../../../src/cli/main.ts'
import { runInProcess } from '../../helpers/cli.ts'
import { DOCS, markedBlocks, type MarkedBlock } from '../../helpers/markdown.ts'

// What docs/troubleshooting.md shows a command printing is what it prints: the page's
// feature_store.yaml is used as written, except that its provider's origin is a loopback port
// nobody listens on, which the output then names in place of the page's host.

const blocks = markedBlocks(join(DOCS, 'troubleshooting.md'))
const configs = new Map(blocks.filter((block) => block.kind === 'guide-config').map((block) => [block.name, block]))
const outputs = blocks.filter((block) => block.kind === 'guide-output')
const dir = mkdtempSync(join(tmpdir(), 'feast-authz-troubleshooting-'))
// Port 9 (discard) on loopback: nothing listens, so the connection is refused at once.
const REFUSING = 'https://127.0.0.1:9'
// Any compact JWS: the provider is asked for its keys before the signature is looked at.
const TOKEN = `${Buffer.from('{"alg":"RS256","kid":"k"}').toString('base64url')}.${Buffer.from('{"sub":"alice"}').toString('base64url')}.c2ln`

function commandOf (block: MarkedBlock): { args: string[], printed: string } {
  const lines = block.text.split('\n')
  const command = lines[0] ?? ''
  assert.match(command, /^feast-authz /, `${block.where}: the block starts with the command`)
  return { args: command.split(/\s+/).slice(1), printed: lines.slice(1).map((line) => line.replace(/^# /, '')).join('\n') }
}

describe('the output shown in docs/troubleshooting.md', () => {
  test('the page shows the output of an unreachable provider', () => {
    assert.ok(outputs.some((block) => block.name === 'provider-unreachable'), 'no <!-- guide-output: provider-unreachable -->')
  })

  for (const block of outputs) {
    test(`${block.where}: is exactly what the command prints on stderr, and it exits 3`, async () => {
      const config = configs.get(block.options.config ?? block.name)
      assert.ok(config !== undefined, `${block.where}: no <!-- guide-config: ${block.options.config ?? block.name} -->`)
      const origin = new URL((parse(config.text) as { auth: { auth_discovery_url: string } }).auth.auth_discovery_url).origin
      const configPath = join(dir, `${block.name}.yaml`)
      const tokenPath = join(dir, `${block.name}.jwt`)
      writeFileSync(configPath, config.text.split(origin).join(REFUSING))
      writeFileSync(tokenPath, TOKEN)
      const { args, printed } = commandOf(block)
      const files: Record<string, string> = { 'feature_store.yaml': configPath, 'token.jwt': tokenPath }
      const { code, stdout, stderr } = await runInProcess(main, args.map((arg) => files[arg] ?? arg))
      assert.equal(code, 3)
      assert.equal(stdout, '')
      assert.equal(stderr.split(REFUSING).join(origin), `${printed}\n`)
    })
  }
})
