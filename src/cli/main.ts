import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { EXIT, type CliCommand, type CliIo } from './io.ts'
import { wrapWords } from './help-text.ts'
import { terminalSafe } from './terminal-text.ts'
import { unknownName } from './args.ts'

// Loaded on demand so that `feast-authz token` does not pay for the server's imports.
const COMMANDS: Readonly<Record<string, { summary: string, load: () => Promise<{ run: CliCommand }> }>> = {
  inspect: { summary: 'authenticate a token as the server would and print the principal', load: async () => await import('./commands/inspect.ts') },
  check: { summary: 'dry-run a permission decision for a principal, resource and actions', load: async () => await import('./commands/check.ts') },
  serve: { summary: 'run the reference feature server with authorization', load: async () => await import('./commands/serve.ts') },
  token: { summary: 'print the bearer token a client would send', load: async () => await import('./commands/token.ts') },
  operator: { summary: 'render a FeatureStore resource into auth configuration (operator render)', load: async () => await import('./commands/operator.ts') },
  registry: { summary: 'show a Feast registry\'s projects, resources and permissions (registry show)', load: async () => await import('./commands/registry.ts') }
}

export function usage (): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length))
  const lines = Object.entries(COMMANDS).map(([name, { summary }]) => wrapWords(summary.split(' '), ' '.repeat(width + 4), `  ${name.padEnd(width)}  `))
  return `usage: feast-authz <command> [options]\n       feast-authz --version\n\ncommands:\n${lines.join('\n')}\n\n` +
    'Run feast-authz <command> --help for a command\'s options.\n' +
    'Exit codes: 0 success or allowed, 1 rejected or denied, 2 usage or configuration error,\n' +
    '3 could not decide (identity provider or cluster unreachable, or our credentials refused).\n'
}

/** The package's version, from the package.json next to `src/` (or `dist/`). */
export function version (): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown }
  return String(manifest.version)
}

export async function main (argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout)(usage())
    return name === undefined ? EXIT.usage : EXIT.ok
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(`${version()}\n`)
    return EXIT.ok
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (command === undefined) {
    io.stderr(`feast-authz: ${unknownName(name.startsWith('-') ? 'option' : 'command', name, Object.keys(COMMANDS))}\nRun \`feast-authz --help\` for the commands.\n`)
    return EXIT.usage
  }
  const { run } = await command.load()
  return await run(rest, io)
}

/**
 * Runs the command line of this process: what the `feast-authz` bin and `node src/cli/main.ts`
 * both call, so that every byte for the terminal passes {@link terminalSafe} (names and claims in
 * it come from files and tokens others wrote), and the exit code is set.
 */
export async function runProcess (argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const io: CliIo = { stdout: (text) => process.stdout.write(terminalSafe(text)), stderr: (text) => process.stderr.write(terminalSafe(text)), env: process.env }
  try {
    process.exitCode = await main(argv, io)
  } catch (error) {
    io.stderr(`feast-authz: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = EXIT.usage
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href
if (invokedDirectly) void runProcess()
