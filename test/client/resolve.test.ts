import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { decodeProtectedHeader } from 'jose'
import { TokenSourceError } from '../../src/client/errors.ts'
import { createTokenProvider, type ResolvedToken } from '../../src/client/token-provider.ts'
import { loadClientAuthConfig } from '../../src/client/validate.ts'
import { ConfigError } from '../../src/config/errors.ts'
import { verifyIntraToken } from '../../src/base/intra-token.ts'
import { REPO } from '../helpers/markdown.ts'
import { namedPipe } from '../helpers/named-pipe.ts'

const INTRA = randomBytes(32).toString('base64')
let dir: string
let saFile: string
const missingFile = (): string => join(dir, 'absent', 'token')

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'feast-authz-client-'))
  saFile = join(dir, 'sa-token')
  await writeFile(saFile, 'sa-file-token\n')
})
after(async () => { await rm(dir, { recursive: true, force: true }) })

async function resolve (auth: Record<string, unknown>, env: NodeJS.ProcessEnv, saPath = saFile): Promise<ResolvedToken | undefined> {
  const provider = createTokenProvider(loadClientAuthConfig({ auth }), { env, serviceAccountTokenPath: saPath })
  try {
    return await provider.resolve()
  } finally {
    provider.close()
  }
}

async function failsWith (auth: Record<string, unknown>, env: NodeJS.ProcessEnv, code: string, message: RegExp, saPath = missingFile()): Promise<void> {
  await assert.rejects(resolve(auth, env, saPath), (error: unknown) => {
    assert.ok(error instanceof TokenSourceError)
    assert.equal(error.code, code)
    assert.match(error.message, message)
    return true
  })
}

describe('oidc client token resolution', () => {
  const everyEnv = { SERVICE_OIDC_TOKEN: 'service-env', FEAST_OIDC_TOKEN: 'feast-env', MY_TOKEN: 'named-env' }

  it('sends a signed intra token first when INTRA_COMMUNICATION_BASE64 is set', async () => {
    const resolved = await resolve({ type: 'oidc', token: 'static' }, { ...everyEnv, INTRA_COMMUNICATION_BASE64: INTRA })
    assert.equal(resolved?.source, 'intra')
    assert.equal(decodeProtectedHeader(resolved.token).typ, 'feast-intra+jwt')
    await verifyIntraToken(resolved.token, new Uint8Array(Buffer.from(INTRA, 'base64')))
  })

  it('refuses to mint with an unusable intra secret (a configuration error, not a fall-through)', async () => {
    await assert.rejects(resolve({ type: 'oidc', token: 'static' }, { INTRA_COMMUNICATION_BASE64: 'c2hvcnQ=' }), ConfigError)
  })

  it('uses token from the configuration before any environment variable or file', async () => {
    assert.deepEqual(await resolve({ type: 'oidc', token: 'static' }, everyEnv), { token: 'static', source: 'token' })
  })

  it('uses the variable named by token_env_var before the fallbacks', async () => {
    assert.deepEqual(await resolve({ type: 'oidc', token_env_var: 'MY_TOKEN' }, everyEnv), { token: 'named-env', source: 'token_env_var' })
  })

  it('fails, naming the variable, when token_env_var names an unset variable, even if fallbacks exist', async () => {
    await failsWith({ type: 'oidc', token_env_var: 'MY_CUSTOM_VAR' }, { SERVICE_OIDC_TOKEN: 'x', FEAST_OIDC_TOKEN: 'y' }, 'env_var_unset', /token_env_var='MY_CUSTOM_VAR' is configured but the environment variable MY_CUSTOM_VAR is not set or is empty/, saFile)
  })

  it('does not repeat a token_env_var that is not in upper case when its variable is unset (it may be the token itself)', async () => {
    await failsWith({ type: 'oidc', token_env_var: 'ghp_doNotPrintMe0123' }, {}, 'env_var_unset',
      /^token_env_var is configured but the environment variable it names is not set or is empty \(its name is not shown: it is not in upper case, as variable names are by convention, and may be the token itself, which goes under `token`\)$/, saFile)
  })

  it('treats an empty token_env_var variable as unset', async () => {
    await failsWith({ type: 'oidc', token_env_var: 'MY_TOKEN' }, { MY_TOKEN: '' }, 'env_var_unset', /MY_TOKEN/)
  })

  it('uses SERVICE_OIDC_TOKEN before FEAST_OIDC_TOKEN and the service-account file', async () => {
    assert.deepEqual(await resolve({ type: 'oidc' }, everyEnv), { token: 'service-env', source: 'SERVICE_OIDC_TOKEN' })
  })

  it("accepts FEAST_OIDC_TOKEN, the name Feast's Python client reads, before the service-account file", async () => {
    assert.deepEqual(await resolve({ type: 'oidc' }, { FEAST_OIDC_TOKEN: 'feast-env' }), { token: 'feast-env', source: 'FEAST_OIDC_TOKEN' })
  })

  it('falls back to the service-account token file, trimmed', async () => {
    assert.deepEqual(await resolve({ type: 'oidc' }, {}), { token: 'sa-file-token', source: 'service_account_file' })
  })

  it('fails with every option listed when nothing yields a token', async () => {
    await failsWith({ type: 'oidc' }, {}, 'no_token_source', /no OIDC token source configured: .*`token`, `token_env_var` or `client_secret`.*SERVICE_OIDC_TOKEN or FEAST_OIDC_TOKEN.*service-account token at .*absent\/token/)
  })

  it('skips an empty service-account file', async () => {
    const empty = join(dir, 'empty-token')
    await writeFile(empty, '  \n')
    await failsWith({ type: 'oidc' }, {}, 'no_token_source', /no OIDC token source/, empty)
  })
})

