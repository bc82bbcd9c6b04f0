import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { main } from '../../src/cli/main.ts'
import { runInProcess } from '../helpers/cli.ts'

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

async function feastAuthz (...argv: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  return await runInProcess(main, argv)
}

describe('feast-authz (the command dispatcher)', () => {
  test('--version prints the package version and exits 0', async () => {
    assert.deepEqual(await feastAuthz('--version'), { code: 0, stdout: `${VERSION}\n`, stderr: '' })
  })

  test('a misspelt command exits 2 with a did-you-mean on one line', async () => {
    const { code, stdout, stderr } = await feastAuthz('inspct', '--token', 'x')
    assert.deepEqual([code, stdout], [2, ''])
    assert.equal(stderr, 'feast-authz: unknown command "inspct" (did you mean inspect?)\nRun `feast-authz --help` for the commands.\n')
  })

  test('a token given where the command goes exits 2 without printing it', async () => {
    const { code, stdout, stderr } = await feastAuthz('eyJhbGciOiJSUzI1NiJ9.do-not-print-me.c2ln')
    assert.deepEqual([code, stdout], [2, ''])
    assert.equal(stderr, 'feast-authz: unknown command (not shown: it may be a token)\nRun `feast-authz --help` for the commands.\n')
  })

  test('an unknown option before the command is named without its value', async () => {
    const { code, stderr } = await feastAuthz('--token=do-not-print-me')
    assert.equal(code, 2)
    assert.match(stderr, /^feast-authz: unknown option "--token"/)
    assert.doesNotMatch(stderr, /do-not-print-me/)
  })

  test('an unknown option before the command exits 2 naming it', async () => {
    const { code, stderr } = await feastAuthz('--versoin')
    assert.equal(code, 2)
    assert.match(stderr, /^feast-authz: unknown option "--versoin"/)
  })

  test('--help lists the commands and the exit codes every command uses', async () => {
    const { code, stdout } = await feastAuthz('--help')
    assert.equal(code, 0)
    assert.match(stdout, /^ {2}inspect +/m)
    assert.match(stdout, /Exit codes: 0 success or allowed, 1 rejected or denied, 2 usage or configuration error,\n3 could not decide/)
  })

  for (const command of ['inspect', 'check', 'token', 'serve', 'registry show', 'operator render']) {
    test(`${command}: every option an unknown-option error lists is in --help`, async () => {
      const words = command.split(' ')
      const { code, stderr } = await feastAuthz(...words, '--no-such-option')
      assert.equal(code, 2)
      const listed = /; options: (.*)$/m.exec(stderr)?.[1]?.split(', ') ?? []
      assert.ok(listed.length > 0, stderr)
      const { stdout: help } = await feastAuthz(...words, '--help')
      for (const option of listed.filter((name) => name !== '--help')) assert.match(help, new RegExp(`${option}(?![\\w-])`), `${option} is accepted but not in feast-authz ${command} --help`)
    })
  }

  for (const command of ['', 'inspect', 'check', 'token', 'serve', 'registry', 'registry show', 'operator', 'operator render']) {
    test(`feast-authz ${command}${command === '' ? '' : ' '}--help has no line longer than 90 characters, its usage line included`, async () => {
      const { code, stdout } = await feastAuthz(...command.split(' ').filter((word) => word !== ''), '--help')
      assert.equal(code, 0)
      assert.ok(stdout.startsWith('usage: feast-authz '), stdout)
      assert.deepEqual(stdout.split('\n').filter((line) => line.length > 90), [])
    })
  }

  for (const command of ['inspect', 'check', 'token', 'serve', 'registry', 'operator']) {
    test(`${command} --help states the exit codes`, async () => {
      const { code, stdout } = await feastAuthz(command, '--help')
      assert.equal(code, 0)
      assert.match(stdout, /[Ee]xit/)
    })
  }
})
