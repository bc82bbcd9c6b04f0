import type { IncomingMessage } from 'node:http'

/** An answer longer than its reader's bound: it was cut off, not read. */
export class BodyTooLarge extends Error {
  override readonly name = 'BodyTooLarge'

  constructor (readonly limit: number) {
    super(`the answer is longer than ${limit} bytes`)
  }
}

/**
 * The whole body of `response`, at most `maxBytes` of it: a longer one is cut off (the response
 * is destroyed, so its connection is dropped, not drained) and rejected with {@link BodyTooLarge},
 * so that a broken or hostile server cannot make us buffer without bound. Rejects with the
 * stream's error when it fails, and with an `ECONNRESET` error when it closes before its end.
 * Time is the caller's to bound (an abort signal on the request destroys the response too).
 */
export async function readBoundedBody (response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return await new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const fail = (error: Error): void => {
      if (settled) return
      settled = true
      response.destroy()
      reject(error)
    }
    response.on('data', (chunk: Buffer) => {
      if (settled) return
      size += chunk.length
      if (size > maxBytes) { fail(new BodyTooLarge(maxBytes)); return }
      chunks.push(chunk)
    })
    response.on('end', () => {
      if (settled) return
      settled = true
      resolve(Buffer.concat(chunks, size))
    })
    response.on('error', fail)
    response.on('close', () => { fail(Object.assign(new Error('the answer ended before it was complete'), { code: 'ECONNRESET' })) })
  })
}
