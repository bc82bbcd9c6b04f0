/** The Express ceiling: bare Express 5, no authentication. */
import express from 'express'
import { announce, PAYLOAD, ROUTE } from './common.ts'

const app = express()
app.disable('x-powered-by')
app.disable('etag')
app.get(ROUTE, (_request, response) => { response.json(PAYLOAD) })
const server = app.listen(0, '127.0.0.1', () => {
  announce((server.address() as { port: number }).port, async () => { await new Promise((resolve) => server.close(resolve)) })
})
