/**
 * Every field of `KubernetesTuning` and `InformerTuning` is checked when the options are given:
 * NaN, Infinity, negative numbers and wrong types never unbound a cache, lift the review cap or
 * turn a timer into a busy loop. Each is refused with the option's full path.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createAuthManager } from '../../../src/managers/create-manager.ts'
import { createKubernetesManager } from '../../../src/managers/kubernetes/kubernetes-manager.ts'
import type { InformerTuning, KubernetesTuning } from '../../../src/managers/kubernetes/tuning.ts'
import { silentLogger } from '../../../src/base/logging.ts'
import { KUBERNETES_CONFIG } from '../../helpers/kubernetes.ts'

const tuningCases: ReadonlyArray<[keyof KubernetesTuning, unknown, string]> = [
  ['requestTimeoutMs', 0, 'a number of milliseconds from 1 to 2147483647, got 0'],
  ['requestTimeoutMs', Number.POSITIVE_INFINITY, 'a number of milliseconds from 1 to 2147483647, got Infinity'],
  ['failureCacheMs', -1, 'a number of milliseconds from 0 to 2147483647, got -1'],
  ['failureCacheMs', Number.NaN, 'a number of milliseconds from 0 to 2147483647, got NaN'],
  ['maxCachedTokens', Number.NaN, 'an integer from 0 to 10000000, got NaN'],
  ['maxCachedTokens', '100', 'an integer from 0 to 10000000, got "100"'],
  ['maxCachedRejections', Number.POSITIVE_INFINITY, 'an integer from 0 to 10000000, got Infinity'],
  ['maxConcurrentReviews', -5, 'an integer from 1 to 1000000, got -5'],
  ['informer', 'fast', 'an object, got "fast"'],
  ['now', 1234, 'a function, got 1234']
]

const informerCases: ReadonlyArray<[keyof InformerTuning, unknown, string]> = [
  ['pageSize', 0, 'an integer from 1 to 100000, got 0'],
  ['pageSize', Number.NaN, 'an integer from 1 to 100000, got NaN'],
  ['watchTimeoutSeconds', 1.5, 'an integer from 1 to 86400, got 1.5'],
  ['staleAfterMs', Number.POSITIVE_INFINITY, 'a number of milliseconds from 1 to 2147483647, got Infinity'],
  ['restartBackoffMs', 1000, 'an object, got 1000'],
  ['staleGraceMs', -1, 'a number of milliseconds from 0 to 2147483647, got -1'],
  ['directListTtlMs', Number.NaN, 'a number of milliseconds from 0 to 2147483647, got NaN'],
  ['maxObjects', 0, 'an integer from 1 to 10000000, got 0'],
  ['maxObjects', Number.POSITIVE_INFINITY, 'an integer from 1 to 10000000, got Infinity']
]

function refusedByBoth (tuning: KubernetesTuning, option: string, message: string): void {
  // Through the public createAuthManager (any mode) and the kubernetes manager itself.
  assert.throws(() => createAuthManager({ type: 'no_auth' }, { logger: silentLogger, kubernetes: { tuning } }), {
    name: 'OptionError', option, message: `feast-authz: createAuthManager: ${option} must be ${message}`
  })
  assert.throws(() => createKubernetesManager(KUBERNETES_CONFIG, { logger: silentLogger, tuning }), {
    name: 'OptionError', option, message: `feast-authz: ${option} must be ${message}`
  })
}

describe('kubernetes tuning options', () => {
  for (const [field, value, message] of tuningCases) {
    test(`tuning.${field} = ${String(value)} is refused with kubernetes.tuning.${field} named`, () => {
      refusedByBoth({ [field]: value } as KubernetesTuning, `kubernetes.tuning.${field}`, message)
    })
  }
})

describe('informer tuning options', () => {
  for (const [field, value, message] of informerCases) {
    test(`tuning.informer.${field} = ${String(value)} is refused with kubernetes.tuning.informer.${field} named`, () => {
      refusedByBoth({ informer: { [field]: value } as InformerTuning }, `kubernetes.tuning.informer.${field}`, message)
    })
  }

  test('a restart backoff needs both delays, each a finite number of milliseconds', () => {
    refusedByBoth({ informer: { restartBackoffMs: { initial: 1000 } as never } }, 'kubernetes.tuning.informer.restartBackoffMs.max',
      'a number of milliseconds from 0 to 2147483647, got nothing')
    refusedByBoth({ informer: { restartBackoffMs: { initial: Number.NaN, max: 1000 } } }, 'kubernetes.tuning.informer.restartBackoffMs.initial',
      'a number of milliseconds from 0 to 2147483647, got NaN')
  })

  test('informer.watch is not an option: no public setting starts a manager whose health() can never be ready', () => {
    assert.throws(() => createAuthManager({ type: 'no_auth' }, { logger: silentLogger, kubernetes: { tuning: { informer: { watch: false } as InformerTuning } } }), {
      name: 'OptionError',
      option: 'kubernetes.tuning.informer.watch',
      message: /kubernetes\.tuning\.informer\.watch is no longer an option: a manager always watches RoleBindings and Roles/
    })
  })

  test('a restart backoff whose initial delay exceeds its max is refused', () => {
    refusedByBoth({ informer: { restartBackoffMs: { initial: 5000, max: 1000 } } }, 'kubernetes.tuning.informer.restartBackoffMs',
      'a backoff whose initial is at most its max')
  })
})