describe('kubernetes client token resolution', () => {
  it('sends a signed intra token first when INTRA_COMMUNICATION_BASE64 is set', async () => {
    assert.equal((await resolve({ type: 'kubernetes', user_token: 'explicit' }, { INTRA_COMMUNICATION_BASE64: INTRA }))?.source, 'intra')
  })

  it('uses user_token before the service-account file and LOCAL_K8S_TOKEN', async () => {
    assert.deepEqual(await resolve({ type: 'kubernetes', user_token: 'explicit' }, { LOCAL_K8S_TOKEN: 'local' }), { token: 'explicit', source: 'user_token' })
  })

  it('uses the service-account file before LOCAL_K8S_TOKEN', async () => {
    assert.deepEqual(await resolve({ type: 'kubernetes' }, { LOCAL_K8S_TOKEN: 'local' }), { token: 'sa-file-token', source: 'service_account_file' })
  })

  it('re-reads the service-account file on every call, so a rotated token is picked up', async () => {
    const rotating = join(dir, 'rotating-token')
    await writeFile(rotating, 'first')
    const provider = createTokenProvider({ type: 'kubernetes', token_review_cache_ttl_seconds: 60 }, { env: {}, serviceAccountTokenPath: rotating })
    assert.equal(await provider.getToken(), 'first')
    await writeFile(rotating, 'second')
    assert.equal(await provider.getToken(), 'second')
  })

  it('uses token_path before the pod\'s service-account file', async () => {
    const projected = join(dir, 'projected-token')
    await writeFile(projected, 'audience-bound\n')
    assert.deepEqual(await resolve({ type: 'kubernetes', token_path: projected }, {}), { token: 'audience-bound', source: 'token_path' })
  })

  it('picks up a token_path file the kubelet rotated by swapping in a new file', async () => {
    const projected = join(dir, 'rotated-projected-token')
    await writeFile(projected, 'before-rotation')
    const provider = createTokenProvider(loadClientAuthConfig({ auth: { type: 'kubernetes', token_path: projected } }), { env: {}, serviceAccountTokenPath: saFile })
    assert.equal(await provider.getToken(), 'before-rotation')
    await writeFile(`${projected}.new`, 'after-rotation')
    await rename(`${projected}.new`, projected)
    assert.equal(await provider.getToken(), 'after-rotation')
  })

  it('fails, never falls through, when token_path names a missing file', async () => {
    await failsWith({ type: 'kubernetes', token_path: missingFile() }, { LOCAL_K8S_TOKEN: 'local' }, 'token_file_unreadable', /^token_path is .*absent.*, which cannot be read: file not found \(is the projected token volume mounted there\?\)$/, saFile)
  })

  it('fails, naming the file, when token_path names a named pipe, instead of waiting for a writer', async () => {
    const pipe = namedPipe(dir, 'token-pipe')
    try {
      await failsWith({ type: 'kubernetes', token_path: pipe.path }, {}, 'token_file_unreadable', /^token_path is .*token-pipe, which cannot be read: is a named pipe \(FIFO\), expected a file$/)
    } finally {
      pipe.close()
    }
  })

  it('fails, naming the bound, when token_path names a file of more than 64 KiB', async () => {
    const large = join(dir, 'large-projected-token')
    await writeFile(large, 'x'.repeat(64 * 1024 + 1))
    await failsWith({ type: 'kubernetes', token_path: large }, {}, 'token_file_unreadable', /^token_path is .*large-projected-token, which cannot be read: it holds more than the 65536 bytes a token file may have$/)
  })

  it('fails, naming the bound, when the service-account file has more than 64 KiB', async () => {
    const large = join(dir, 'large-sa-token')
    await writeFile(large, 'x'.repeat(64 * 1024 + 1))
    await failsWith({ type: 'kubernetes' }, {}, 'service_account_file_unreadable', /^cannot read the service-account token .*large-sa-token: it holds more than the 65536 bytes a token file may have$/, large)
  })

  it('uses LOCAL_K8S_TOKEN when the service-account file exists but cannot be read, as Feast\'s client does', async () => {
    // A directory stands for any unreadable file (EACCES cannot be staged when tests run as root).
    const unreadable = await mkdtemp(join(dir, 'unreadable-'))
    assert.deepEqual(await resolve({ type: 'kubernetes' }, { LOCAL_K8S_TOKEN: 'local' }, unreadable), { token: 'local', source: 'LOCAL_K8S_TOKEN' })
  })

  it('reports the unreadable service-account file when LOCAL_K8S_TOKEN is not set either', async () => {
    const unreadable = await mkdtemp(join(dir, 'unreadable-'))
    await failsWith({ type: 'kubernetes' }, {}, 'service_account_file_unreadable', /cannot read the service-account token .*unreadable-.*: is a directory, expected a file/, unreadable)
  })

  it('gives way to LOCAL_K8S_TOKEN when the service-account file is empty, where Feast\'s client would send an empty token', async () => {
    const empty = join(dir, 'empty-sa-token')
    await writeFile(empty, '\n')
    assert.deepEqual(await resolve({ type: 'kubernetes' }, { LOCAL_K8S_TOKEN: 'local' }, empty), { token: 'local', source: 'LOCAL_K8S_TOKEN' })
  })

  // A service-account token is some 900 characters: as a path, it is too long a name (ENAMETOOLONG),
  // and Node's error for it repeats it in its message and its `path`.
  const pastedToken = `eyJhbGciOiJSUzI1NiJ9.${'eyJzdWIiOiJzeXN0ZW0'.repeat(30)}.${'c2lnbmF0dXJl'.repeat(30)}`
  const showsNothingOf = (token: string) => (error: unknown): boolean => {
    assert.ok(error instanceof TokenSourceError)
    assert.ok(!inspect(error, { depth: 10 }).includes(token.slice(0, 40)), inspect(error, { depth: 10 }))
    return true
  }

  it('keeps a token given as token_path out of the error, its cause included', async () => {
    await assert.rejects(resolve({ type: 'kubernetes', token_path: pastedToken }, {}), showsNothingOf(pastedToken))
  })

  it('keeps a token given as the service-account file\'s path out of the error, its cause included', async () => {
    await assert.rejects(resolve({ type: 'kubernetes' }, {}, pastedToken), showsNothingOf(pastedToken))
  })

  it('uses LOCAL_K8S_TOKEN outside a pod', async () => {
    assert.deepEqual(await resolve({ type: 'kubernetes' }, { LOCAL_K8S_TOKEN: 'local' }, missingFile()), { token: 'local', source: 'LOCAL_K8S_TOKEN' })
  })

  it('fails with a clear message when no source yields a token', async () => {
    await failsWith({ type: 'kubernetes' }, {}, 'no_token_source', /no Kubernetes token: set `user_token`.*LOCAL_K8S_TOKEN/)
  })
})

