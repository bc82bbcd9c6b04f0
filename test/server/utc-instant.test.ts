/**
 * Times without an offset are UTC, as Feast reads them, whatever the server's own timezone: this
 * file runs with the process in New York time, where `Date.parse` would shift them by 4–5 hours.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createOnlineStore } from '../../src/server/online-store.ts'
import { emptyCatalog, type FeatureViewDef } from '../../src/server/catalog.ts'
import { utcInstant } from '../../src/server/utc-instant.ts'

process.env.TZ = 'America/New_York'

const VIEW: FeatureViewDef = { name: 'stats', kind: 'FeatureView', tags: {}, entities: ['driver_id'], features: ['rate'] }

describe('utcInstant', () => {
  test('the process really runs in a timezone other than UTC (what the other tests rely on)', () => {
    assert.notEqual(new Date('2026-11-20T08:00:00').toISOString(), '2026-11-20T08:00:00.000Z')
  })

  test('a date-time without an offset is UTC', () => {
    assert.equal(utcInstant('2026-11-20T08:00:00'), Date.UTC(2026, 10, 20, 8))
  })

  test('a space may separate the date and the time, and seconds and fractions are optional', () => {
    assert.equal(utcInstant('2026-11-20 08:00'), Date.UTC(2026, 10, 20, 8))
    assert.equal(utcInstant('2026-11-20T08:00:00.250'), Date.UTC(2026, 10, 20, 8, 0, 0, 250))
  })

  test('a date-time with an offset keeps it', () => {
    assert.equal(utcInstant('2026-11-20T08:00:00+02:00'), Date.UTC(2026, 10, 20, 6))
    assert.equal(utcInstant('2026-11-20T08:00:00Z'), Date.UTC(2026, 10, 20, 8))
  })

  test('what is not a date-time is NaN', () => {
    assert.ok(Number.isNaN(utcInstant('yesterday')))
    assert.ok(Number.isNaN(utcInstant('2026-11-20T25:00:00')))
  })
})

describe('the online store under a non-UTC timezone', () => {
  test('a row written with an event time without an offset is stored at that time in UTC', () => {
    const store = createOnlineStore(emptyCatalog('p'))
    store.write(VIEW, [{ driver_id: 1, rate: 0.5, event_timestamp: '2026-11-20T08:00:00' }])
    assert.equal(store.read(VIEW, [1])?.eventTimestamp, '2026-11-20T08:00:00Z')
  })

  test('of two rows with naive times, the later one in UTC wins', () => {
    const store = createOnlineStore(emptyCatalog('p'))
    store.write(VIEW, [{ driver_id: 1, rate: 0.7, event_timestamp: '2026-11-20T09:00:00' }])
    store.write(VIEW, [{ driver_id: 1, rate: 0.5, event_timestamp: '2026-11-20T12:00:00Z' }])
    assert.deepEqual(store.read(VIEW, [1]), { values: { rate: 0.5 }, eventTimestamp: '2026-11-20T12:00:00Z' })
  })
})
