/**
 * Clients that hang up mid-request — while the server waits for a hanging provider, and while
 * it sends a body — must not leave timers or sockets behind. The whole file is one scenario in
 * its own process, so `process.getActiveResourcesInfo()` at the end shows only what leaked.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { startApp } from '../helpers/authz-app.ts'
import { startFaultProxy } from '../helpers/fault-proxy.ts'
import { startOidcProvider } from '../helpers/oidc-provider.ts'

/** Resources that are sockets, servers or timers, counted by kind. */
function networkAndTimers (): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const kind of process.getActiveResourcesInfo()) {
    if (/TCP|Pipe|Timeout|Immediate|TLS|HTTP/i.test(kind)) counts[kind] = (counts[kind] ?? 0) + 1
  }
  return counts
}

/** Sends a request with its own connection and destroys it after `afterMs`, without reading an answer. */
function hangUp (url: string, token: string, afterMs: number, method = 'GET'): Promise<void> {
  return new Promise((resolve) => {
    const request = http.request(url, { method, agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': '1000' } })
    request.on('error', () => { resolve() })
    request.on('close', () => { resolve() })
    if (method === 'POST') request.write('{"partial": "') // the body is never finished
    else request.end()
    setTimeout(() => { request.destroy() }, afterMs)
  })
}

test('clients that disconnect mid-request leave no timer or socket behind once everything is closed', async () => {
  const baseline = networkAndTimers()
  // The provider is started here, not by the OIDC-app fixture: started inside the test: it counts sockets and timers from before the provider exists.
  const provider = await startOidcProvider()
  const proxy = await startFaultProxy(provider.baseUrl)
  const app = await startApp({ auth: { type: 'oidc', auth_discovery_url: `${proxy.url}/.well-known/openid-configuration`, client_id: provider.clientId, jwks_request_timeout_seconds: 1 } })
  const token = await provider.issue({ preferred_username: 'alice' })
  const path = `${app.url}/whoami`

  // 1. While the key set hangs: clients give up before the server could answer.
  proxy.set('hang', '/jwks')
  await Promise.all(Array.from({ length: 20 }, async (_, i) => { await hangUp(path, token, 20 + i * 10) }))
  // 2. Keys available: clients hang up at once, and halfway through a POST body.
  proxy.reset()
  await sleep(1200) // the hung fetch has timed out; the back-off has passed
  const ok = await fetch(path, { headers: { authorization: `Bearer ${token}` } })
  assert.equal(ok.status, 200)
  await ok.text()
  await Promise.all(Array.from({ length: 20 }, async (_, i) => { await hangUp(i % 2 === 0 ? path : `${app.url}/echo`, token, i % 5, i % 2 === 0 ? 'GET' : 'POST') }))

  // The server is still healthy after all of it.
  const after = await fetch(path, { headers: { authorization: `Bearer ${token}`, connection: 'close' } })
  assert.equal(after.status, 200)
  await after.text()

  await app.close()
  await proxy.close()
  await provider.close()
  await sleep(200)
  const left = networkAndTimers()
  for (const [kind, count] of Object.entries(left)) {
    assert.ok(count <= (baseline[kind] ?? 0), `${count - (baseline[kind] ?? 0)} ${kind} left open: ${JSON.stringify(left)} (baseline ${JSON.stringify(baseline)})`)
  }
})
