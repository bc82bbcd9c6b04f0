import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { redactJwtsIn, redactRequestUrlsIn, requestUrlForLog, urlForLog, urlTextForLog } from '../../../src/base/observability/log-safe-url.ts'

describe('urlForLog', () => {
  test('keeps scheme, host, port and path, and drops userinfo, query and fragment', () => {
    assert.equal(urlForLog('https://user:pass@idp.example.com:8443/realms/feast/.well-known/openid-configuration?secret=x#y'), 'https://idp.example.com:8443/realms/feast/.well-known/openid-configuration')
  })

  test('names an unparseable URL without echoing it', () => {
    assert.equal(urlForLog('http://user:pass@[bad'), '(not a valid URL)')
  })
})

describe('urlTextForLog', () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['htps://alice:do-not-print-me@idp.example.com/x?access_token=do-not-print-me#f', 'htps://idp.example.com/x'],
    ['https://alice:do-not-print-me@idp example.com/x', 'https://idp example.com/x'],
    ['https:alice:do-not-print-me@idp.example.com/x', 'https:idp.example.com/x'],
    ['postgresql://feast:do-not@print-me@db:5432/feast', 'postgresql://db:5432/feast'],
    ['https://idp.example.com/p@th', 'https://idp.example.com/p@th'],
    ['data/registry#1.db', 'data/registry#1.db'],
    ['C:\\feast\\registry?.db', 'C:\\feast\\registry?.db']
  ]
  for (const [text, shown] of cases) {
    test(`${text} is shown as ${shown}`, () => {
      assert.equal(urlTextForLog(text), shown)
    })
  }
})

describe('requestUrlForLog', () => {
  const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl'
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['/features/x', '/features/x'],
    [`/x?access_token=${JWT}`, '/x?access_token=[redacted]'],
    ['/cb?code=abc&state=s1', '/cb?code=[redacted]&state=s1'],
    ['/x?project=demo&client_secret=s&refresh_token=r&id_token=i&password=p&token=t', '/x?project=demo&client_secret=[redacted]&refresh_token=[redacted]&id_token=[redacted]&password=[redacted]&token=[redacted]'],
    ['/x?Access%5FToken=abc', '/x?Access%5FToken=[redacted]'],
    ['/x?api_key=k&X-Amz-Signature=s', '/x?api_key=[redacted]&X-Amz-Signature=[redacted]'],
    [`/x?t=${JWT}&allow_cache=true`, '/x?t=[redacted]&allow_cache=true'],
    [`/x?${JWT}`, '/x?[redacted]'],
    ['/x?flag&project=demo', '/x?flag&project=demo']
  ]
  for (const [target, logged] of cases) {
    test(`${target.slice(0, 60)} is logged as ${logged}`, () => {
      assert.equal(requestUrlForLog(target), logged)
    })
  }

  test('request targets inside a message are redacted, the rest of the message kept', () => {
    assert.equal(redactRequestUrlsIn('Route GET:/anything?access_token=abc&x=1 not found'), 'Route GET:/anything?access_token=[redacted]&x=1 not found')
    assert.equal(redactRequestUrlsIn('is it? yes'), 'is it? yes')
  })

  test('a JWT anywhere in a text is replaced, whatever surrounds it; other text stays', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'
    assert.equal(redactJwtsIn(`invalid bearer token ${jwt}, and "${jwt}."`), 'invalid bearer token [a JWT], and "[a JWT]."')
    assert.equal(redactJwtsIn('token has been invalidated'), 'token has been invalidated')
    assert.equal(redactJwtsIn('unsigned eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0. here'), 'unsigned [a JWT] here')
  })
})
