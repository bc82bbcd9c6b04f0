// Start-up probe, plain JavaScript (no tsx: start-up is what is measured). Imports Fastify and the
// built plugin (BENCH_DIST/index.js), starts an OIDC server on 127.0.0.1, and asks it with
// BENCH_TOKEN until the answer is 200: discovery and the key set fetch are included. Prints the
// milliseconds since the process started (performance.now() counts from then).
const { default: Fastify } = await import('fastify')
const { default: feastAuthz } = await import(`${process.env.BENCH_DIST}index.js`)
const config = JSON.parse(process.env.BENCH_CONFIG)
const app = Fastify({ logger: false })
await app.register(feastAuthz, {
  config: { project: 'bench', auth: { type: 'oidc', client_id: config.clientId, auth_discovery_url: config.discoveryUrl, audience: config.audience, issuer: config.issuer } }
})
app.get('/features', async () => ({ ok: true }))
const url = await app.listen({ port: 0, host: '127.0.0.1' })
let status = 0
for (let i = 0; i < 1000 && status !== 200; i++) {
  const response = await fetch(`${url}/features`, { headers: { authorization: `Bearer ${process.env.BENCH_TOKEN}` } })
  await response.arrayBuffer()
  status = response.status
}
const ms = performance.now()
await app.close()
process.stdout.write(`${JSON.stringify({ ms, status })}\n`)
