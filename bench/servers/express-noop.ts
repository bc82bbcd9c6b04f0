/**
 * Reference, not a verifier: bare Express plus one application-level middleware that reads the
 * Authorization header, sets `req.principal` and calls `next()`. It shows what Express itself
 * charges for one more middleware layer, the part of feast-authz's Express cost no adapter can remove.
 */
import express from 'express'
import { announce, PAYLOAD, ROUTE } from './common.ts'

const app = express()
app.disable('x-powered-by')
app.disable('etag')
app.use((req, _res, next) => {
  (req as unknown as { principal: unknown }).principal = req.headers.authorization === undefined ? null : { username: 'anyone' }
  next()
})
app.get(ROUTE, (_request, response) => { response.json(PAYLOAD) })
const server = app.listen(0, '127.0.0.1', () => {
  announce((server.address() as { port: number }).port, async () => { await new Promise((resolve) => server.close(resolve)) })
})
