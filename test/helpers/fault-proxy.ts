/**
 * A fault-injecting HTTP proxy on 127.0.0.1, put between the code under test and a real
 * upstream (the OpenID provider, the fake Kubernetes API server). Faults are switched at
 * runtime, for every path or for one path prefix, so a test can break the key set while
 * discovery keeps working. Upstream URLs inside forwarded bodies (discovery's `jwks_uri`)
 * are rewritten to the proxy, so that every later request also goes through it.
 *
 * ```ts
 * const proxy = await startFaultProxy(provider.baseUrl)
 * proxy.set('hang', '/jwks')   // JWKS requests never answer; other paths pass through
 * proxy.set('pass')            // everything passes again
 * ```
 */
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/**
 * - `pass`: forward to the upstream unchanged.
 * - `refuse`: reset the connection as soon as it is accepted (as a closed port looks to a client).
 * - `hang`: read the request, never answer.
 * - `status500`: HTTP 500 with a text body.
 * - `html`: HTTP 200 with an HTML page (a login page or captive portal).
 * - `empty`: HTTP 200 `application/json` with an empty body.
 * - `malformed-json`: HTTP 200 `application/json` with a truncated JSON document.
 * - `abrupt-close`: read the request, then destroy the socket without any answer.
 * - `{ dripMs }`: forward the upstream answer one byte every `dripMs` milliseconds.
 * - `{ status, body, headers }`: a fixed answer.
 * - `{ transform }`: forward, but replace a 200 body by `transform(body)`.
 */
export type FaultMode =
  | 'pass'
  | 'refuse'
  | 'hang'
  | 'status500'
  | 'html'
  | 'empty'
  | 'malformed-json'
  | 'abrupt-close'
  | { readonly dripMs: number }
  | { readonly status: number, readonly body: string, readonly headers?: Readonly<Record<string, string>> }
  | { readonly transform: (body: string) => string }

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: use in place of the upstream's base URL. */
  readonly url: string
  /** Sets the fault for every path (no prefix) or for paths starting with `pathPrefix`. */
  set (mode: FaultMode, pathPrefix?: string): void
  /** Removes every fault: everything passes through. */
  reset (): void
  /** Requests received per path (faulted ones included). */
  readonly requests: Map<string, number>
  /** Requests for paths starting with `prefix`. */
  count (prefix: string): number
  /** Connections currently open between clients and the proxy. */
  openConnections (): number
  close (): Promise<void>
}

export async function startFaultProxy (upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream)
  let defaultMode: FaultMode = 'pass'
  const byPrefix = new Map<string, FaultMode>()
  const requests = new Map<string, number>()
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  // Upstream keep-alive would outlive the test; one connection per request is enough here.
  const agent = new http.Agent({ keepAlive: false })

  // Documents naming the upstream (discovery's jwks_uri) must lead back through the proxy.
  let proxyOrigin = ''
  const rewriteOrigin = (body: Buffer): Buffer => {
    const text = body.toString('utf8')
    return text.includes(target.origin) ? Buffer.from(text.replaceAll(target.origin, proxyOrigin)) : body
  }

  const modeFor = (path: string): FaultMode => {
    let best: [string, FaultMode] | undefined
    for (const entry of byPrefix) if (path.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry
    return best === undefined ? defaultMode : best[1]
  }

  const forward = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    onBody: (status: number, headers: http.IncomingHttpHeaders, body: Buffer) => void
  ): void => {
    const upstreamReq = http.request({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: target.host },
      agent
    }, (upstreamRes) => {
      const chunks: Buffer[] = []
      upstreamRes.on('data', (chunk: Buffer) => chunks.push(chunk))
      upstreamRes.on('end', () => { onBody(upstreamRes.statusCode ?? 502, upstreamRes.headers, rewriteOrigin(Buffer.concat(chunks))) })
      upstreamRes.on('error', () => { res.destroy() })
    })
    upstreamReq.on('error', () => { if (!res.headersSent) res.writeHead(502).end(); else res.destroy() })
    req.pipe(upstreamReq)
  }

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://proxy').pathname
    requests.set(path, (requests.get(path) ?? 0) + 1)
    const mode = modeFor(path)
    const json = { 'content-type': 'application/json' }
    if (mode === 'refuse' || mode === 'abrupt-close') { req.socket.destroy(); return }
    if (mode === 'hang') { req.resume(); return }
    if (mode === 'status500') { res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded'); return }
    if (mode === 'html') { res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body><form>Sign in</form></body></html>'); return }
    if (mode === 'empty') { res.writeHead(200, json).end(); return }
    if (mode === 'malformed-json') { res.writeHead(200, json).end('{"keys": [{"kty": "RSA", "n": '); return }
    if (mode === 'pass') {
      forward(req, res, (status, headers, body) => {
        res.writeHead(status, withoutHopHeaders(headers, body.length)).end(body)
      })
      return
    }
    if ('status' in mode) { res.writeHead(mode.status, { 'content-type': 'application/json', ...mode.headers }).end(mode.body); return }
    if ('transform' in mode) {
      forward(req, res, (status, headers, body) => {
        const out = status === 200 ? Buffer.from(mode.transform(body.toString('utf8'))) : body
        res.writeHead(status, withoutHopHeaders(headers, out.length)).end(out)
      })
      return
    }
    forward(req, res, (status, headers, body) => {
      res.writeHead(status, withoutHopHeaders(headers, body.length))
      let i = 0
      const drip = (): void => {
        if (res.destroyed) return
        if (i >= body.length) { res.end(); return }
        res.write(body.subarray(i, i + 1))
        i++
        const timer = setTimeout(() => { timers.delete(timer); drip() }, mode.dripMs)
        timers.add(timer)
      }
      drip()
    })
  })
  server.on('connection', (socket: Socket) => {
    // `refuse` acts before any byte is read, on new and kept-alive connections alike.
    if (defaultMode === 'refuse' && byPrefix.size === 0) { socket.resetAndDestroy(); return }
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  proxyOrigin = `http://127.0.0.1:${port}`

  return {
    url: proxyOrigin,
    requests,
    set (mode, pathPrefix) {
      if (pathPrefix === undefined) { defaultMode = mode; byPrefix.clear() } else byPrefix.set(pathPrefix, mode)
      if (mode === 'refuse' && pathPrefix === undefined) for (const socket of sockets) socket.resetAndDestroy()
    },
    reset () { defaultMode = 'pass'; byPrefix.clear() },
    count (prefix) {
      let total = 0
      for (const [path, n] of requests) if (path.startsWith(prefix)) total += n
      return total
    },
    openConnections: () => sockets.size,
    close: async () => {
      for (const timer of timers) clearTimeout(timer)
      for (const socket of sockets) socket.destroy()
      agent.destroy()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    }
  }
}

function withoutHopHeaders (headers: http.IncomingHttpHeaders, length: number): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || ['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name)) continue
    out[name] = value
  }
  out['content-length'] = length
  return out
}