describe('no_auth client', () => {
  it('sends no token, even with INTRA_COMMUNICATION_BASE64 set', async () => {
    assert.equal(await resolve({ type: 'no_auth' }, { INTRA_COMMUNICATION_BASE64: INTRA, SERVICE_OIDC_TOKEN: 'x' }), undefined)
  })
})

describe('token provider options', () => {
  it('refuses a NaN timeout, which would never bound a provider request, with the option named', () => {
    assert.throws(() => createTokenProvider({ type: 'no_auth' }, { timeoutMs: Number.NaN }), {
      name: 'OptionError',
      option: 'timeoutMs',
      message: 'feast-authz: createTokenProvider: timeoutMs must be a number of milliseconds from 1 to 2147483647, got NaN'
    })
  })

  it('refuses a failure pause below 0 or above the 30 s cap, with the option named and the range', () => {
    for (const value of [-1, 30_001, Number.NaN]) {
      assert.throws(() => createTokenProvider({ type: 'no_auth' }, { failurePauseMs: value }), {
        name: 'OptionError',
        option: 'failurePauseMs',
        message: `feast-authz: createTokenProvider: failurePauseMs must be a number of milliseconds from 0 to 30000, got ${String(value)}`
      })
    }
  })

  it('refuses an empty service-account token path and a clock that is not a function', () => {
    assert.throws(() => createTokenProvider({ type: 'no_auth' }, { serviceAccountTokenPath: '' }), { name: 'OptionError', option: 'serviceAccountTokenPath' })
    assert.throws(() => createTokenProvider({ type: 'no_auth' }, { now: 5 as never }), { name: 'OptionError', option: 'now' })
  })
})

