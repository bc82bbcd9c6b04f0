/** feast-authz on Express 5 (`feast-authz/express`) in OIDC mode, beside bare Express and express-jwt. */
import express from 'express'
import { feastAuthzExpress } from '../../src/adapters/express.ts'
import { announce, PAYLOAD, readServerConfig, ROUTE } from './common.ts'

const config = readServerConfig()
const authz = feastAuthzExpress({
  config: {
    project: 'bench',
    auth: { type: 'oidc', client_id: config.clientId, auth_discovery_url: config.discoveryUrl, audience: config.audience, issuer: config.issuer }
  }
})
const app = express()
app.disable('x-powered-by')
app.disable('etag')
app.use(authz.authenticate)
app.get(ROUTE, (_request, response) => { response.json(PAYLOAD) })
const server = app.listen(0, '127.0.0.1')
await new Promise((resolve) => server.once('listening', resolve))
// The adapter loads the keys in the background at start-up: wait for them.
for (let i = 0; i < 200 && !authz.health().ready; i++) await new Promise((resolve) => setTimeout(resolve, 25))
if (!authz.health().ready) throw new Error('feast-authz did not load the key set within 5 s')
announce((server.address() as { port: number }).port, async () => {
  await new Promise((resolve) => server.close(resolve))
  await authz.close()
})
