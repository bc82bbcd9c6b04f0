import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import Fastify from 'fastify'
import { feastAuthz } from '../../src/adapters/fastify.ts'
import { AuthError, FeastAuthzError, OptionError } from '../../src/base/errors.ts'
import { ProviderRequestError } from '../../src/base/http/provider-response.ts'
import { UsageError } from '../../src/cli/io.ts'
import { TokenSourceError } from '../../src/client/errors.ts'
import { ConfigError } from '../../src/config/errors.ts'
import { PermissionError } from '../../src/permissions/errors.ts'
import { renderFeatureStore } from '../../src/operator/render.ts'
import { HttpError } from '../../src/server/http-error.ts'

describe('one error family', () => {
  const members: Array<[FeastAuthzError, string, string]> = [
    [new AuthError('token_expired', 'the token has expired'), 'AuthError', 'token_expired'],
    [new ConfigError('is required', { source: 'feature_store.yaml', field: 'auth.type' }), 'ConfigError', 'FEAST_AUTHZ_CONFIG'],
    [new PermissionError('unknown action', { field: 'actions' }), 'PermissionError', 'FEAST_AUTHZ_PERMISSION'],
    [new OptionError('maxTokenLength must be a positive integer'), 'OptionError', 'FEAST_AUTHZ_OPTION'],
    [new TokenSourceError('env_var_unset', 'FEAST_TOKEN is not set'), 'TokenSourceError', 'env_var_unset'],
    [new ProviderRequestError('request to http://idp/keys timed out'), 'ProviderRequestError', 'provider_request_failed'],
    [new UsageError('unknown flag --x'), 'UsageError', 'FEAST_AUTHZ_USAGE'],
    [new HttpError(404, 'not_found', 'no such view'), 'HttpError', 'not_found']
  ]

  for (const [error, name, code] of members) {
    test(`${name} is a FeastAuthzError and an Error, with its own name and the stable code ${code}`, () => {
      assert.ok(error instanceof FeastAuthzError)
      assert.ok(error instanceof Error)
      assert.deepEqual([error.name, error.code], [name, code])
    })
  }

  test('the cause given to an error is kept', () => {
    const cause = new Error('ECONNREFUSED')
    assert.equal(new AuthError('provider_unavailable', 'down', { cause }).cause, cause)
    assert.equal(new ConfigError('unreadable', {}, cause).cause, cause)
  })

  test('an invalid option given in code is an OptionError whose message starts with feast-authz', async () => {
    const app = Fastify()
    await assert.rejects(async () => { await app.register(feastAuthz, { config: { project: 'p', auth: { type: 'no_auth' } }, maxTokenLength: 0 }) }, (error: unknown) => {
      assert.ok(error instanceof OptionError)
      assert.match(error.message, /^feast-authz: maxTokenLength must be an integer of at least 1, got 0$/)
      return true
    })
    assert.throws(() => renderFeatureStore(undefined as never), { name: 'OptionError', code: 'FEAST_AUTHZ_OPTION' })
  })
})
