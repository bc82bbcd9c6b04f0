import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, test } from 'node:test'
import { forbidden, rejectionFor } from '../../../src/adapters/challenge.ts'
import { main, usage } from '../../../src/cli/main.ts'
import { runInProcess } from '../../helpers/cli.ts'
import { AuthError, type AuthErrorCode } from '../../../src/base/errors.ts'
import { loadAuthConfig } from '../../../src/config/auth-config.ts'
import { parsePermissionsYaml } from '../../../src/permissions/yaml.ts'
import { commandLines, DOCS, fences, markedBlocks, ownedDocs, relativeToRepo, REPO } from '../../helpers/markdown.ts'

// The command lines and error codes the guides tell people to use must exist: every
// `feast-authz ...` line names a real command and only flags its --help lists, and the
// troubleshooting table lists exactly the codes the server can answer with.

/** Command names, from the CLI's own usage text. */
const COMMANDS = [...usage().matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((match) => match[1] as string)

async function helpOf (command: string): Promise<string> {
  const { code, stdout } = await runInProcess(main, [command, '--help'])
  assert.equal(code, 0, `feast-authz ${command} --help failed`)
  return stdout
}

// Every page's command lines, but those of performance.md (measurements) and security.md, which quotes wrong ones on purpose.
const UNCHECKED_PAGES = new Set(['performance.md', 'security.md'])
const pages = [...new Set([...ownedDocs(), ...readdirSync(DOCS).filter((name) => name.endsWith('.md') && !UNCHECKED_PAGES.has(name)).map((name) => join(DOCS, name))])]

describe('command lines in the guides', () => {
  const lines = pages.flatMap(commandLines)

  test('the CLI lists its commands in its usage text', () => {
    assert.ok(COMMANDS.includes('inspect') && COMMANDS.includes('check'), usage())
  })

  test('the troubleshooting guide gives an inspect command and a check command', () => {
    const own = lines.filter(({ where }) => where.startsWith('docs/troubleshooting.md'))
    assert.ok(own.some(({ line }) => line.startsWith('feast-authz inspect ')))
    assert.ok(own.some(({ line }) => line.startsWith('feast-authz check ')))
  })

  test('every feast-authz command line names an existing command and only flags its --help lists', async () => {
    assert.ok(lines.length > 0)
    const helps = new Map<string, string>()
    for (const { line, where } of lines) {
      const words = line.split(/\s+/)
      const command = words[1] ?? ''
      assert.ok(COMMANDS.includes(command), `${where}: unknown command "${command}" in: ${line}`)
      const help = helps.get(command) ?? await helpOf(command)
      helps.set(command, help)
      for (const flag of words.filter((word) => word.startsWith('--')).map((word) => word.replace(/=.*$/, ''))) {
        assert.ok(new RegExp(`${flag}(?![\\w-])`).test(help), `${where}: feast-authz ${command} has no flag ${flag}`)
      }
    }
  })

  test('every inspect command line passes a configuration and a token, as inspect requires', () => {
    // A bare `feast-authz inspect` in the prose names the command; lines with arguments must be runnable.
    for (const { line, where } of lines.filter(({ line }) => line.startsWith('feast-authz inspect '))) {
      assert.match(line, /--config \S+/, where)
      assert.match(line, /--token(-file)? \S+/, where)
    }
  })
})

describe('exit-code tables in the guides', () => {
  const docs = [...new Set([...readdirSync(DOCS).filter((name) => name.endsWith('.md')).map((name) => join(DOCS, name)), ...ownedDocs()])]
  const tables = docs.flatMap((doc) => readFileSync(doc, 'utf8').split(/\n(?=\| (?:exit|code) \|)/).slice(1)
    .map((rest) => ({ where: relativeToRepo(doc), rows: [...(rest.split('\n\n')[0] ?? '').matchAll(/^\| (\d) \| (.*)$/gm)].map((row) => ({ code: Number(row[1]), text: row[2] as string })) })))

  test('give exit 3, and only 3, to an identity provider or API that could not be reached, as every --help does', () => {
    assert.ok(tables.length >= 2, `found only ${tables.length} exit-code tables`)
    for (const { where, rows } of tables) {
      assert.ok(rows.some((row) => row.code === 3), `${where}: no row for exit 3 (could not decide)`)
      for (const row of rows.filter((candidate) => /could not be reached/.test(candidate.text))) assert.equal(row.code, 3, `${where}: ${row.text}`)
    }
  })
})

describe('error codes in the troubleshooting guide', () => {
  /** The codes the server can answer with: every AuthErrorCode, plus the adapters' own 403 and 500. */
  const serverCodes = (): string[] => {
    const errors = readFileSync(join(REPO, 'src/base/errors.ts'), 'utf8')
    const union = /export type AuthErrorCode =([^]*?)\n\n/.exec(errors)?.[1] ?? ''
    const challenge = readFileSync(join(REPO, 'src/adapters/challenge.ts'), 'utf8')
    return [...union.matchAll(/'([a-z_]+)'/g), ...challenge.matchAll(/code: '([a-z_]+)'/g)].map((match) => match[1] as string)
  }

  const documentedCodes = (): Map<string, number> => {
    const text = readFileSync(join(DOCS, 'troubleshooting.md'), 'utf8')
    const table = text.split('<!-- error-codes -->')[1]?.trimStart().split('\n\n')[0] ?? ''
    return new Map([...table.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((match) => [match[2] as string, Number(match[1])]))
  }

  test('the table lists exactly the codes the server can answer with', () => {
    const server = serverCodes()
    assert.ok(server.includes('audience_mismatch') && server.includes('permission_denied'), 'could not read the codes from the sources')
    assert.deepEqual([...documentedCodes().keys()].sort(), [...new Set(server)].sort())
  })

  test('the table gives each code the status the server answers it with', () => {
    const statuses = documentedCodes()
    for (const [code, status] of statuses) {
      const expected = code === 'permission_denied'
        ? forbidden('denied', 'feast').status
        : code === 'internal_error' ? rejectionFor(new Error('bug'), 'feast').status : new AuthError(code as AuthErrorCode, 'x').status
      assert.equal(status, expected, code)
    }
  })
})

describe('links in the guides', () => {
  /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
  const anchors = (file: string): Set<string> => new Set(readFileSync(file, 'utf8').split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#+ /, '').trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')))

  for (const doc of ownedDocs()) {
    test(`${relativeToRepo(doc)}: every relative link names an existing file and heading`, () => {
      const text = readFileSync(doc, 'utf8')
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target as string)) continue
        const [path, anchor] = (target as string).split('#') as [string, string | undefined]
        const file = path === '' ? doc : join(dirname(doc), path)
        assert.ok(existsSync(file), `${relativeToRepo(doc)}: link to missing ${target}`)
        if (anchor !== undefined) assert.ok(anchors(file).has(anchor), `${relativeToRepo(doc)}: no heading #${anchor} in ${relativeToRepo(file)}`)
      }
    })
  }
})

