/**
 * The examples of docs/permissions.md a newcomer copies first: the permissions in TypeScript, the
 * same in a permissions YAML file (and in fixtures/permissions/sample.yaml, which the page says
 * holds them), and the `feast-authz check` run with what it prints and its exit code.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { after, describe, test } from 'node:test'
import { main } from '../../../src/cli/main.ts'
import { parsePermissionsYaml, permissionsToYaml, type Permission } from '../../../src/permissions/index.ts'
import { runInProcess } from '../../helpers/cli.ts'
import { DOCS, markedBlocks, REPO } from '../../helpers/markdown.ts'

const PAGE = join(DOCS, 'permissions.md')
const blocks = markedBlocks(PAGE)
const dir = mkdtempSync(join(tmpdir(), 'feast-authz-permissions-doc-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

function example (name: string): string {
  const block = blocks.find((candidate) => candidate.kind === 'guide-example' && candidate.name === name)
  assert.ok(block !== undefined, `docs/permissions.md has no <!-- guide-example: ${name} -->`)
  return block.text
}

/** The example's `permissions`, its import pointed at the sources. */
async function permissionsInTypeScript (): Promise<readonly Permission[]> {
  const source = example('permissions-ts').replace(/from '([^']+)'/g, (_whole, specifier: string) => {
    assert.equal(specifier, 'feast-authz/permissions', `the example imports ${specifier}, which this test does not map`)
    return `from '${pathToFileURL(join(REPO, 'src/permissions/index.ts')).href}'`
  })
  const path = join(dir, 'permissions-example.mts')
  writeFileSync(path, source)
  return ((await import(pathToFileURL(path).href)) as { permissions: readonly Permission[] }).permissions
}

/** The `$ feast-authz check ...` line of the console example, as arguments (single-quoted words unquoted). */
function commandOf (text: string): { args: string[], printed: string[], exit: number } {
  const lines = text.split('\n')
  const end = lines.findIndex((line) => !line.trimEnd().endsWith('\\'))
  const command = lines.slice(0, end + 1).map((line) => line.replace(/\\$/, '').trim()).join(' ')
  assert.match(command, /^\$ feast-authz check /, 'the example starts with the command')
  const args = [...command.slice('$ feast-authz '.length).matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] as string)
  const echo = lines.indexOf('$ echo $?')
  assert.ok(echo > end, 'the example shows the exit code with echo $?')
  return { args, printed: lines.slice(end + 1, echo), exit: Number(lines[echo + 1]) }
}

describe('docs/permissions.md', () => {
  test('the permissions YAML example holds the permissions of fixtures/permissions/sample.yaml, as the page says', () => {
    const fixture = readFileSync(join(REPO, 'fixtures/permissions/sample.yaml'), 'utf8')
    assert.equal(permissionsToYaml(parsePermissionsYaml(example('permissions-yaml'), 'docs/permissions.md')), permissionsToYaml(parsePermissionsYaml(fixture, 'sample.yaml')))
  })

  test('the TypeScript example runs as written and builds the first three permissions of the YAML example', async () => {
    const inYaml = parsePermissionsYaml(example('permissions-yaml'), 'docs/permissions.md')
    assert.equal(permissionsToYaml(await permissionsInTypeScript()), permissionsToYaml(inYaml.slice(0, 3)))
  })

  test('feast-authz check prints what the console example shows, and exits as it shows', async () => {
    const { args, printed, exit } = commandOf(example('check-deny'))
    const run = await runInProcess(main, args.map((arg) => arg.startsWith('fixtures/') ? join(REPO, arg) : arg))
    assert.equal(run.code, exit, run.stderr)
    const output = JSON.parse(run.stdout) as Record<string, unknown> & { explanation: Array<{ permission: string }> }
    // Each line shown is one field or one verdict; "..." stands for what the page leaves out.
    for (const line of printed.map((text) => text.trim().replace(/,$/, ''))) {
      const verdict = /^\{"permission"/.test(line) ? JSON.parse(line) as { permission: string } : undefined
      if (verdict !== undefined) {
        assert.deepEqual(output.explanation.find((entry) => entry.permission === verdict.permission), verdict)
        continue
      }
      const field = /^"(\w+)": (.+)$/.exec(line)
      if (field === null || field[1] === 'explanation') continue
      const shown = JSON.parse(field[2] as string) as unknown
      const actual = output[field[1] as string]
      if (typeof shown === 'string' && shown.endsWith('...)')) assert.ok(String(actual).startsWith(shown.slice(0, -4)), `${field[1]}: ${String(actual)}`)
      else assert.deepEqual(actual, shown, field[1])
    }
  })

  test('with --tag team=drivers, as the page says next, driver-readers applies and the decision is allow', async () => {
    const { args } = commandOf(example('check-deny'))
    const run = await runInProcess(main, [...args.map((arg) => arg.startsWith('fixtures/') ? join(REPO, arg) : arg), '--tag', 'team=drivers'])
    assert.equal(run.code, 0, run.stderr)
    const output = JSON.parse(run.stdout) as { decision: string, explanation: Array<{ permission: string, applied: boolean }> }
    assert.equal(output.decision, 'allow')
    assert.equal(output.explanation.find((entry) => entry.permission === 'driver-readers')?.applied, true)
  })
})
