import { createLocalJWKSet, errors, type JSONWebKeySet, type JWK, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose'
import type http from 'node:http'
import type https from 'node:https'
import { performance } from 'node:perf_hooks'
import { elapsedMs, jwksFetchChannel, type JwksFetchEvent } from '../../base/observability/channels.ts'
import { urlForLog } from '../../base/observability/log-safe-url.ts'
import { AuthError } from '../../base/errors.ts'
import { selectKeys, type IgnoredKey, type PreparedKey, type PreparedKeys } from './fast-verify.ts'
import { createFailureBackoff } from '../../base/failure-backoff.ts'
import { httpGet, ProviderRequestError } from '../../base/http/http-get.ts'

export interface KeySetOptions {
  readonly agents: { http: http.Agent, https: https.Agent }
  readonly lifespanMs: number
  readonly timeoutMs: number
  /** Minimum time between two refetches caused by unknown `kid`s: a `kid` flood costs one fetch per period. */
  readonly cooldownMs: number
  /** After a failed fetch, further fetches are refused for this long instead of piling onto a sick provider. */
  readonly failureBackoffMs: number
  /** A key of the provider's set that is not used (called once per distinct key). */
  readonly onIgnoredKey?: ((key: IgnoredKey) => void) | undefined
  /** A background refresh failed; the current keys stay in use until their lifespan ends. */
  readonly onRefreshError?: ((error: Error) => void) | undefined
  /** Epoch milliseconds; a test passes a fake clock. */
  readonly now?: (() => number) | undefined
}

type LocalKeySet = ReturnType<typeof createLocalJWKSet>
export type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => ReturnType<LocalKeySet>

export interface KeySet {
  /** jose's key lookup over exactly the keys we accept; refetches when stale or on an unknown `kid`. */
  readonly resolve: KeyResolver
  /** The keys currently held (those accepted), or undefined before the first successful fetch. */
  readonly keys: () => readonly JWK[] | undefined
  readonly fresh: () => boolean
  /** Fetches now (joining a fetch in flight). Rejects with the provider's error. */
  readonly reload: () => Promise<void>
  /** The keys as `node:crypto` objects, while the set is within its lifespan; undefined otherwise. */
  readonly preparedKeys: () => PreparedKeys | undefined
  /**
   * Whether `key` is still in the current, fresh set: verdicts reached with it may still be
   * served. `at` is the caller's own reading of the clock, so that one reading serves a cache hit.
   */
  readonly isCurrent: (key: PreparedKey, at?: number) => boolean
  /**
   * Whether a token naming a `kid` the fresh set lacks can be refused at once: the unknown-`kid`
   * cooldown runs and no fetch is in flight, so jose would find no key and no refetch would run.
   */
  readonly refusesUnknownKid: () => boolean
}

/** At most this many ignored keys are remembered as "already logged". */
const LOGGED_KEYS_LIMIT = 1000

/**
 * The provider's key set over our own HTTP client (so that `verify_ssl`, `ca_cert_path`, body
 * limits and failure back-off apply), with one shared in-flight fetch.
 *
 * Keys live `lifespanMs` from their fetch and are never used after (spec 5.2.9). They are
 * refetched in the background ahead of that (a fifth of the lifespan, more for a slow provider),
 * from the first use in that window, so that no request waits for a scheduled refresh; if that
 * refresh fails, the current keys serve until the lifespan ends, after which requests wait for a
 * fetch, and fail with a 503 if it fails.
 * An unknown `kid` refetches at once, at most once per cooldown.
 */
export function createKeySet (jwksUri: string, options: KeySetOptions): KeySet {
  const now = options.now ?? Date.now
  // Ahead by a fifth of the lifespan, or by twice the provider's last answer time when that is
  // longer (at most half the lifespan), and never by more than the fetch timeout: a fetch started
  // then ends (or times out) before the keys expire, and the lifespan is barely shortened.
  let leadMs = Math.min(options.lifespanMs / 5, options.timeoutMs)
  const learnAnswerTime = (ms: number): void => {
    leadMs = Math.min(Math.max(options.lifespanMs / 5, 2 * ms), options.lifespanMs / 2, options.timeoutMs)
  }
  let current: { fetchedAt: number, prepared: PreparedKeys, accepted: JWK[], local: LocalKeySet } | undefined
  let inFlight: Promise<void> | undefined
  const backoff = createFailureBackoff(options.failureBackoffMs, now)
  let lastUnknownKidRefetch = Number.NEGATIVE_INFINITY
  const logged = new Set<string>()

  const fetchOnce = async (): Promise<void> => {
    const startedAt = performance.now()
    try {
      const response = await httpGet(jwksUri, { agents: options.agents, signal: AbortSignal.timeout(options.timeoutMs), headers: { accept: 'application/json, application/jwk-set+json' } })
      if (response.status !== 200) throw new ProviderRequestError(`key set ${urlForLog(jwksUri)} answered HTTP ${response.status}`)
      let parsed: unknown
      try {
        parsed = JSON.parse(response.body.toString('utf8'))
      } catch {
        throw new ProviderRequestError(`key set ${urlForLog(jwksUri)} is not JSON`)
      }
      const keys = typeof parsed === 'object' && parsed !== null ? (parsed as { keys?: unknown }).keys : undefined
      if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'object' && key !== null && !Array.isArray(key))) {
        throw new ProviderRequestError(`key set ${urlForLog(jwksUri)} has no "keys" list of objects`)
      }
      // No provider signs with nothing: an empty set is a fault (or an interception), not a rotation.
      if (keys.length === 0) throw new ProviderRequestError(`key set ${urlForLog(jwksUri)} is empty`)
      const selection = selectKeys(keys, current?.prepared)
      for (const ignored of selection.ignored) {
        if (logged.has(ignored.fingerprint)) continue
        if (logged.size >= LOGGED_KEYS_LIMIT) logged.clear()
        logged.add(ignored.fingerprint)
        options.onIgnoredKey?.(ignored)
      }
      if (selection.accepted.length === 0) {
        throw new ProviderRequestError(`key set ${urlForLog(jwksUri)} holds no usable signing key (${selection.ignored.map(describeIgnored).join('; ')})`)
      }
      const accepted = selection.accepted as JWK[]
      current = { fetchedAt: now(), prepared: selection.byKid, accepted, local: createLocalJWKSet({ keys: accepted } as JSONWebKeySet) }
      learnAnswerTime(performance.now() - startedAt)
      backoff.succeeded()
      if (jwksFetchChannel.hasSubscribers) jwksFetchChannel.publish({ url: urlForLog(jwksUri), outcome: 'success', keys: keys.length, durationMs: elapsedMs(startedAt) } satisfies JwksFetchEvent)
    } catch (error) {
      const failure = error instanceof ProviderRequestError ? error : new ProviderRequestError(`key set ${urlForLog(jwksUri)} could not be fetched: ${(error as Error).message}`, { cause: error })
      backoff.failed(failure)
      if (jwksFetchChannel.hasSubscribers) jwksFetchChannel.publish({ url: urlForLog(jwksUri), outcome: 'error', error: failure.message, durationMs: elapsedMs(startedAt) } satisfies JwksFetchEvent)
      throw failure
    }
  }

  const reload = async (): Promise<void> => {
    if (inFlight !== undefined) return await inFlight
    backoff.check()
    inFlight = fetchOnce().finally(() => { inFlight = undefined })
    return await inFlight
  }

  const unavailable = (cause: unknown): AuthError => new AuthError('provider_unavailable', 'the signing keys of the identity provider could not be fetched', { cause })

  const reloadOrFail = async (): Promise<void> => {
    try {
      await reload()
    } catch (cause) {
      throw unavailable(cause)
    }
  }

  /** Whether the keys are within their lifespan at `t`; starts the refresh ahead of expiry when due. */
  const freshAt = (t: number): boolean => {
    if (current === undefined) return false
    const age = t - current.fetchedAt
    if (age >= options.lifespanMs) return false
    if (age >= options.lifespanMs - leadMs && inFlight === undefined && !backoff.waiting()) {
      reload().catch((error: Error) => { options.onRefreshError?.(error) })
    }
    return true
  }

  const resolve: KeyResolver = async (header, token) => {
    if (!freshAt(now())) await reloadOrFail()
    try {
      return await current!.local(header, token)
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error
      // Requests arriving while a fetch is in flight wait for it instead of failing.
      if (inFlight === undefined) {
        if (now() - lastUnknownKidRefetch < options.cooldownMs) throw error
        lastUnknownKidRefetch = now()
      }
      await reloadOrFail()
      return await current!.local(header, token)
    }
  }

  return {
    resolve,
    keys: () => current?.accepted,
    fresh: () => current !== undefined && now() - current.fetchedAt < options.lifespanMs,
    reload,
    preparedKeys: () => freshAt(now()) ? current!.prepared : undefined,
    isCurrent: (key, at = now()) => freshAt(at) && current!.prepared.get(key.kid)?.includes(key) === true,
    refusesUnknownKid: () => inFlight === undefined && now() - lastUnknownKidRefetch < options.cooldownMs
  }
}

function describeIgnored (key: IgnoredKey): string {
  return `${key.kid === undefined ? 'a key without kid' : `kid ${JSON.stringify(key.kid)}`}: ${key.reason}`
}
