import { parseArgs, type ParseArgsConfig } from 'node:util'
import { closest, didYouMean } from '../base/did-you-mean.ts'
import { UsageError, type CliIo } from './io.ts'

type Options = NonNullable<ParseArgsConfig['options']>

/**
 * `parseArgs` in strict mode, with its errors turned into {@link UsageError}s that name the
 * closest known option (`--tokn` → `did you mean --token?`). `positionals` is how many arguments
 * that are not options the command takes (`registry show`: 1); one more is
 * {@link unexpectedArgument}.
 */
export function parseCommandArgs<T extends Options> (
  argv: readonly string[],
  options: T,
  positionals = 0
): { values: ReturnType<typeof parseArgs<{ args: string[], options: T, strict: true }>>['values'], positionals: string[] } {
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true, tokens: true })
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const given = /option '(-{1,2}[^']*)'/.exec((error as Error).message)?.[1] ?? ''
      const known = Object.keys(options).map((name) => `--${name}`).join(', ')
      // `--token$TOKEN`, a space forgotten, is an unknown option too: quoted only when it reads as a name.
      if (!readsAsName(given)) throw new UsageError(`unknown option (not shown: it may be a token); options: ${known}`)
      const guess = closest(given.replace(/^-+/, ''), Object.keys(options))
      throw new UsageError(`unknown option ${given}${guess === undefined ? '' : ` (did you mean --${guess}?)`}; options: ${known}`)
    }
    if (code?.startsWith('ERR_PARSE_ARGS') === true) throw new UsageError((error as Error).message.split('\n')[0] ?? 'bad arguments')
    throw error
  }
  // parseArgs keeps the last value of an option given twice: `check --permissions prod.yaml ...
  // --permissions dev.yaml` would decide with dev.yaml alone. Named, never with its values.
  const seen = new Set<string>()
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || token.value === undefined || options[token.name]?.multiple === true) continue
    if (seen.has(token.name)) throw new UsageError(`--${token.name} given more than once: give it once`)
    seen.add(token.name)
  }
  // Counted here rather than by parseArgs, whose error quotes the argument.
  const extra = parsed.tokens.filter((token) => token.kind === 'positional')[positionals]
  if (extra !== undefined) throw unexpectedArgument(extra.index + 1)
  return { values: parsed.values, positionals: parsed.positionals }
}

/**
 * An argument that is not an option where the command takes no more of them, by its place among
 * the arguments (1: the first after the command's name). Never by its text: a token pasted
 * without `--token` would be printed.
 */
export function unexpectedArgument (position: number): UsageError {
  return new UsageError(`unexpected argument: the ${ordinal(position)} (not shown: it may be a token); options are given as --name value`)
}

function ordinal (n: number): string {
  const tens = n % 100
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'
  return `${n}${suffix}`
}

/** `given` when it is one of a command's subcommands; otherwise a {@link UsageError} worded alike for every command. */
export function subcommand<S extends string> (given: string | undefined, known: readonly S[]): S {
  if (given !== undefined && (known as readonly string[]).includes(given)) return given as S
  const expected = `expected ${known.join(' or ')}`
  throw new UsageError(given === undefined ? `missing subcommand: ${expected}` : `${unknownName('subcommand', given, known)}: ${expected}`)
}

/**
 * `unknown <what> "<given>"`, with the known name it was probably meant to be; the name is quoted
 * only when it reads as one (letters and hyphens, as every name the CLI knows), and an option
 * without its `=value`. Anything else may be a token pasted in the wrong place, and an error line
 * ends up in terminals, CI logs and issue reports: it is not shown, and no guess is made from it.
 */
export function unknownName (what: string, given: string, known: readonly string[]): string {
  const name = given.startsWith('-') ? given.split('=', 1)[0]! : given
  if (!readsAsName(name)) return `unknown ${what} (not shown: it may be a token)`
  return `unknown ${what} "${name}"${didYouMean(name.replace(/^-+/, ''), known)}`
}

/** Whether a command, subcommand or option name someone typed may be repeated: letters and hyphens, as every name the CLI knows. */
function readsAsName (text: string): boolean {
  return /^(?:-{0,2}[A-Za-z][A-Za-z-]{0,31})?$/.test(text)
}

/** The TCP port `text` names (0: any free one), or undefined when it names none: decimal digits, at most 65535. */
export function portNumber (text: string): number | undefined {
  return /^\d{1,5}$/.test(text) && Number(text) <= 65535 ? Number(text) : undefined
}

/**
 * The positive whole number `text` names (a bound such as `--max-answered-values`), or undefined:
 * decimal digits only, at most 2^53 − 1 (beyond it a number is no longer exact).
 */
export function positiveWholeNumber (text: string): number | undefined {
  if (!/^\d{1,16}$/.test(text)) return undefined
  const value = Number(text)
  return Number.isSafeInteger(value) && value > 0 ? value : undefined
}

/** Reports a usage problem on one line plus where the options are described; returns the exit code. */
export function reportUsage (io: CliIo, command: string, error: unknown): 2 {
  io.stderr(`feast-authz ${command}: ${(error as Error).message}\nRun \`feast-authz ${command} --help\` for the options.\n`)
  return 2
}
