/** Peer: Express 5 + express-jwt + jwks-rsa (cache and rate limit on, as their docs recommend). */
import express, { type NextFunction, type Request, type Response } from 'express'
import { expressjwt, type GetVerificationKey } from 'express-jwt'
import jwksRsa from 'jwks-rsa'
import { announce, PAYLOAD, readServerConfig, ROUTE } from './common.ts'

const config = readServerConfig()
const app = express()
app.disable('x-powered-by')
app.disable('etag')
app.use(expressjwt({
  secret: jwksRsa.expressJwtSecret({ jwksUri: config.jwksUrl, cache: true, rateLimit: true, jwksRequestsPerMinute: 10 }) as GetVerificationKey,
  algorithms: ['RS256'],
  issuer: config.issuer,
  audience: config.audience
}))
app.get(ROUTE, (_request, response) => { response.json(PAYLOAD) })
app.use((error: Error & { status?: number }, _request: Request, response: Response, _next: NextFunction) => {
  response.status(error.status ?? 500).json({ error: error.name })
})
const server = app.listen(0, '127.0.0.1', () => {
  announce((server.address() as { port: number }).port, async () => { await new Promise((resolve) => server.close(resolve)) })
})
