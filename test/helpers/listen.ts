/** Starting an Express (or any Node) app on a free loopback port, for tests that call it over HTTP. */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'

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
