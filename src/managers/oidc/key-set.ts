import { createRemoteJWKSet, customFetch, errors, type JWK, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose'
import type http from 'node:http'
import type https from 'node:https'
import { performance } from 'node:perf_hooks'
import { elapsedMs, jwksFetchChannel, type JwksFetchEvent } from '../../base/observability/channels.ts'
import { urlForLog } from '../../base/observability/log-safe-url.ts'
import { AuthError } from '../../base/errors.ts'
import { prepareKeys, type PreparedKey, type PreparedKeys } from './fast-verify.ts'
import { httpGet, ProviderRequestError } from '../../base/http/http-get.ts'

export interface KeySetOptions {
  readonly agents: { http: http.Agent, https: https.Agent }
  readonly lifespanMs: number
  readonly timeoutMs: number
  /** Minimum time between two refetches caused by unknown `kid`s: a `kid` flood costs one fetch per period. */
  readonly cooldownMs: number
  /** After a failed fetch, further fetches are refused for this long instead of piling onto a sick provider. */
  readonly failureBackoffMs: number
}

type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>
export type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => ReturnType<RemoteKeySet>

export interface KeySet {
  readonly resolve: KeyResolver
  /** The keys currently held, or undefined before the first successful fetch. */
  readonly keys: () => readonly JWK[] | undefined
  readonly fresh: () => boolean
  readonly reload: () => Promise<void>
  /** The keys as `node:crypto` objects, while the set is within its lifespan; undefined otherwise. */
  readonly preparedKeys: () => PreparedKeys | undefined
  /** Whether `key` is still in the current, fresh set: verdicts reached with it may still be served. */
  readonly isCurrent: (key: PreparedKey) => boolean
}

/**
 * jose's remote key set (cache lifespan, refetch on unknown `kid` with a cooldown,
 * one shared in-flight fetch) over our own HTTP client, so that `verify_ssl`,
 * `ca_cert_path`, body limits and failure back-off apply. Errors reaching the
 * provider become 503s; a key that is not in a fresh set stays a 401.
 */
export function createKeySet (jwksUri: string, options: KeySetOptions): KeySet {
  let lastFailure: { at: number, error: Error } | undefined
  let prepared: PreparedKeys | undefined
  let fetchedAt = Number.NEGATIVE_INFINITY
  const isFresh = (): boolean => Date.now() < fetchedAt + options.lifespanMs

  const fetchKeys = async (url: string, init: { signal?: AbortSignal | null }): Promise<Response> => {
    if (lastFailure !== undefined && Date.now() - lastFailure.at < options.failureBackoffMs) throw lastFailure.error
    const startedAt = performance.now()
    try {
      const response = await httpGet(url, { agents: options.agents, signal: init.signal ?? AbortSignal.timeout(options.timeoutMs), headers: { accept: 'application/json, application/jwk-set+json' } })
      if (response.status !== 200) throw new ProviderRequestError(`key set ${urlForLog(url)} answered HTTP ${response.status}`)
      let parsed: unknown
      try {
        parsed = JSON.parse(response.body.toString('utf8'))
      } catch {
        throw new ProviderRequestError(`key set ${urlForLog(url)} is not JSON`)
      }
      const keys = typeof parsed === 'object' && parsed !== null ? (parsed as { keys?: unknown }).keys : undefined
      if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'object' && key !== null && !Array.isArray(key))) {
        throw new ProviderRequestError(`key set ${urlForLog(url)} has no "keys" list of objects`)
      }
      // No provider signs with nothing: an empty set is a fault (or an interception), not a rotation.
      if (keys.length === 0) throw new ProviderRequestError(`key set ${urlForLog(url)} is empty`)
      prepared = prepareKeys(keys, prepared)
      fetchedAt = Date.now()
      lastFailure = undefined
      if (jwksFetchChannel.hasSubscribers) jwksFetchChannel.publish({ url: urlForLog(url), outcome: 'success', keys: keys.length, durationMs: elapsedMs(startedAt) } satisfies JwksFetchEvent)
      return new Response(response.body, { status: 200, headers: { 'content-type': 'application/json' } })
    } catch (error) {
      const failure = error instanceof ProviderRequestError ? error : new ProviderRequestError(`key set ${urlForLog(url)} could not be fetched: ${(error as Error).message}`, { cause: error })
      lastFailure = { at: Date.now(), error: failure }
      if (jwksFetchChannel.hasSubscribers) jwksFetchChannel.publish({ url: urlForLog(url), outcome: 'error', error: failure.message, durationMs: elapsedMs(startedAt) } satisfies JwksFetchEvent)
      throw failure
    }
  }

  const remote = createRemoteJWKSet(new URL(jwksUri), {
    cacheMaxAge: options.lifespanMs,
    // jose's own cooldown counts from any fetch, which would refuse a key rotated in just
    // after startup: unknown-kid refetches are rate-limited below instead, so jose's never fires.
    cooldownDuration: options.lifespanMs,
    timeoutDuration: Math.max(1, Math.round(options.timeoutMs)),
    [customFetch]: fetchKeys
  })

  let lastUnknownKidRefetch = Number.NEGATIVE_INFINITY
  const lookUp: KeyResolver = async (header, token) => {
    try {
      return await remote(header, token)
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys || error instanceof errors.JOSENotSupported) throw error
      throw new AuthError('provider_unavailable', 'the signing keys of the identity provider could not be fetched', { cause: error })
    }
  }

  /**
   * An unknown `kid` refetches the set at once, unless another unknown-`kid` refetch happened
   * within the cooldown: a flood of random `kid`s costs one fetch per cooldown, while a key
   * rotated in right after a scheduled fetch is still picked up. Requests arriving while a
   * fetch is in flight wait for it instead of failing.
   */
  const resolve: KeyResolver = async (header, token) => {
    try {
      return await lookUp(header, token)
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error
      if (!remote.reloading) {
        if (Date.now() - lastUnknownKidRefetch < options.cooldownMs) throw error
        lastUnknownKidRefetch = Date.now()
      }
      try {
        await remote.reload()
      } catch (cause) {
        throw new AuthError('provider_unavailable', 'the signing keys of the identity provider could not be fetched', { cause })
      }
      return await lookUp(header, token)
    }
  }

  return {
    resolve,
    keys: () => remote.jwks()?.keys,
    fresh: () => remote.fresh,
    reload: () => remote.reload(),
    preparedKeys: () => isFresh() ? prepared : undefined,
    isCurrent: (key) => isFresh() && prepared?.get(key.kid)?.includes(key) === true
  }
}
