import { existsSync, readFileSync } from 'node:fs'
import { BASE64_ENV } from '../config/feature-store-file.ts'
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

/** The token of `--token` or `--token-file` (`-` reads standard input), trimmed; errors name the file. */
export function readTokenArgument (token: string | undefined, tokenFile: string | undefined): string {
  if (token !== undefined) return token.trim()
  if (tokenFile === undefined) throw new UsageError('give --token or --token-file')
  let text: string
  try {
    text = readFileSync(tokenFile === '-' ? 0 : tokenFile, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (error as Error).message
    throw new UsageError(`cannot read --token-file ${tokenFile === '-' ? '- (standard input)' : tokenFile}: ${why}`)
  }
  const trimmed = text.trim()
  if (trimmed === '') throw new UsageError(`--token-file ${tokenFile === '-' ? '- (standard input)' : tokenFile} is empty`)
  return trimmed
}
