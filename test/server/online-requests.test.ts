/**
 * The materialize window (src/server/online-requests.ts), without a server: the times it compares
 * are read as Feast reads them. The HTTP behaviour is in feast-checks.test.ts.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { checkMaterializeWindow, rowsFor, type DataFrame } from '../../src/server/online-requests.ts'
import { expectError } from '../helpers/errors.ts'

describe('checkMaterializeWindow: times as Feast reads them', () => {
  // A zone east of UTC: read as local time, 10:30 there would come before 10:00 UTC.
  const zone = process.env.TZ
  before(() => { process.env.TZ = 'Asia/Kolkata' })
  after(() => { if (zone === undefined) delete process.env.TZ; else process.env.TZ = zone })

  test('a date-time without an offset is UTC, whatever the server\'s time zone (Feast\'s make_tzaware)', () => {
    assert.equal(new Date(2026, 10, 1).getTimezoneOffset(), -330, 'the zone is set')
    assert.doesNotThrow(() => { checkMaterializeWindow({ start_ts: '2026-11-01T10:00:00Z', end_ts: '2026-11-01T10:30:00' }) })
    expectError(() => { checkMaterializeWindow({ start_ts: '2026-11-01 10:30:00', end_ts: '2026-11-01T10:00:00+00:00' }) }, { statusCode: 422, message: /must be before end_ts/ })
  })
})

describe('rowsFor: a data frame as rows', () => {
  const view = { name: 'v', kind: 'FeatureView', tags: {}, entities: ['id'], features: ['rate'] } as const

  test('integers read exactly (BigInts) are kept as they are, within int64 anywhere', () => {
    assert.deepEqual(rowsFor(view, { id: [2n ** 63n - 1n], rate: [[{ a: -(2n ** 63n) }]] }), [{ id: 2n ** 63n - 1n, rate: [{ a: -(2n ** 63n) }] }])
  })

  test('an integer beyond int64 is a 422 naming its place: a join key in the join key words, a feature value as Feast cannot write it', () => {
    expectError(() => rowsFor(view, { id: [1, 2n ** 63n], rate: [1, 2] }), {
      statusCode: 422,
      message: 'df.id[1] must be a string, finite number, boolean or null (a join key of feature view "v"), got an integer beyond int64 (-9223372036854775808 to 9223372036854775807)'
    })
    expectError(() => rowsFor(view, { id: [1], rate: [{ a: [0, -(2n ** 63n) - 1n] }] }), {
      statusCode: 422,
      message: 'df.rate[0].a[1] is an integer beyond int64 (-9223372036854775808 to 9223372036854775807), which Feast cannot write'
    })
  })

  test('a join key written as a number beyond int64 (-1e19) is a 422 in the join key words; as a feature value it is a double', () => {
    expectError(() => rowsFor(view, { id: [-1e19], rate: [1] }), {
      statusCode: 422,
      message: 'df.id[0] must be a string, finite number, boolean or null (a join key of feature view "v"), got a number beyond int64 (-9223372036854775808 to 9223372036854775807), the range of an integer key'
    })
    assert.deepEqual(rowsFor(view, { id: [1], rate: [1e19] }), [{ id: 1, rate: 1e19 }])
  })

  test('a column called __proto__ becomes an ordinary column of each row, never the row\'s prototype', () => {
    const [row] = rowsFor(view, JSON.parse('{"id": [1], "__proto__": [{"event_timestamp": "not a time"}]}') as DataFrame)
    assert.equal(Object.getPrototypeOf(row), Object.prototype)
    assert.deepEqual(Object.entries(row ?? {}), [['id', 1], ['__proto__', { event_timestamp: 'not a time' }]])
  })
})
