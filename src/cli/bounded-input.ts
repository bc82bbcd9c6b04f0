import { closeSync, constants, fstatSync, openSync } from 'node:fs'
import { Socket } from 'node:net'
import type { Readable } from 'node:stream'
import { isatty, ReadStream } from 'node:tty'
import { FileTooLargeError, readOpenFile } from '../base/regular-file.ts'

/** A pipe or socket that neither ended nor filled the bound in time: its writer holds it open. */
export class InputTimeoutError extends Error {
  override readonly name = 'InputTimeoutError'
  readonly code = 'ETIMEDOUT'

  constructor (readonly timeoutMs: number) {
    super(`it did not end within ${timeoutMs / 1000} s (does what writes it ever close it?)`)
  }
}

/** Ctrl-C pressed while a token was being typed or pasted at a terminal. */
export class InputCancelledError extends Error {
  override readonly name = 'InputCancelledError'
  readonly code = 'ECANCELED'

  constructor () {
    super('cancelled with Ctrl-C')
  }
}

/** The bounds of {@link readBoundedInput}. */
export interface InputBounds {
  /** Reading stops past this many bytes, with a `FileTooLargeError`. */
  readonly maxBytes: number
  /** A pipe or socket must end within this many milliseconds; a file, device or terminal is not timed. */
  readonly timeoutMs: number
}

/** Called once when the source is a terminal, before it is read: the place for a prompt. */
export type OnTerminal = () => void

/**
 * Reads what the user named on the command line: a path, or standard input for `-`. Unlike
 * `readRegularFile`, named pipes are welcome (`--token-file <(command)` is one), but everything
 * is bounded, since `readFileSync` on `/dev/zero` or on a writer that never stops reads until
 * memory runs out, and on a pipe whose writer never closes waits for ever:
 *
 * - a file or a device (`/dev/zero`, `/dev/null`) is read synchronously, stopping one byte past
 *   `maxBytes`;
 * - a pipe or a socket is read as a stream, stopping at the first chunk past `maxBytes`, and given
 *   up after `timeoutMs` (a pipe's read cannot be interrupted, so it is not read in the thread
 *   pool, which would also keep the process alive: the stream waits in the event loop);
 * - a terminal is read as one line in raw mode ({@link readTerminalLine}), without a time bound:
 *   the person typing is the bound.
 *
 * A path is opened without blocking, so that a named pipe without a writer yet does not block
 * the open: the wait for its writer is the stream's, within `timeoutMs`. File-system errors
 * (`ENOENT`, `EACCES`, `EISDIR`...) are thrown as Node throws them.
 */
export async function readBoundedInput (source: string, bounds: InputBounds, onTerminal?: OnTerminal): Promise<Buffer> {
  const stdin = source === '-'
  // O_NONBLOCK is undefined on Windows, which has no named pipes to wait for.
  const fd = stdin ? 0 : openSync(source, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  let streamed = false
  try {
    const info = fstatSync(fd)
    const terminal = isatty(fd)
    if (!terminal && !info.isFIFO() && !info.isSocket()) return readOpenFile(fd, info.size, bounds.maxBytes)
    streamed = true
    // The stream owns the descriptor from here, and closes it when destroyed.
    if (terminal) {
      const stream = new ReadStream(fd)
      // Raw before the prompt: what is pasted after it never meets the terminal's line limit.
      stream.setRawMode(true)
      onTerminal?.()
      return await readTerminalLine(stream, bounds.maxBytes)
    }
    return await readStream(new Socket({ fd, readable: true, writable: false }), bounds.maxBytes, bounds.timeoutMs)
  } finally {
    if (!stdin && !streamed) closeSync(fd)
  }
}

const ENTER = 0x0d
const LINE_FEED = 0x0a
const CTRL_C = 0x03
const CTRL_D = 0x04
const BACKSPACE = 0x08
const DELETE = 0x7f

/**
 * One line typed or pasted at a terminal already in raw mode, which it leaves as it found it.
 * In its usual (canonical) mode a terminal keeps at most 4095 bytes of a line on Linux (1023 on
 * macOS) and drops the rest without a word: a pasted JWT carrying many groups is longer, and
 * would have been refused as a bad signature. Raw, the terminal passes every byte, and nothing is
 * echoed, as a password prompt echoes nothing (it is a token). Enter or Ctrl-D ends the line,
 * Backspace takes back a character, Ctrl-C cancels ({@link InputCancelledError}).
 */
function readTerminalLine (stream: ReadStream, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const line: number[] = []
    let done = false
    const finish = (error?: Error): void => {
      if (done) return
      done = true
      stream.setRawMode(false)
      stream.destroy()
      if (error === undefined) resolve(Buffer.from(line))
      else reject(error)
    }
    stream.on('data', (chunk: Buffer) => {
      for (const byte of chunk) {
        if (byte === ENTER || byte === LINE_FEED || byte === CTRL_D) { finish(); return }
        if (byte === CTRL_C) { finish(new InputCancelledError()); return }
        if (byte === BACKSPACE || byte === DELETE) { line.pop(); continue }
        line.push(byte)
        if (line.length > maxBytes) { finish(new FileTooLargeError(line.length, maxBytes)); return }
      }
    })
    stream.on('end', () => { finish() })
    stream.on('error', finish)
  })
}

function readStream (stream: Readable, maxBytes: number, timeoutMs: number | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let total = 0
    const finish = (error?: Error): void => {
      clearTimeout(timer)
      // Destroyed at once, whatever the outcome: a writer still writing gets EPIPE, not our memory.
      stream.destroy()
      if (error === undefined) resolve(Buffer.concat(chunks, total))
      else reject(error)
    }
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => { finish(new InputTimeoutError(timeoutMs)) }, timeoutMs)
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      total += chunk.length
      if (total > maxBytes) finish(new FileTooLargeError(total, maxBytes))
    })
    stream.on('end', () => { finish() })
    stream.on('error', finish)
  })
}
