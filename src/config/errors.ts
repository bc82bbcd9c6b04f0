import { FeastAuthzError } from '../base/errors.ts'
import { describeValue } from '../base/describe-value.ts'
import { didYouMean } from '../base/did-you-mean.ts'

export interface ConfigErrorDetails {
  source?: string | undefined
  field?: string | undefined
  line?: number | undefined
  column?: number | undefined
}

/**
 * A configuration problem found at load time. The message always says where
 * (file, line when known, field path), what was found and what was expected,
 * and never contains the value of a secret field.
 */
export class ConfigError extends FeastAuthzError {
  override readonly name = 'ConfigError'
  declare readonly code: 'FEAST_AUTHZ_CONFIG'
  /** The file (or `FEATURE_STORE_YAML_BASE64`) the configuration came from, when there is one. */
  readonly source: string | undefined
  /** Dotted path of the offending field, e.g. `auth.jwks_cache_lifespan_seconds`. */
  readonly field: string | undefined
  /** What is wrong, without the place (file, line, field) the message starts with. */
  readonly detail: string

  constructor (message: string, details: ConfigErrorDetails = {}, cause?: unknown) {
    const where = [details.source, details.line === undefined ? undefined : `${details.line}:${details.column ?? 1}`]
      .filter((part) => part !== undefined)
      .join(':')
    const field = details.field === undefined ? '' : `${details.field}: `
    super('FEAST_AUTHZ_CONFIG', `${where === '' ? '' : `${where}: `}${field}${message}`, { cause })
    this.source = details.source
    this.field = details.field
    this.detail = message
  }

  /**
   * Renders a bad value for an error message as feast-authz does: short, typed, and a secret
   * never shown (`a string (value hidden)`). For callers that report their own sections.
   * An integer read exactly (a BigInt, as the registry YAML's sample rows keep large ones) is
   * written as the file writes it, without JavaScript's `n`.
   */
  static describe (value: unknown, secret = false): string {
    return typeof value === 'bigint' && !secret ? String(value) : describeValue(value, secret)
  }

  /**
   * ` (did you mean X?)` when one of the `known` names is close to the misspelt `name`, else
   * nothing, as feast-authz's own files say it: for callers that report their own sections
   * (the reference server's registry YAML), to put after "unknown key" and the like.
   */
  static didYouMean (name: string, known: readonly string[]): string {
    return didYouMean(name, known)
  }
}
