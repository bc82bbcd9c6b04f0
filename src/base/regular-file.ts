import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs'
import { mayBeCredential } from './credential-shape.ts'

/**
 * The path names something that is not a regular file: a directory, a named pipe, a device, a
 * socket. Its message says which (`is a named pipe (FIFO), expected a file`).
 */
export class NotRegularFileError extends Error {
  override readonly name = 'NotRegularFileError'
  readonly code: string

  constructor (kind: string) {
    super(`is a ${kind}, expected a file`)
    // EISDIR for directories, as the file system says it: callers already word that one.
    this.code = kind === 'directory' ? 'EISDIR' : 'ENOTREG'
  }
}

/** The file holds more than the caller accepts; `size` is its size, or what was read before stopping. */
export class FileTooLargeError extends Error {
  override readonly name = 'FileTooLargeError'
  readonly code = 'EFBIG'

  constructor (readonly size: number, readonly maxBytes: number) {
    super(`file is ${size} bytes, larger than the ${maxBytes} bytes accepted`)
  }
}

const CHUNK_BYTES = 64 * 1024

/**
 * Reads a regular file (symbolic links followed) of at most `maxBytes`: the one way files named
 * by configuration are read (feature_store.yaml, permissions, a Feast registry, a CA bundle,
 * token files). A named pipe would block the whole process until some writer appeared, and a
 * device such as `/dev/zero` never ends, so anything but a regular file is refused with a
 * {@link NotRegularFileError}, and reading stops one byte past `maxBytes` with a
 * {@link FileTooLargeError}. The file is opened without blocking and judged by what was opened,
 * so a path swapped between the check and the read cannot slip through. File-system errors
 * (`ENOENT`, `EACCES`, `ELOOP`...) are thrown as Node throws them.
 */
export function readRegularFile (path: string | URL, maxBytes: number): Buffer {
  // O_NONBLOCK: opening a FIFO waits for a writer otherwise. Regular files ignore the flag. (Undefined on Windows, which has no FIFOs.)
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  try {
    const info = fstatSync(fd)
    checkRegularFile(info)
    return readOpenFile(fd, info.size, maxBytes)
  } finally {
    closeSync(fd)
  }
}

/**
 * Reads an open descriptor to its end, at most `maxBytes`, stopping one byte past it with a
 * {@link FileTooLargeError}; `size` is what `fstat` said (0 for a device such as `/dev/zero`).
 * For descriptors whose reads return at once: files and devices. A pipe's read waits for its
 * writer, so pipes are read as streams, with a bound on time too (`src/cli/bounded-input.ts`).
 */
export function readOpenFile (fd: number, size: number, maxBytes: number): Buffer {
  if (size > maxBytes) throw new FileTooLargeError(size, maxBytes)
  const chunks: Buffer[] = []
  let total = 0
  for (;;) {
    // The size is a hint (the file may grow while it is read): one read for the whole file, one to see its end.
    const chunk = Buffer.allocUnsafe(Math.min(Math.max(size - total, CHUNK_BYTES), maxBytes + 1 - total))
    const read = readSync(fd, chunk, 0, chunk.length, null)
    if (read === 0) break
    chunks.push(chunk.subarray(0, read))
    total += read
    if (total > maxBytes) throw new FileTooLargeError(total, maxBytes)
  }
  return chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks, total)
}

/**
 * Throws a {@link NotRegularFileError} unless `info` (from `stat`, symbolic links followed) is a
 * regular file: for reads that cannot go through {@link readRegularFile} (asynchronous ones).
 */
export function checkRegularFile (info: Stats): void {
  if (!info.isFile()) throw new NotRegularFileError(kindOf(info))
}

/**
 * A file-system error in words: `file not found`, `permission denied`, `is a named pipe (FIFO),
 * expected a file`; never the path, which the caller names (or not: a token given where a path
 * goes is one, see `pathForMessage`). Node's messages end with it (`ELOOP: ..., open '<path>'`).
 */
export function describeReadError (error: unknown): string {
  const code = (error as { code?: unknown }).code
  if (code === 'ENOENT') return 'file not found'
  if (code === 'EACCES') return 'permission denied'
  if (code === 'EISDIR') return 'is a directory, expected a file'
  if (code === 'ENAMETOOLONG') return 'the name is too long for a file'
  const message = (error as Error).message
  const syscall = (error as { syscall?: unknown }).syscall
  const pathAt = typeof syscall === 'string' ? message.indexOf(`, ${syscall} '`) : -1
  return pathAt < 0 ? message : message.slice(0, pathAt)
}

/**
 * `error`, a failed read of `path`, as the cause of the caller's error. When the path may be a
 * token given where a path goes (see `mayBeCredential`), a stand-in without it: Node's error
 * repeats the path in its message and its `path` field, and loggers print causes. The stand-in
 * keeps what callers look at (`code`, `errno`, `syscall`) and says the reason in words.
 */
export function readFailureCause (path: string, error: unknown): unknown {
  if (!mayBeCredential(path) || typeof error !== 'object' || error === null) return error
  const { code, errno, syscall } = error as NodeJS.ErrnoException
  return Object.assign(new Error(describeReadError(error)), {
    ...(code === undefined ? {} : { code }),
    ...(errno === undefined ? {} : { errno }),
    ...(syscall === undefined ? {} : { syscall })
  })
}

function kindOf (info: Stats): string {
  if (info.isDirectory()) return 'directory'
  if (info.isFIFO()) return 'named pipe (FIFO)'
  if (info.isCharacterDevice()) return 'character device'
  if (info.isBlockDevice()) return 'block device'
  if (info.isSocket()) return 'socket'
  return 'special file'
}
