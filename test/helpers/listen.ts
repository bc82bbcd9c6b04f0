/** Starting an Express (or any Node) app on a free loopback port, for tests that call it over HTTP. */
import type { Server } from 'node:http'
import { connect, createServer, type AddressInfo } from 'node:net'

/** An app that listens like Express's: `listen(port, host)` gives the Node server. */
export interface Listenable { listen (port: number, host: string): Server }

/** A listening server and its base URL, `http://127.0.0.1:<port>`. */
export interface Listening { readonly server: Server, readonly url: string }

/** Listens on 127.0.0.1, port 0, and resolves once the server accepts connections. */
export async function listenOnLoopback (app: Listenable): Promise<Listening> {
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** A loopback port nothing listens on: connections to it are refused at once (a service that is down). */
export async function closedPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => { resolve() }))
  return port
}

/** What {@link rawRequest} read back: the status and the body (chunked framing left in). */
export interface RawResponse { readonly status: number, readonly body: string }

/** A request for {@link rawRequest}; `headers` is a flat [name, value, ...] list, sent as given. */
export interface RawRequest { readonly method?: string, readonly path: string, readonly headers: readonly string[] }

/**
 * Sends one request written by hand over a bare socket, for what `fetch` cannot send: a header
 * twice (fetch joins them with a comma), bytes it would refuse.
 */
export async function rawRequest (url: string, request: RawRequest): Promise<RawResponse> {
  const { port } = new URL(url)
  const lines = [`${request.method ?? 'GET'} ${request.path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close']
  for (let i = 0; i < request.headers.length; i += 2) lines.push(`${request.headers[i]}: ${request.headers[i + 1]}`)
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => { socket.end(`${lines.join('\r\n')}\r\n\r\n`) })
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('end', () => { resolve(Buffer.concat(chunks).toString('utf8')) })
    socket.on('error', reject)
  })
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])
  return { status, body: text.slice(text.indexOf('\r\n\r\n') + 4) }
}