describe('the kubernetes token order in the docs', () => {
  /** How each source is named in the docs, in the order they are named. */
  const LABELS: Readonly<Record<string, string>> = {
    intra: 'INTRA_COMMUNICATION_BASE64',
    user_token: '`user_token`',
    token_path: '`token_path`',
    service_account_file: 'service-account token file',
    LOCAL_K8S_TOKEN: '`LOCAL_K8S_TOKEN`'
  }

  /** The order the provider really tries: offer every source, then take the winner away, until none is left. */
  async function triedOrder (): Promise<string[]> {
    const projected = join(dir, 'order-projected-token')
    await writeFile(projected, 'projected')
    const auth: Record<string, unknown> = { type: 'kubernetes', user_token: 'explicit', token_path: projected }
    const env: NodeJS.ProcessEnv = { INTRA_COMMUNICATION_BASE64: INTRA, LOCAL_K8S_TOKEN: 'local' }
    let saPath = saFile
    const order: string[] = []
    for (;;) {
      const source = (await resolve(auth, env, saPath).catch(() => undefined))?.source
      if (source === undefined) return order
      order.push(source)
      if (source === 'intra') delete env.INTRA_COMMUNICATION_BASE64
      else if (source === 'LOCAL_K8S_TOKEN') delete env.LOCAL_K8S_TOKEN
      else if (source === 'service_account_file') saPath = missingFile()
      else delete auth[source]
    }
  }

  it('docs/client.md lists the kubernetes client\'s sources in the order the provider tries them', async () => {
    const order = await triedOrder()
    assert.deepEqual(Object.keys(LABELS).sort(), [...order].sort(), 'every source the provider tries has a label here')
    const text = readFileSync(join(REPO, 'docs/client.md'), 'utf8')
    const section = text.slice(text.indexOf('### `auth.type: kubernetes`'), text.indexOf('### `auth.type: no_auth`'))
    const rows = section.split('\n').filter((line) => /^\| \d+ \|/.test(line))
    const documented = rows.map((row) => order.find((source) => row.includes(LABELS[source] as string)) ?? `unlabelled row: ${row.slice(0, 40)}`)
    assert.deepEqual(documented, order)
  })

  it('docs/kubernetes.md names the kubernetes client\'s sources in the order the provider tries them', async () => {
    const order = (await triedOrder()).filter((source) => source !== 'intra')
    const text = readFileSync(join(REPO, 'docs/kubernetes.md'), 'utf8')
    const start = text.indexOf("The client's token order in kubernetes mode is")
    assert.ok(start >= 0, 'docs/kubernetes.md states the order')
    const sentence = text.slice(start, text.indexOf('(see', start))
    const named = order.filter((source) => sentence.includes(LABELS[source] as string))
    assert.deepEqual(named, order, 'every source is named')
    assert.deepEqual([...named].sort((a, b) => sentence.indexOf(LABELS[a] as string) - sentence.indexOf(LABELS[b] as string)), order)
  })
})
