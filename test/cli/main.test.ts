import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
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

describe('a token given where a path goes (--token-file "$TOKEN", --config "$TOKEN"...)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'feast-authz-misplaced-token-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })
  // No auth: nothing here reaches a provider. An OIDC section alone makes `token` read the service-account file.
  const server = join(dir, 'server.yaml')
  writeFileSync(server, 'project: demo\nauth:\n  type: no_auth\n')
  const client = join(dir, 'client.yaml')
  writeFileSync(client, 'project: demo\nauth:\n  type: oidc\n')
  const FEATURESTORE = 'fixtures/operator/featurestore-noauth.yaml'

  // A JWT longer than a file name may be (ENAMETOOLONG, whose message quotes the path), and an
  // opaque token short enough to be one (file not found).
  const claims = Buffer.from(JSON.stringify({ sub: 'do-not-print-me', scope: 'x'.repeat(300) })).toString('base64url')
  const tokens = {
    'a JWT': `eyJhbGciOiJSUzI1NiJ9.${claims}.c2lnbmF0dXJlLWRvLW5vdC1wcmludC1tZQ`,
    'an opaque token': 'ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5'
  }
  const places: Record<string, (token: string) => string[]> = {
    'inspect --token-file': (token) => ['inspect', '--token-file', token],
    'inspect --config': (token) => ['inspect', '--config', token, '--token', 'x.y.z'],
    'check --permissions': (token) => ['check', '--permissions', token, '--principal', '{}', '--resource', 'FeatureView:v', '--action', 'READ'],
    'check --token-file': (token) => ['check', '--permissions', 'fixtures/permissions/sample.yaml', '--config', server, '--token-file', token, '--resource', 'FeatureView:v', '--action', 'READ'],
    'check --resource': (token) => ['check', '--permissions', 'fixtures/permissions/sample.yaml', '--principal', '{}', '--resource', token, '--action', 'READ'],
    'check --action': (token) => ['check', '--permissions', 'fixtures/permissions/sample.yaml', '--principal', '{}', '--resource', 'FeatureView:v', '--action', token],
    'check --tag': (token) => ['check', '--permissions', 'fixtures/permissions/sample.yaml', '--principal', '{}', '--resource', 'FeatureView:v', '--tag', token, '--action', 'READ'],
    'token --config': (token) => ['token', '--config', token],
    'token --service-account-token-file': (token) => ['token', '--config', client, '--service-account-token-file', token],
    'serve --config': (token) => ['serve', '--config', token],
    'serve --permissions': (token) => ['serve', '--config', server, '--permissions', token, '--port', '0'],
    'serve --registry (a Feast registry)': (token) => ['serve', '--config', server, '--registry', token],
    'serve --registry (a registry YAML)': (token) => ['serve', '--config', server, '--registry', `${token}.yaml`],
    'registry show --config': (token) => ['registry', 'show', '--config', token],
    'operator render --resource': (token) => ['operator', 'render', '--resource', token],
    'operator render --secret': (token) => ['operator', 'render', '--resource', FEATURESTORE, '--secret', token],
    'operator render --base': (token) => ['operator', 'render', '--resource', FEATURESTORE, '--base', token]
  }

  for (const [place, argv] of Object.entries(places)) {
    for (const [kind, token] of Object.entries(tokens)) {
      test(`${place}: ${kind} there is refused without being printed`, async () => {
        const { code, stdout, stderr } = await feastAuthz(...argv(token))
        assert.equal(code, place === 'token --service-account-token-file' ? 1 : 2, stderr)
        assert.equal(stdout, '')
        assert.match(stderr, /not shown: it may be a token/)
        // Any 12 characters of the token's secret part would be too many.
        const secret = token.slice(token.indexOf('_') + 1)
        for (let at = 0; at + 12 <= secret.length; at += 6) assert.ok(!stderr.includes(secret.slice(at, at + 12)), `${secret.slice(at, at + 12)} printed: ${stderr}`)
      })
    }
  }
})
