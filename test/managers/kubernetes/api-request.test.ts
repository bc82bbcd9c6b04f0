/**
 * The transport to the API server against a plain loopback HTTP server that answers what a test
 * scripts: what it refuses to do (follow a redirect, inflate a compressed body, read a body
 * labelled other than JSON) and what it keeps for decisions but never shows.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { after, before, describe, test } from 'node:test'
import { kubernetesClient } from '../../../src/managers/kubernetes/client-library.ts'
import { ApiStatusError, callApi, openStream, UnusableAnswer } from '../../../src/managers/kubernetes/api-request.ts'
import { expectError } from '../../helpers/errors.ts'
import type { KubeConfig } from '@kubernetes/client-node'

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void

/** A loopback server whose answer each test sets, and the requests it received. */
async function scriptedServer (): Promise<{ url: string, answer: (handler: Handler) => void, requests: http.IncomingMessage[], close: () => Promise<void> }> {
  let handler: Handler = (_req, res) => { res.writeHead(404).end() }
  const requests: http.IncomingMessage[] = []
  const server = http.createServer((req, res) => { requests.push(req); handler(req, res) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answer: (next) => { handler = next },
    requests,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

/** A kubeconfig for a plain-http server (client-node allows http only with insecure-skip-tls-verify). */
function kubeConfigFor (url: string): KubeConfig {
  const kubeConfig = new (kubernetesClient().KubeConfig)()
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'service-credential' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x'
  })
  return kubeConfig
}

describe('the transport to the API server', () => {
  let server: Awaited<ReturnType<typeof scriptedServer>>
  let elsewhere: Awaited<ReturnType<typeof scriptedServer>>
  let kubeConfig: KubeConfig
  const call = { path: '/apis/authentication.k8s.io/v1/tokenreviews', method: 'POST' as const, body: { spec: { token: 'reviewed' } }, timeoutMs: 2000, maxBytes: 1024 * 1024 }

  before(async () => {
    server = await scriptedServer()
    elsewhere = await scriptedServer()
    kubeConfig = kubeConfigFor(server.url)
  })
  after(async () => {
    await server?.close()
    await elsewhere?.close()
  })

  test('a redirect is not followed: the call fails with its status and nothing is sent where it points', async () => {
    server.answer((_req, res) => { res.writeHead(307, { location: `${elsewhere.url}/apis/authentication.k8s.io/v1/tokenreviews` }).end() })
    await expectError(callApi(kubeConfig, call), { type: ApiStatusError, statusCode: 307 })
    assert.equal(elsewhere.requests.length, 0)
  })

  test('no compressed answer is asked for, and one sent anyway is never inflated', async () => {
    server.answer((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(JSON.stringify({ kind: 'TokenReview' })))
    })
    await expectError(callApi(kubeConfig, call), { type: UnusableAnswer, message: /is not valid JSON/ })
    assert.equal(server.requests.at(-1)?.headers['accept-encoding'], undefined)
  })

  test('an answer labelled other than JSON is unusable, even when its body parses', async () => {
    server.answer((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }).end('{"kind":"TokenReview"}') })
    await expectError(callApi(kubeConfig, call), { type: UnusableAnswer, message: /is not JSON \(Content-Type "text\/plain"\)/ })
  })

  test('the message of an error Status is kept for decisions, never in the error\'s own message', async () => {
    server.answer((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', status: 'Failure', message: 'error validating audiences for reviewed', code: 500 }))
    })
    await expectError(callApi(kubeConfig, call), { type: ApiStatusError, statusCode: 500, serverMessage: 'error validating audiences for reviewed', message: 'HTTP 500' })
  })

  test('the kubeconfig\'s credential goes with the call, as a bearer token', async () => {
    server.answer((_req, res) => { res.writeHead(201, { 'content-type': 'application/json' }).end('{}') })
    await callApi(kubeConfig, call)
    assert.equal(server.requests.at(-1)?.headers.authorization, 'Bearer service-credential')
  })

  test('a stream whose headers never come fails at the header timeout; one that answered lives on past it', async () => {
    server.answer(() => {})
    await expectError(openStream(kubeConfig, { path: '/watch', headerTimeoutMs: 200 }, new AbortController().signal), { name: 'TimeoutError' })
    server.answer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.write('{}\n') })
    const stop = new AbortController()
    const stream = await openStream(kubeConfig, { path: '/watch', headerTimeoutMs: 200 }, stop.signal)
    await new Promise((resolve) => setTimeout(resolve, 400))
    assert.equal(stream.destroyed, false, 'the header timeout cut the stream')
    stop.abort()
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(stream.destroyed, true, 'the caller\'s signal ends it')
  })
})
