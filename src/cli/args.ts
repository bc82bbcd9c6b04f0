import { parseArgs, type ParseArgsConfig } from 'node:util'
import { closest, didYouMean } from '../base/did-you-mean.ts'
import { UsageError, type CliIo } from './io.ts'

type Options = NonNullable<ParseArgsConfig['options']>

/**
 * `parseArgs` in strict mode, with its errors turned into {@link UsageError}s that name the
 * closest known option (`--tokn` → `did you mean --token?`).
 */
export function parseCommandArgs<T extends Options> (
  argv: readonly string[],
  options: T,
  allowPositionals = false
): ReturnType<typeof parseArgs<{ args: string[], options: T, strict: true, allowPositionals: boolean }>> {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals })
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const given = /option '(-{1,2}[^']*)'/.exec((error as Error).message)?.[1] ?? ''
      const guess = closest(given.replace(/^-+/, ''), Object.keys(options))
      const known = Object.keys(options).map((name) => `--${name}`).join(', ')
      throw new UsageError(`unknown option ${given}${guess === undefined ? '' : ` (did you mean --${guess}?)`}; options: ${known}`)
    }
    if (code?.startsWith('ERR_PARSE_ARGS') === true) throw new UsageError((error as Error).message.split('\n')[0] ?? 'bad arguments')
    throw error
  }
}

/** `given` when it is one of a command's subcommands; otherwise a {@link UsageError} worded alike for every command. */
export function subcommand<S extends string> (given: string | undefined, known: readonly S[]): S {
  if (given !== undefined && (known as readonly string[]).includes(given)) return given as S
  const expected = `expected ${known.join(' or ')}`
  throw new UsageError(given === undefined ? `missing subcommand: ${expected}` : `unknown subcommand "${given}"${didYouMean(given, known)}: ${expected}`)
}

/** Reports a usage problem on one line plus where the options are described; returns the exit code. */
export function reportUsage (io: CliIo, command: string, error: unknown): 2 {
  io.stderr(`feast-authz ${command}: ${(error as Error).message}\nRun \`feast-authz ${command} --help\` for the options.\n`)
  return 2
}
