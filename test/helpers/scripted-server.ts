/**
 * A loopback HTTP server that answers from a script, one reply per request (the last repeats),
 * and records what it received: for client tests of what goes over a real connection (retries,
 * bodies sent again, connections closed or left open).
 */
import http from 'node:http'
import { listenOnLoopback } from './listen.ts'

/**
 * - `{ status, headers, delayMs }`: that answer, with a short body, after `delayMs`;
 * - `{ status, endless: true }`: the head and a first chunk of a body that never ends;
 * - `'close'`: the connection is closed without an answer once the request has been read.
 */
export type ScriptedReply =
  | { readonly status: number, readonly headers?: Readonly<Record<string, string>>, readonly delayMs?: number, readonly endless?: boolean }
  | 'close'

/** One request as the server read it. */
export interface ReceivedRequest {
  readonly method: string
  readonly authorization: string | undefined
  readonly body: Buffer
  /** Whether the answer's connection has closed (a client that cancels a body closes it). */
  readonly closed: () => boolean
}

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly received: ReceivedRequest[]
  close (): Promise<void>
}

export async function startScriptedServer (replies: readonly ScriptedReply[]): Promise<ScriptedServer> {
  const received: ReceivedRequest[] = []
  const app = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      let closed = false
      response.on('close', () => { closed = true })
      received.push({ method: request.method ?? '', authorization: request.headers.authorization, body: Buffer.concat(chunks), closed: () => closed })
      const reply = replies[Math.min(received.length - 1, replies.length - 1)] ?? { status: 200 }
      if (reply === 'close') { request.socket.destroy(); return }
      if (reply.endless === true) {
        response.writeHead(reply.status, { 'content-type': 'text/plain' }).write('the rest never comes')
        return
      }
      setTimeout(() => { response.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers }).end(`status ${reply.status}`) }, reply.delayMs ?? 0)
    })
  })
  const { server, url } = await listenOnLoopback(app)
  return {
    url,
    received,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
