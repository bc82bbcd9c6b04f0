import { http, https } from '../../base/http/node-http.ts'
import type { ClientRequest, IncomingMessage } from 'node:http'
import type { RequestOptions } from 'node:https'
import type { KubeConfig } from '@kubernetes/client-node'
import { BodyTooLarge, readBoundedBody } from '../../base/http/bounded-body.ts'

/** One call to the API server. */
export interface ApiCall {
  readonly method?: 'GET' | 'POST' | undefined
  /** Path under the cluster's server URL, e.g. `/apis/rbac.authorization.k8s.io/v1/namespaces/feast/roles`. */
  readonly path: string
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>> | undefined
  /** Sent as JSON. */
  readonly body?: unknown
  /** Bounds the whole call: connection, TLS handshake, headers and body. */
  readonly timeoutMs: number
  /** Largest body read; a longer answer is cut off and is an {@link UnusableAnswer}. */
  readonly maxBytes: number
  /** Ends the call early (its reason is what the call rejects with). */
  readonly signal?: AbortSignal | undefined
}

/**
 * The API server answered with a status other than 2xx. `statusCode` is what failures are
 * worded by; `serverMessage` (the `message` of its `Status` body, if any) is for decisions only
 * and never logged: an answer's body is the server's text, not ours.
 */
export class ApiStatusError extends Error {
  override readonly name = 'ApiStatusError'

  constructor (readonly statusCode: number, readonly serverMessage: string | undefined) {
    super(`HTTP ${statusCode}`)
  }
}

/**
 * An answer that is not what the Kubernetes API defines: too long, not JSON, not the kind asked
 * for, a field of the wrong type, a contradiction. The message names what is wrong and where,
 * never a value: it goes to the log.
 */
export class UnusableAnswer extends Error {
  override readonly name = 'UnusableAnswer'
}

/** Largest error body read, for its Status `message`: a Status is a few hundred bytes. */
const MAX_ERROR_BODY_BYTES = 64 * 1024

/**
 * Makes a call and returns its JSON answer. A status other than 2xx is an
 * {@link ApiStatusError}; a 2xx answer that is not JSON, or longer than `maxBytes`, an
 * {@link UnusableAnswer}; running out of `timeoutMs` (during the connection, the headers or
 * the body) a `TimeoutError`. Redirects are not followed: the API server never sends one, and
 * following it would send the request, credentials and all (a TokenReview holds the token it
 * reviews), wherever it points.
 *
 * Our own transport, not client-node's generated clients: they read any body whole without a
 * bound, follow redirects, and coerce what they read to the declared types (a string where a list
 * is declared becomes a list of its letters). Credentials, TLS settings and the agent still come
 * from the kubeconfig (`applyToHTTPSOptions`, which refreshes exec and OIDC credentials).
 */
export async function callApi (kubeConfig: KubeConfig, call: ApiCall): Promise<unknown> {
  const timeout = AbortSignal.timeout(call.timeoutMs)
  const signal = call.signal === undefined ? timeout : AbortSignal.any([timeout, call.signal])
  try {
    const response = await send(kubeConfig, call, signal)
    if (response.statusCode === undefined || response.statusCode < 200 || response.statusCode > 299) throw await statusError(response)
    const body = await readBoundedBody(response, call.maxBytes)
    if (!isJson(response.headers['content-type'])) throw new UnusableAnswer(`the answer to ${call.method ?? 'GET'} ${call.path} is not JSON (Content-Type ${JSON.stringify(response.headers['content-type'] ?? '')})`)
    try {
      return JSON.parse(body.toString('utf8'))
    } catch {
      throw new UnusableAnswer(`the answer to ${call.method ?? 'GET'} ${call.path} is not valid JSON`)
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason
    if (error instanceof BodyTooLarge) throw new UnusableAnswer(`the answer to ${call.method ?? 'GET'} ${call.path} is longer than ${call.maxBytes} bytes`)
    throw error
  }
}

/**
 * Opens a streaming GET (a watch) and returns the response once the API server answered 200
 * within `headerTimeoutMs`; the stream itself has no timeout (the server ends a watch at the
 * `timeoutSeconds` asked, and the informer's watchdog catches one that goes quiet). `signal`
 * ends it. A status other than 200 is an {@link ApiStatusError}.
 */
export async function openStream (
  kubeConfig: KubeConfig,
  call: Pick<ApiCall, 'path' | 'query'> & { readonly headerTimeoutMs: number },
  signal: AbortSignal
): Promise<IncomingMessage> {
  // Aborted by `signal`, or by the timer until the headers arrive (and never after: the stream lives on).
  const controller = new AbortController()
  signal.addEventListener('abort', () => { controller.abort(signal.reason) }, { once: true })
  const timer = setTimeout(() => { controller.abort(new DOMException('no answer within the header timeout', 'TimeoutError')) }, call.headerTimeoutMs)
  try {
    const response = await send(kubeConfig, { ...call, method: 'GET' }, controller.signal, (request) => {
      // A watch holds its connection for minutes: TCP keep-alive notices a peer that vanished.
      request.on('socket', (socket) => { socket.setKeepAlive(true, 30_000) })
    })
    if (response.statusCode !== 200) throw await statusError(response)
    return response
  } catch (error) {
    throw controller.signal.aborted ? controller.signal.reason : error
  } finally {
    clearTimeout(timer)
  }
}

async function send (
  kubeConfig: KubeConfig,
  call: Pick<ApiCall, 'method' | 'path' | 'query' | 'body'>,
  signal: AbortSignal,
  onRequest?: (request: ClientRequest) => void
): Promise<IncomingMessage> {
  const server = kubeConfig.getCurrentCluster()?.server
  if (server === undefined) throw new Error('the kubeconfig has no current cluster')
  // client-node joins them the same way: a server URL may carry a path (a cluster behind a proxy).
  const url = new URL(`${server}${call.path}`)
  for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value))
  const body = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body), 'utf8')
  const options: RequestOptions = {
    method: call.method ?? 'GET',
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(body.length) }) }
  }
  // Credentials (a bearer token, refreshed exec or OIDC credentials, a client certificate), the CA and the agent.
  await kubeConfig.applyToHTTPSOptions(options)
  signal.throwIfAborted()
  return await new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, { ...options, signal })
    onRequest?.(request)
    request.on('response', resolve)
    request.on('error', reject)
    request.end(body)
  })
}

/** The {@link ApiStatusError} of a non-2xx answer, with the `message` of its Status body if it has one. */
async function statusError (response: IncomingMessage): Promise<ApiStatusError> {
  const status = response.statusCode ?? 0
  let message: string | undefined
  try {
    const parsed: unknown = JSON.parse((await readBoundedBody(response, MAX_ERROR_BODY_BYTES)).toString('utf8'))
    const found = (parsed as { message?: unknown } | null)?.message
    if (typeof found === 'string') message = found
  } catch {
    // Not a Status (a proxy's page, a body too long, a cut connection): the status alone says enough.
    response.destroy()
  }
  return new ApiStatusError(status, message)
}

/** Whether a Content-Type is JSON, as the API server labels every JSON answer. */
function isJson (contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json'
}
