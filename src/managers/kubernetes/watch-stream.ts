import type { KubeConfig } from '@kubernetes/client-node'
import { openStream, UnusableAnswer, type ApiCall } from './api-request.ts'
import { read, type JsonObject } from './json-shape.ts'

/** The types of a watch event (apimachinery pkg/watch: Added, Modified, Deleted, Bookmark, Error). */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'
const EVENT_TYPES: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'])

/** One event of a watch stream, as read: its type and its object (of any kind: the caller checks it). */
export interface WatchEvent {
  readonly type: WatchEventType
  readonly object: JsonObject
}

/**
 * Longest watch event read (one line of the stream). An event holds one object, and etcd keeps
 * none over 1.5 MiB (`--max-request-bytes`); JSON's escapes can make it a few times longer. A
 * longer line is not an event: it is cut off, never buffered on (a line without end would take
 * all the memory there is).
 */
export const MAX_EVENT_BYTES = 16 * 1024 * 1024

/** A running watch. */
export interface Watch {
  /**
   * Resolves when the stream ends (the server's `timeoutSeconds`, a dropped connection: the
   * caller resumes from the last version it applied, so nothing is lost) or after {@link abort};
   * rejects when the stream fails, carries a line that is not a watch event, or `onEvent` throws.
   */
  readonly ended: Promise<void>
  abort (): void
}

export interface WatchOptions extends Pick<ApiCall, 'path' | 'query'> {
  /** The most to wait for the answer's headers; the stream itself has no timeout. */
  readonly headerTimeoutMs: number
  /** Default {@link MAX_EVENT_BYTES}. */
  readonly maxEventBytes?: number | undefined
  /** Ends the watch, or its opening (then `startWatch` rejects with its reason). */
  readonly signal?: AbortSignal | undefined
}

/**
 * Opens a watch (`?watch=true`) and hands each event to `onEvent`, in order, once its line is
 * complete. Resolves once the server has answered 200; rejects when it answers anything else
 * (an `ApiStatusError`, e.g. 410 for a version too old). Every line must be a watch event: a line
 * that is not JSON, not an object with a known `type` and an object, or longer than
 * `maxEventBytes`, ends the watch with an {@link UnusableAnswer}.
 *
 * Our own, over the transport of api-request.ts, not client-node's `Watch`: that one splits
 * lines with `readline`, which buffers a line without end until memory runs out, and skips any
 * line it cannot parse (and any exception of the callback) in silence, so that an event lost
 * that way (a DELETED: a grant that stays) went unnoticed while later events moved the version on.
 */
export async function startWatch (kubeConfig: KubeConfig, options: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<Watch> {
  let aborted = false
  const controller = new AbortController()
  const abort = (reason?: unknown): void => {
    aborted = true
    options.signal?.removeEventListener('abort', onAbort)
    controller.abort(reason)
  }
  const onAbort = (): void => { abort(options.signal?.reason) }
  if (options.signal?.aborted === true) abort(options.signal.reason)
  else options.signal?.addEventListener('abort', onAbort)
  let response: Awaited<ReturnType<typeof openStream>>
  try {
    const call = { path: options.path, query: { ...options.query, watch: true }, headerTimeoutMs: options.headerTimeoutMs }
    response = await openStream(kubeConfig, call, controller.signal)
  } catch (error) {
    options.signal?.removeEventListener('abort', onAbort)
    throw error
  }
  const lines = lineSplitter(options.maxEventBytes ?? MAX_EVENT_BYTES)
  const ended = new Promise<void>((resolve, reject) => {
    let settled = false
    const finish = (error?: unknown): void => {
      if (settled) return
      settled = true
      options.signal?.removeEventListener('abort', onAbort)
      response.destroy()
      if (error === undefined || aborted) resolve()
      else reject(error)
    }
    response.on('data', (chunk: Buffer) => {
      try {
        for (const line of lines.push(chunk)) {
          if (settled) return
          const event = readEvent(line)
          if (event !== undefined) onEvent(event)
        }
      } catch (error) {
        finish(error)
      }
    })
    response.on('end', () => { finish() })
    response.on('error', (error) => { finish(error) })
    // Closed with neither an end nor an error: only whole lines were applied, so resuming from the
    // last version applied loses nothing (a reset connection is an 'error' first, and fails).
    response.on('close', () => { finish() })
  })
  return {
    ended,
    abort () { abort() }
  }
}

/** A watch line read as an event, or undefined for a blank line (which carries nothing). */
function readEvent (line: string): WatchEvent | undefined {
  if (line.trim() === '') return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(line)
  } catch {
    throw new UnusableAnswer('a line of the watch stream is not JSON')
  }
  const event = read.object(parsed, 'a watch event')
  if (typeof event.type !== 'string' || !EVENT_TYPES.has(event.type)) throw new UnusableAnswer('a watch event\'s type is none of ADDED, MODIFIED, DELETED, BOOKMARK, ERROR')
  return { type: event.type as WatchEventType, object: read.object(event.object, 'a watch event\'s object') }
}

/** Splits a byte stream into lines (decoded once whole, so a character split between chunks stays whole), each at most `maxBytes`. */
function lineSplitter (maxBytes: number): { push: (chunk: Buffer) => string[] } {
  let parts: Buffer[] = []
  let size = 0
  const tooLong = (): UnusableAnswer => new UnusableAnswer(`a line of the watch stream is longer than ${maxBytes} bytes`)
  return {
    push (chunk) {
      const lines: string[] = []
      let start = 0
      for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, newline)
        if (size + piece.length > maxBytes) throw tooLong()
        lines.push((parts.length === 0 ? piece : Buffer.concat([...parts, piece])).toString('utf8'))
        parts = []
        size = 0
        start = newline + 1
      }
      if (start < chunk.length) {
        size += chunk.length - start
        if (size > maxBytes) throw tooLong()
        parts.push(chunk.subarray(start))
      }
      return lines
    }
  }
}
