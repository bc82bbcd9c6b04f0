import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { useOidcApp } from '../../helpers/oidc-app.ts'

// Spec 5.2.9: a new kid triggers an immediate refetch (rate-limited by the unknown-kid
// cooldown, 50 ms in these tests); a key the provider removed keeps validating until the
// cached set is older than jwks_cache_lifespan_seconds.

describe('a new signing key', () => {
  const app = useOidcApp({ provider: { alg: 'ES256' }, auth: { jwks_cache_lifespan_seconds: 300 } })

  test('is accepted at once through one refetch, long before the cache lifespan', async () => {
    const oldToken = await app.provider.issue({ preferred_username: 'alice' })
    assert.equal((await app.call('/whoami', `Bearer ${oldToken}`)).status, 200)
    const oldKid = app.provider.kid
    await app.provider.rotateKeys({ keepOld: true })
    assert.notEqual(app.provider.kid, oldKid)
    const newToken = await app.provider.issue({ preferred_username: 'alice' })
    await sleep(60) // past the unknown-kid cooldown
    const fetchesBefore = app.provider.stats.jwks
    assert.equal((await app.call('/whoami', `Bearer ${newToken}`)).status, 200)
    assert.equal(app.provider.stats.jwks - fetchesBefore, 1)
    assert.equal((await app.call('/whoami', `Bearer ${oldToken}`)).status, 200, 'the old key is still published and still valid')
  })
})

describe('a signing key removed by the provider', () => {
  const app = useOidcApp({ provider: { alg: 'ES256' }, auth: { jwks_cache_lifespan_seconds: 2 } })

  test('keeps validating until the cache lifespan expires, then is rejected as unknown_key', async () => {
    const oldToken = await app.provider.issue({ preferred_username: 'alice' })
    assert.equal((await app.call('/whoami', `Bearer ${oldToken}`)).status, 200)
    await app.provider.rotateKeys({ keepOld: false })
    const fetches = app.provider.stats.jwks
    assert.equal((await app.call('/whoami', `Bearer ${oldToken}`)).status, 200, 'still valid from the cached key set')
    assert.equal(app.provider.stats.jwks, fetches, 'no refetch happened: the answer came from the cached set')
    await sleep(2100) // the set was fetched before this point: it is now older than its lifespan
    const response = await app.call('/whoami', `Bearer ${oldToken}`)
    assert.equal(response.status, 401)
    assert.equal(response.body.code, 'unknown_key')
    const newToken = await app.provider.issue({ preferred_username: 'alice' })
    assert.equal((await app.call('/whoami', `Bearer ${newToken}`)).status, 200)
  })
})
