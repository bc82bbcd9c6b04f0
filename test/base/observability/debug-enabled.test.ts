import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import Fastify from 'fastify'
import { pino } from 'pino'
import { debugEnabled, levelEnabled } from '../../../src/base/logging.ts'

describe('whether debug events are worth building', () => {
  test("Fastify's no-op logger (logger: false) says nothing, so no debug event is built", async () => {
    const app = Fastify({ logger: false })
    app.get('/', async (request) => ({ debug: debugEnabled(request.log) }))
    assert.deepEqual((await app.inject('/')).json(), { debug: false })
  })

  test('a pino logger at info level does not want debug events', () => {
    assert.equal(debugEnabled(pino({ level: 'info' })), false)
  })

  test('a pino logger at debug or trace level does', () => {
    assert.equal(debugEnabled(pino({ level: 'debug' })), true)
    assert.equal(debugEnabled(pino({ level: 'trace' })), true)
  })

  test('a logger without isLevelEnabled is believed by its level', () => {
    const noop = (): void => {}
    const base = { debug: noop, info: noop, warn: noop, error: noop }
    assert.equal(debugEnabled({ ...base, level: 'debug' } as never), true)
    assert.equal(debugEnabled({ ...base, level: 'warn' } as never), false)
    assert.equal(debugEnabled(base), false)
  })
})

describe('whether info, warn and error events are worth building', () => {
  test("Fastify's no-op logger (logger: false) writes nothing at any level", async () => {
    const app = Fastify({ logger: false })
    app.get('/', async (request) => ({ info: levelEnabled(request.log, 'info'), error: levelEnabled(request.log, 'error') }))
    assert.deepEqual((await app.inject('/')).json(), { info: false, error: false })
  })

  test('a pino logger answers for itself', () => {
    assert.equal(levelEnabled(pino({ level: 'warn' }), 'info'), false)
    assert.equal(levelEnabled(pino({ level: 'warn' }), 'error'), true)
  })

  test('a logger that cannot say is asked anyway, so its lines are never lost', () => {
    const write = (): void => {}
    const logger = { debug: write, info: write, warn: write, error: write }
    assert.equal(levelEnabled(logger, 'info'), true)
    assert.equal(levelEnabled(logger, 'error'), true)
  })
})
