/**
 * `npm start`: a real OpenID provider and the reference feature server, both on 127.0.0.1,
 * with the sample permissions and data of fixtures/server/. Prints tokens for three users
 * with ready-to-run curl lines, then a table of what each user gets on each route, and keeps
 * serving until Ctrl-C. `--once` (or DEMO_ONCE=1) prints the table and exits.
 *
 * Everything printed on stdout is a shell script: commands as they are, the rest as comments,
 * so any line (or all of them) pastes into a shell.
 *
 * Environment: DEMO_PORT (server port, default any free one), DEMO_PROVIDER_PORT (the OpenID
 * provider's, likewise: pinned, a feature_store.yaml pointed at it outlives a restart), DEMO_LOG
 * (pino level of the server's log on stderr, default warn; `info` shows every permission decision).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stringify } from 'yaml'
import { createLogger } from '../src/base/logging.ts'
import { buildReferenceServer } from '../src/server/app.ts'
import { loadYamlCatalogFile } from '../src/server/catalog-yaml.ts'
import { readFeatureStoreFile } from '../src/config/feature-store-file.ts'
import { portNumber } from '../src/cli/args.ts'
import { startOidcProvider } from '../test/helpers/oidc-provider.ts'
import { PROBES, USERS, type DemoUser } from './probes.ts'

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/server/${name}`, import.meta.url))
const once = process.argv.includes('--once') || process.env.DEMO_ONCE === '1'
const out = (line = ''): void => { process.stdout.write(`${line}\n`) }
// Anything that is not a command is a comment, so that pasting it does no harm.
const note = (line = ''): void => { out(line === '' ? '' : `# ${line}`) }

// npm runs the demo through `sh -c`: when npm dies without passing a signal on (killed hard,
// its terminal gone), the shell may live on, and the server with it. Both ancestors are watched,
// as they are now: the parent may be gone before the server is up.
const ancestors = [process.ppid, parentOf(process.ppid)].filter((pid): pid is number => pid !== undefined && pid > 1)

const serverPort = portFromEnv('DEMO_PORT')
const provider = await listening('DEMO_PROVIDER_PORT', startOidcProvider({ port: portFromEnv('DEMO_PROVIDER_PORT') }))
for (const user of USERS) {
  if (user.roles === undefined) continue
  provider.addUser(user.name, `${user.name}-password`, {
    preferred_username: user.name,
    resource_access: { [provider.clientId]: { roles: [...user.roles] } }
  })
}

// The sample feature_store.yaml, pointed at the provider just started.
const { data } = readFeatureStoreFile(fixture('feature_store.yaml'))
const config = { ...data, auth: { type: 'oidc', client_id: provider.clientId, auth_discovery_url: provider.discoveryUrl } }
const app = await buildReferenceServer({
  config,
  permissions: fixture('permissions.yaml'),
  registry: loadYamlCatalogFile(fixture('registry.yaml')),
  pinoLogger: createLogger({ level: process.env.DEMO_LOG ?? 'warn' }, 2)
})
const url = await listening('DEMO_PORT', app.listen({ host: '127.0.0.1', port: serverPort }), async () => { await app.close(); await provider.close() })
// The server's auth section in a file of its own, for the CLI lines printed below (removed on stop).
const scratch = mkdtempSync(join(tmpdir(), 'feast-authz-demo-'))
const configFile = join(scratch, 'feature_store.yaml')
writeFileSync(configFile, stringify({ project: data.project, auth: config.auth }))

const tokens = new Map<DemoUser, string | undefined>()
for (const user of USERS) {
  tokens.set(user, user.roles === undefined ? undefined : await provider.issueForUser(user.name, undefined, { ttlSeconds: 3600 }))
}

note(`OpenID provider: ${provider.discoveryUrl}`)
note(`Feature server:  ${url}  (auth: oidc, permissions: fixtures/server/permissions.yaml, data: fixtures/server/registry.yaml)`)
out()
note('Tokens (valid for one hour): paste these lines into your shell.')
for (const user of USERS) {
  const token = tokens.get(user)
  if (token !== undefined) out(`export ${user.variable}=${token}  # ${user.label}`)
}
out()
note('Try:')
// -w '\n': each answer on a line of its own, not run into the next one or the prompt.
out(`curl -s -w '\\n' ${url}/api/v1/feature_views -H "Authorization: Bearer $READER_TOKEN"`)
out(`curl -s -w '\\n' ${url}/get-online-features -H "Authorization: Bearer $READER_TOKEN" -H 'content-type: application/json' \\`)
out(`  -d '${JSON.stringify(PROBES.find((probe) => probe.path === '/get-online-features')?.body)}'`)
out(`curl -s -w '\\n' ${url}/push -H "Authorization: Bearer $WRITER_TOKEN" -H 'content-type: application/json' \\`)
out(`  -d '${JSON.stringify(PROBES.find((probe) => probe.path === '/push')?.body)}'`)
out(`curl -s -w '\\n' ${url}/push -H "Authorization: Bearer $READER_TOKEN" -H 'content-type: application/json' \\`)
out(`  -d '${JSON.stringify(PROBES.find((probe) => probe.path === '/push')?.body)}'  # 403`)
out()
note('Ask the CLI what the server sees in a token, and why a request is denied:')
const configArg = /^[\w./-]+$/.test(configFile) ? configFile : `'${configFile.replaceAll("'", "'\\''")}'`
out(`npx feast-authz inspect --config ${configArg} --token "$READER_TOKEN"`)
out(`echo "$READER_TOKEN" | npx feast-authz check --config ${configArg} --token-file - \\`)
out('  --permissions fixtures/server/permissions.yaml --resource FeatureView:driver_hourly_stats --action WRITE_ONLINE  # deny, exit 1')
out()

note('What each user gets:')
const widths = [34, ...USERS.map((user) => Math.max(user.label.length, 13))]
const row = (cells: readonly string[]): string => cells.map((cell, i) => cell.padEnd(widths[i] ?? 8)).join('  ').trimEnd()
note(`  ${row(['route', ...USERS.map((user) => user.label)])}`)
for (const probe of PROBES) {
  const cells: string[] = []
  for (const user of USERS) {
    const token = tokens.get(user)
    const response = await fetch(`${url}${probe.path}`, {
      method: probe.method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(probe.body === undefined ? {} : { 'content-type': 'application/json' })
      },
      ...(probe.body === undefined ? {} : { body: JSON.stringify(probe.body) })
    })
    const body: unknown = await response.json().catch(() => undefined)
    cells.push(`${response.status}${response.ok && probe.summary !== undefined ? ` ${probe.summary(body)}` : ''}`)
  }
  note(`  ${row([`${probe.method.padEnd(4)} ${probe.path}`, ...cells])}`)
}
out()

let stopping: Promise<void> | undefined
const stop = async (): Promise<void> => {
  stopping ??= (async () => {
    await app.close()
    await provider.close()
    rmSync(scratch, { recursive: true, force: true })
  })()
  await stopping
}
if (once) {
  await stop()
  // The lines above name a server, a provider and a file that no longer exist: said, so that
  // nobody pastes them and wonders why curl cannot connect.
  note('Stopped (--once): the server, the provider and the scratch feature_store.yaml are gone, so the lines')
  note('above no longer work. Run `npm start` (without --once) to try them; it serves until Ctrl-C.')
} else {
  note('Serving until Ctrl-C (DEMO_LOG=info shows every permission decision on stderr).')
  const exit = (): void => { stop().then(() => process.exit(0), () => process.exit(1)) }
  process.once('SIGINT', exit)
  process.once('SIGTERM', exit)
  process.once('SIGHUP', exit)
  if (ancestors.some((pid) => !alive(pid))) exit()
  setInterval(() => { if (ancestors.some((pid) => !alive(pid))) exit() }, 500).unref()
}

/** The port an environment variable pins (0, any free one, when unset); exits 2 on anything but a port number. */
function portFromEnv (name: string): number {
  const text = process.env[name] ?? ''
  if (text === '') return 0
  const port = portNumber(text)
  if (port === undefined) {
    process.stderr.write(`npm start: ${name} must be a port number from 0 to 65535 (0: any free port), got ${JSON.stringify(text.slice(0, 20))}\n`)
    process.exit(2)
  }
  return port
}

/**
 * What `started` resolves to; when its port is taken, says which variable pinned it and exits 1
 * (after `cleanup`, which closes what already listens), instead of a stack trace.
 */
async function listening<T> (variable: string, started: Promise<T>, cleanup?: () => Promise<void>): Promise<T> {
  try {
    return await started
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw error
    process.stderr.write(`npm start: port ${process.env[variable] ?? ''} (${variable}) is ${code === 'EACCES' ? 'not open to this user' : 'in use'}: choose another, or unset ${variable} for any free port\n`)
    await cleanup?.()
    process.exit(1)
  }
}

function parentOf (pid: number): number | undefined {
  const result = spawnSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' })
  const parent = Number(result.stdout?.trim())
  return Number.isInteger(parent) && parent > 0 ? parent : undefined
}

function alive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