/**
 * - `pass`: bytes flow both ways unchanged (TLS included: the proxy never sees plaintext).
 * - `refuse`: the connection is reset as soon as it is accepted.
 * - `hang`: the connection is accepted and nothing is ever forwarded (a TLS handshake never completes).
 * - `abrupt-close`: the first bytes are forwarded, then both sides are cut after `afterBytes` from the upstream.
 */
export type TcpFaultMode = 'pass' | 'refuse' | 'hang' | { readonly abruptCloseAfterBytes: number }

export interface TcpFaultProxy {
  /** `127.0.0.1:<port>`; use `https://${hostPort}` for a TLS upstream. */
  readonly hostPort: string
  /** Applies to connections opened from now on; open ones keep their mode. */
  set (mode: TcpFaultMode): void
  /**
   * Cuts every open connection (as a network fault does), so that clients holding keep-alive
   * connections must open new ones, which get the current mode.
   */
  cutOpen (): void
  /** Connections accepted so far. */
  connections (): number
  close (): Promise<void>
}

/**
 * The TCP flavour of {@link startFaultProxy}, for upstreams the proxy cannot read (TLS, such as
 * the fake Kubernetes API server): faults at the connection level only.
 */
export async function startTcpFaultProxy (upstream: { host: string, port: number }): Promise<TcpFaultProxy> {
  const { createServer, connect } = await import('node:net')
  let mode: TcpFaultMode = 'pass'
  let accepted = 0
  const sockets = new Set<Socket>()
  const track = (socket: Socket): void => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)) }
  const server = createServer((client) => {
    accepted++
    const current = mode
    if (current === 'refuse') { client.resetAndDestroy(); return }
    track(client)
    client.on('error', () => { client.destroy() })
    if (current === 'hang') return
    const upstreamSocket = connect(upstream.port, upstream.host)
    track(upstreamSocket)
    upstreamSocket.on('error', () => { client.destroy() })
    client.on('close', () => { upstreamSocket.destroy() })
    upstreamSocket.on('close', () => { client.destroy() })
    client.pipe(upstreamSocket)
    if (current === 'pass') { upstreamSocket.pipe(client); return }
    let forwarded = 0
    upstreamSocket.on('data', (chunk: Buffer) => {
      const room = current.abruptCloseAfterBytes - forwarded
      if (room > 0) client.write(chunk.subarray(0, room))
      forwarded += chunk.length
      if (forwarded >= current.abruptCloseAfterBytes) { client.destroy(); upstreamSocket.destroy() }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    hostPort: `127.0.0.1:${port}`,
    set (next) { mode = next },
    cutOpen () { for (const socket of sockets) socket.destroy() },
    connections: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    }
  }
}
