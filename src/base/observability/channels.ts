import { channel } from 'node:diagnostics_channel'
import { hash } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { AuthErrorCode } from '../errors.ts'
import type { AuthSource } from '../principal.ts'

/**
 * `node:diagnostics_channel` names feast-authz publishes on, so metrics and tracing
 * (OpenTelemetry, prom-client, ...) can attach without feast-authz depending on them.
 * Messages are only built when a channel has subscribers.
 */
export const CHANNELS = {
  authenticate: 'feast-authz:authenticate',
  authorize: 'feast-authz:authorize',
  jwksFetch: 'feast-authz:jwks-fetch',
  tokenReview: 'feast-authz:token-review'
} as const

/** Published once per authenticated (or rejected) request. */
export interface AuthenticateEvent {
  readonly outcome: 'success' | 'failure' | 'error'
  /** Stable reason of a failure or error. */
  readonly code?: AuthErrorCode | 'internal_error'
  readonly username?: string
  readonly source?: AuthSource
  /** A short, one-way fingerprint of the token (never the token): correlates log lines of one token. */
  readonly fingerprint?: string
  readonly durationMs: number
}

/** Published once per permission check. */
export interface AuthorizeEvent {
  readonly decision: 'allow' | 'deny' | 'unauthenticated'
  readonly username?: string
  /** `Type:name` of each resource checked. */
  readonly resources: readonly string[]
  readonly actions: readonly string[]
  /** The permission that granted, when one did. */
  readonly permission?: string
  readonly durationMs: number
}

/** Published after each fetch of a provider's key set. */
export interface JwksFetchEvent {
  readonly url: string
  readonly outcome: 'success' | 'error'
  readonly keys?: number
  readonly error?: string
  readonly durationMs: number
}

/** Published after each TokenReview call (cache hits are not calls). */
export interface TokenReviewEvent {
  readonly outcome: 'authenticated' | 'rejected' | 'error'
  readonly username?: string
  readonly error?: string
  readonly durationMs: number
}

export const authenticateChannel = channel(CHANNELS.authenticate)
export const authorizeChannel = channel(CHANNELS.authorize)
export const jwksFetchChannel = channel(CHANNELS.jwksFetch)
export const tokenReviewChannel = channel(CHANNELS.tokenReview)

/**
 * First 12 characters of the token's SHA-256 in base64url: enough to tell tokens apart
 * in logs, useless for replaying or reconstructing one.
 */
export function tokenFingerprint (token: string): string {
  return hash('sha256', token, 'base64url').slice(0, 12)
}

/** Milliseconds since `startedAt` (a `performance.now()` reading), to the microsecond. */
export function elapsedMs (startedAt: number): number {
  return Math.round((performance.now() - startedAt) * 1000) / 1000
}
