import { DEFAULT_MAX_TOKEN_LENGTH } from './http/bearer.ts'
import { describeReadError, FileTooLargeError } from './regular-file.ts'

/**
 * The most read for one bearer token, from a file or a pipe: the client's `token_path` and
 * service-account file, the CLI's `--token-file`. Eight times the servers' default
 * `maxTokenLength` (8 KiB), so a token for a server that raised it, plus whitespace, still fits;
 * a Kubernetes service-account token is about 1 KB. Past it, what is read is not a token
 * (`/dev/zero`, a log, a command that never stops writing) and reading stops.
 */
export const MAX_TOKEN_FILE_BYTES = 8 * DEFAULT_MAX_TOKEN_LENGTH

/** Why a token file could not be read, in words: the bound for one too large, else {@link describeReadError}'s. */
export function describeTokenFileError (error: unknown): string {
  if (error instanceof FileTooLargeError) return `it holds more than the ${error.maxBytes} bytes a token file may have`
  return describeReadError(error)
}
