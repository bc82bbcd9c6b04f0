import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { retryAfterMs } from '../../../src/base/http/retry-after.ts'

const NOW = Date.parse('1994-11-06T08:49:30Z')

/** [what, header value, milliseconds from NOW] */
const read: Array<[string, string, number]> = [
  ['a number of seconds as milliseconds', '120', 120_000],
  ['a number of seconds with spaces around it', ' 5 ', 5000],
  ['an IMF-fixdate, counted from now', 'Sun, 06 Nov 1994 08:49:37 GMT', 7000],
  ['an RFC 850 date, counted from now', 'Sunday, 06-Nov-94 08:49:37 GMT', 7000],
  ['an asctime date as GMT, whatever the local zone', 'Sun Nov  6 08:49:37 1994', 7000],
  ['a date already past as 0', 'Sun, 06 Nov 1994 08:00:00 GMT', 0]
]

describe('retryAfterMs', () => {
  for (const [what, value, ms] of read) {
    test(`reads ${what}`, () => {
      assert.equal(retryAfterMs(value, NOW), ms)
    })
  }

  test('gives undefined without a header', () => {
    assert.equal(retryAfterMs(null, NOW), undefined)
  })

  for (const value of ['soon', '', '1.5', '-3', '5s', 'soon 2099', 'Sun, 06 Nov 2094 08:49:37']) {
    test(`gives undefined for ${JSON.stringify(value)}, neither seconds nor an HTTP date`, () => {
      assert.equal(retryAfterMs(value, NOW), undefined)
    })
  }
})
