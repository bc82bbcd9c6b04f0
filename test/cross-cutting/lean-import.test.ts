/**
 * The root import stays lean: `@kubernetes/client-node` loads only when a cluster is actually
 * used, no protobuf library loads at all (the registry's reader is our own), and neither does the
 * undici bundled in Node 22 and later, which an ES import of `node:http` pulls in (see
 * src/base/http/node-http.ts). Each case runs
 * in a fresh Node process that reports which of those packages its module graph holds (module
 * counts, never timings: the import time and RSS are measured by `npm run bench`).
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, test } from 'node:test'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

interface Loaded { readonly kubernetes: boolean, readonly protobuf: boolean, readonly nodeUndici: boolean }

const LEAN: Loaded = { kubernetes: false, protobuf: false, nodeUndici: false }

/**
 * Runs `body` (ES module code, top-level await allowed) in a child process, then reports whether
 * client-node, protobufjs or Node's bundled undici were loaded, through either loader (Node's own modules by its load list): ES imports are seen by a load
 * hook, `require` (of CommonJS, or of an ES module) by the require cache.
 */
async function loadedAfter (body: string): Promise<Loaded> {
  const hook = [
    'let port',
    'export function initialize (data) { port = data.port }',
    'export async function load (url, context, next) { port.postMessage(url); return next(url, context) }'
  ].join('\n')
  const script = `
    import { createRequire, register } from 'node:module'
    import { MessageChannel } from 'node:worker_threads'
    const { port1, port2 } = new MessageChannel()
    const seen = []
    port1.on('message', (url) => { seen.push(url) })
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), { data: { port: port2 }, transferList: [port2] })
    ${body}
    // A last module through the hook marks the end of the messages to wait for.
    const sentinel = 'data:text/javascript,export%20default%20' + Date.now()
    await import(sentinel)
    while (!seen.includes(sentinel)) await new Promise((resolve) => setTimeout(resolve, 5))
    port1.close()
    const required = Object.keys(createRequire(import.meta.url).cache)
    const uses = (name) => seen.some((url) => url.includes('/node_modules/' + name + '/')) || required.some((path) => path.includes('/node_modules/' + name + '/'))
    // client-node's own CommonJS dependencies show a require(esm) load the hook cannot see.
    const nodeUndici = process.moduleLoadList.includes('NativeModule internal/deps/undici/undici')
    console.log(JSON.stringify({ kubernetes: uses('@kubernetes/client-node') || uses('ws') || uses('node-fetch'), protobuf: uses('protobufjs'), nodeUndici }))
  `
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, timeout: 120_000 })
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Loaded
}

describe('the root import', () => {
  test('loads neither @kubernetes/client-node, protobufjs nor Node\'s bundled undici', async () => {
    assert.deepEqual(await loadedAfter("await import('./src/index.ts')"), LEAN)
  })

  test('nor does the Express entry', async () => {
    assert.deepEqual(await loadedAfter("await import('./src/adapters/express.ts')"), LEAN)
  })

  test('nor does the online-read entry', async () => {
    assert.deepEqual(await loadedAfter("await import('./src/server/online.ts')"), LEAN)
  })

  test('nor does the client entry', async () => {
    assert.deepEqual(await loadedAfter("await import('./src/client/index.ts')"), LEAN)
  })

  test('nor does a Fastify server in oidc mode off-cluster, with the plugin registered and ready', async () => {
    const loaded = await loadedAfter(`
      const { default: Fastify } = await import('fastify')
      const { feastAuthz } = await import('./src/index.ts')
      delete process.env.KUBERNETES_SERVICE_HOST
      delete process.env.KUBECONFIG
      const app = Fastify()
      await app.register(feastAuthz, { config: { project: 'p', auth: { type: 'oidc', auth_discovery_url: 'http://127.0.0.1:9/.well-known/openid-configuration', client_id: 'feast' } } })
      await app.ready()
      await app.close()
    `)
    assert.deepEqual(loaded, LEAN)
  })
})

describe('the check itself', () => {
  test('sees client-node once a cluster is used', async () => {
    const loaded = await loadedAfter(`
      const { kubernetesClient } = await import('./src/managers/kubernetes/client-library.ts')
      kubernetesClient()
    `)
    assert.deepEqual(loaded, { ...LEAN, kubernetes: true })
  })

  test('sees protobufjs when something imports it', async () => {
    assert.deepEqual(await loadedAfter("await import('protobufjs')"), { ...LEAN, protobuf: true })
  })

  test('sees client-node imported statically', async () => {
    // client-node's own ES import of node:http may load Node's undici too: only the other two are asserted.
    const { kubernetes, protobuf } = await loadedAfter("await import('@kubernetes/client-node')")
    assert.deepEqual({ kubernetes, protobuf }, { kubernetes: true, protobuf: false })
  })

  // Node 20's http module has no lazy WebSocket getter, so there the import loads nothing more.
  test('sees Node\'s bundled undici once node:http is imported as an ES module, on Node 22 and later', async () => {
    const major = Number(process.versions.node.split('.')[0])
    assert.deepEqual(await loadedAfter("await import('node:http')"), { ...LEAN, nodeUndici: major >= 22 })
  })
})
