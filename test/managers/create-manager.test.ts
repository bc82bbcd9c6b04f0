/**
 * `createAuthManager` checks its options (the logger, the OIDC key-set tuning, the cluster
 * connection and tuning) before it builds anything, in every auth mode.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createAuthManager } from '../../src/managers/create-manager.ts'
import { silentLogger } from '../../src/base/logging.ts'

const NO_AUTH = { type: 'no_auth' } as const

describe('createAuthManager options', () => {
  test('an infinite OIDC cache size, which would never evict, is refused with the option named', () => {
    assert.throws(() => createAuthManager(NO_AUTH, { logger: silentLogger, oidc: { verifiedTokenCacheSize: Number.POSITIVE_INFINITY } }), {
      name: 'OptionError',
      option: 'oidc.verifiedTokenCacheSize',
      message: 'feast-authz: createAuthManager: oidc.verifiedTokenCacheSize must be an integer from 0 to 10000000, got Infinity'
    })
  })

  test('a NaN failure back-off is refused', () => {
    assert.throws(() => createAuthManager(NO_AUTH, { logger: silentLogger, oidc: { failureBackoffSeconds: Number.NaN } }), { name: 'OptionError', option: 'oidc.failureBackoffSeconds' })
  })

  test('a logger is required', () => {
    assert.throws(() => createAuthManager(NO_AUTH, {} as never), {
      name: 'OptionError',
      option: 'logger',
      message: 'feast-authz: createAuthManager: logger must be an object with the methods debug, info, warn, error, got nothing'
    })
  })

  test('a cluster connection of an unknown source is refused', () => {
    const connection = { kubeConfig: {}, source: 'magic', description: 'x' } as never
    assert.throws(() => createAuthManager(NO_AUTH, { logger: silentLogger, kubernetes: { connection } }), {
      name: 'OptionError',
      option: 'kubernetes.connection.source',
      message: 'feast-authz: createAuthManager: kubernetes.connection.source must be one of "in-cluster", "kubeconfig", got "magic"'
    })
  })

  test('a misspelt kubernetes option is refused with a did-you-mean', () => {
    assert.throws(() => createAuthManager(NO_AUTH, { logger: silentLogger, kubernetes: { tunning: {} } as never }), {
      name: 'OptionError',
      message: 'feast-authz: createAuthManager: kubernetes.tunning is not an option (did you mean kubernetes.tuning?)'
    })
  })

  test('valid options build the manager', async () => {
    const manager = createAuthManager(NO_AUTH, {
      logger: silentLogger,
      oidc: { verifiedTokenCacheSize: 0, unknownKidCooldownSeconds: 0.05 },
      kubernetes: { tuning: { maxConcurrentReviews: 1 } }
    })
    assert.equal(manager.type, 'no_auth')
    await manager.close()
  })
})