describe('YAML in the guides', () => {
  // A file broken on purpose (<!-- guide-bad-config -->) is shown failing: the troubleshooting test checks it.
  const brokenOnPurpose = new Set(ownedDocs().flatMap(markedBlocks).filter((block) => block.kind === 'guide-bad-config')
    .map((block) => { const [file, line] = block.where.split(':'); return `${file}:${Number(line) + 1}` }))
  const yamlBlocks = ownedDocs().flatMap((doc) => fences(readFileSync(doc, 'utf8'))
    .filter((fence) => fence.language === 'yaml')
    .map((fence) => ({ text: fence.text, where: `${relativeToRepo(doc)}:${fence.line}` })))
    .filter(({ where }) => !brokenOnPurpose.has(where))

  test('every permissions example is a valid permissions file', () => {
    const lists = yamlBlocks.filter(({ text }) => /^\s*(#.*\n)*- name:/m.test(text) && !/^auth:/m.test(text))
    assert.ok(lists.length >= 6, `found only ${lists.length} permissions examples`)
    for (const { text, where } of lists) {
      assert.doesNotThrow(() => parsePermissionsYaml(text, where), where)
    }
  })

  test('every auth section shown, marked or not, is a valid server configuration', () => {
    const configs = yamlBlocks.filter(({ text }) => /^auth:/m.test(text))
    assert.ok(configs.length >= 10, `found only ${configs.length} auth sections`)
    for (const { text, where } of configs) {
      assert.doesNotThrow(() => loadAuthConfig({ yaml: text, source: where }), where)
    }
  })
})
