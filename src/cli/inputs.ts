import { existsSync } from 'node:fs'
import { pathForMessage } from '../base/credential-shape.ts'
import { describeTokenFileError, MAX_TOKEN_FILE_BYTES } from '../base/token-file.ts'
import { BASE64_ENV, readFeatureStoreFile, type FeatureStoreFile } from '../config/feature-store-file.ts'
import { requireStoreProject } from '../config/store-project.ts'
import { readBoundedInput, type InputBounds } from './bounded-input.ts'
import { UsageError } from './io.ts'

/**
 * `--config` when given; otherwise undefined, which the loaders read as
 * `FEATURE_STORE_YAML_BASE64`, then `./feature_store.yaml` (docs/configuration.md). Throws a
 * usage error naming all three when none is there.
 */
export function configArgument (given: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (given !== undefined) return given
  if ((env[BASE64_ENV] ?? '').trim() !== '' || existsSync('feature_store.yaml')) return undefined
  throw new UsageError(`no configuration: give --config <feature_store.yaml>, set ${BASE64_ENV}, or run where a feature_store.yaml is (${process.cwd()})`)
}

/**
 * The `project` of the feature_store.yaml at `config` (or its fallbacks), for a Feast registry
 * file given apart from it with `--registry` (`serve`, `registry show`), which is read for it.
 */
export function configProject (config: string | undefined, env: NodeJS.ProcessEnv): string {
  return projectOfConfigFile(readFeatureStoreFile(config, env))
}

/** {@link configProject} of a feature_store.yaml already read. */
export function projectOfConfigFile (file: FeatureStoreFile): string {
  return requireStoreProject(file, 'the Feast registry given with --registry is read for this project')
}

/**
 * How much `--token-file` reads, and for how long a pipe may keep it waiting. The byte bound is
 * the client's own for token files; 30 s leaves a command in `--token-file <(command)` (kubectl,
 * a cloud CLI) time to fetch a token over the network, while a writer that never closes the pipe
 * is an error instead of a hang.
 */
export const TOKEN_FILE_BOUNDS: InputBounds = { maxBytes: MAX_TOKEN_FILE_BYTES, timeoutMs: 30_000 }

/** {@link TOKEN_FILE_BOUNDS} in words, for the commands' help. */
export const TOKEN_FILE_LIMITS = `${TOKEN_FILE_BOUNDS.maxBytes / 1024} KiB, and a pipe must end within ${TOKEN_FILE_BOUNDS.timeoutMs / 1000} s`

/** What `--token-file` shows before reading a terminal, which echoes nothing of the token. */
export const TERMINAL_PROMPT = 'Paste the token and press Enter (it is not shown; Ctrl-C cancels): '

/**
 * The token of `--token` or `--token-file` (`-` reads standard input; named pipes and
 * `<(command)` are read too), trimmed; errors name the file and, past a bound, the bound. From a
 * terminal, one line is read without echo after `prompt` shows {@link TERMINAL_PROMPT}.
 */
export async function readTokenArgument (
  token: string | undefined,
  tokenFile: string | undefined,
  prompt?: (text: string) => void,
  bounds: InputBounds = TOKEN_FILE_BOUNDS
): Promise<string> {
  if (token !== undefined) return token.trim()
  if (tokenFile === undefined) throw new UsageError('give --token or --token-file')
  const source = tokenFile === '-' ? '- (standard input)' : tokenFile
  let text: string
  let prompted = false
  try {
    text = (await readBoundedInput(tokenFile, bounds, prompt === undefined ? undefined : () => { prompted = true; prompt(TERMINAL_PROMPT) })).toString('utf8')
  } catch (error) {
    // Worded as the client words its own token files (token_path, the service-account file).
    // What names no file may be the token itself, given after --token-file instead of --token.
    const shown = pathForMessage(source)
    const hint = shown === source ? '' : ' (a token itself goes after --token)'
    throw new UsageError(`cannot read --token-file ${shown}: ${describeTokenFileError(error)}${hint}`)
  } finally {
    // Nothing was echoed, not even Enter: what follows starts on a line of its own.
    if (prompted) prompt?.('\n')
  }
  const trimmed = text.trim()
  if (trimmed === '') throw new UsageError(`--token-file ${source} is empty`)
  return trimmed
}
