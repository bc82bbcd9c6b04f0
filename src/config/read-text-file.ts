import { pathForMessage } from '../base/credential-shape.ts'
import { describeReadError, FileTooLargeError, readFailureCause, readRegularFile } from '../base/regular-file.ts'

/** How {@link readTextFile} bounds a file and words its errors, in the caller's own terms. */
export interface ReadTextFileOptions {
  /** Largest accepted size: configuration files are small, and we never read without bound. */
  readonly maxBytes: number
  /** What the file is, ending "larger than the N bytes <kind> may have", e.g. `a permissions file`. */
  readonly kind: string
  /** Start of read-failure messages, e.g. `cannot read the permissions file`. */
  readonly cannotRead: string
  /**
   * Builds the caller's error (ConfigError, PermissionError) with `source` as its source: the
   * path, or, for a file that could not be read, the path as {@link pathForMessage} shows it.
   * `cause` is the file-system error on read failures (see `readFailureCause`): callers may look at its `code`.
   */
  readonly error: (message: string, source: string, cause?: unknown) => Error
}

/**
 * Reads a UTF-8 text file of at most `maxBytes` (a regular file: see `readRegularFile`). Errors
 * name the reason in words (file not found, permission denied, is a directory, is a named pipe)
 * rather than an errno code.
 */
export function readTextFile (path: string | URL, options: ReadTextFileOptions): string {
  const name = path instanceof URL ? path.pathname : path
  try {
    return readRegularFile(path, options.maxBytes).toString('utf8')
  } catch (error) {
    if (error instanceof FileTooLargeError) throw options.error(`file is ${error.size} bytes, larger than the ${options.maxBytes} bytes ${options.kind} may have`, name)
    // A path that names no file may be a token given in its place (`--config "$TOKEN"`).
    throw options.error(`${options.cannotRead}: ${describeReadError(error)}`, pathForMessage(name), readFailureCause(name, error))
  }
}
