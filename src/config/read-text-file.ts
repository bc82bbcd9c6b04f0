import { readFileSync, statSync } from 'node:fs'

/** How {@link readTextFile} bounds a file and words its errors, in the caller's own terms. */
export interface ReadTextFileOptions {
  /** Largest accepted size: configuration files are small, and we never read without bound. */
  readonly maxBytes: number
  /** What the file is, ending "larger than the N bytes <kind> may have", e.g. `a permissions file`. */
  readonly kind: string
  /** Start of read-failure messages, e.g. `cannot read the permissions file`. */
  readonly cannotRead: string
  /**
   * Builds the caller's error (ConfigError, PermissionError) with the file as its source.
   * `cause` is the file-system error on read failures: callers may look at its `code`.
   */
  readonly error: (message: string, cause?: unknown) => Error
}

/**
 * Reads a UTF-8 text file of at most `maxBytes`. Errors name the reason in words (file not
 * found, permission denied, is a directory) rather than an errno code.
 */
export function readTextFile (path: string | URL, options: ReadTextFileOptions): string {
  const tooLarge = (size: number): Error => options.error(`file is ${size} bytes, larger than the ${options.maxBytes} bytes ${options.kind} may have`)
  let size: number
  let bytes: Buffer
  try {
    // Checked before reading so a huge file is never loaded, and after, in case it grew meanwhile.
    size = statSync(path).size
    bytes = size > options.maxBytes ? Buffer.alloc(0) : readFileSync(path)
  } catch (error) {
    throw options.error(`${options.cannotRead}: ${describeReadError(error)}`, error)
  }
  if (size > options.maxBytes) throw tooLarge(size)
  if (bytes.length > options.maxBytes) throw tooLarge(bytes.length)
  return bytes.toString('utf8')
}

/** A file-system error in words: `file not found`, `permission denied`, `is a directory, expected a file`. */
export function describeReadError (error: unknown): string {
  const code = (error as { code?: unknown }).code
  if (code === 'ENOENT') return 'file not found'
  if (code === 'EACCES') return 'permission denied'
  if (code === 'EISDIR') return 'is a directory, expected a file'
  return (error as Error).message
}
