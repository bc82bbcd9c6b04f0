import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { BodyTooLarge, readBoundedBody } from '../../../src/base/http/bounded-body.ts'
import { expectError } from '../../helpers/errors.ts'

describe('reading a body up to a bound', () => {
  let server: http.Server
  let url: string
  let written = 0
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/small') { res.end('{"ok":true}'); return }
      if (req.url === '/cut') {
        res.writeHead(200, { 'content-length': 100 })
        res.write('only part of it')
        setTimeout(() => { res.destroy() }, 20)
        return
      }
      // Endless: as much as the client reads.
      res.writeHead(200)
      written = 0
      const chunk = Buffer.alloc(64 * 1024, 120)
      const pump = (): void => {
        while (!res.destroyed && written < 512 * 1024 * 1024) {
          written += chunk.length
          if (!res.write(chunk)) { res.once('drain', pump); return }
        }
      }
      pump()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(async () => { await new Promise((resolve) => server.close(resolve)) })

  const get = async (path: string): Promise<http.IncomingMessage> => await new Promise((resolve, reject) => {
    http.get(`${url}${path}`, { agent: false }, resolve).on('error', reject)
  })

  test('a body within the bound is read whole', async () => {
    assert.equal((await readBoundedBody(await get('/small'), 1024)).toString(), '{"ok":true}')
  })

  test('a longer body is refused once past the bound, and the connection is dropped, not drained', async () => {
    await expectError(readBoundedBody(await get('/endless'), 1024 * 1024), { type: BodyTooLarge, limit: 1024 * 1024 })
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.ok(written < 32 * 1024 * 1024, `the server wrote ${written} bytes`)
  })

  test('a body that closes before its end is an error, not a short answer', async () => {
    await expectError(readBoundedBody(await get('/cut'), 1024), { code: 'ECONNRESET' })
  })
})
