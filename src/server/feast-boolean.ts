/**
 * Booleans as Feast's server reads them. FastAPI validates Feast's request models and query
 * parameters with pydantic in lax mode, which takes for a `bool` not only `true` and `false` but
 * the numbers 0 and 1 and the words below, in any case. Clients written against Feast (and
 * `curl` users copying its examples) send them, so a body flag such as `"full_feature_names":
 * "true"` is read here as Feast reads it. Anything else (null, 2, "maybe", a list) is a 422.
 */

const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes'])
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no'])

/** What the accepted values are, for error messages. */
export const FEAST_BOOLEAN_VALUES = 'true or false (or 1, 0, "yes", "no", "on", "off", "t", "f", "y", "n", in any case)'

/** The boolean `value` stands for, as pydantic reads it; undefined when pydantic would refuse it. */
export function feastBoolean (value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value
  if (value === 0 || value === 1) return value === 1
  if (typeof value !== 'string') return undefined
  const word = value.toLowerCase()
  if (TRUE_WORDS.has(word)) return true
  if (FALSE_WORDS.has(word)) return false
  return undefined
}

/** The JSON schema of a body flag: the `feastBoolean` keyword of {@link addFeastBooleanKeyword}. */
export const flagSchema = { feastBoolean: true } as const

// Ajv's own types are not imported: ajv is Fastify's dependency, not ours.
interface KeywordDefinition { keyword: string, schemaType: 'boolean', modifying: boolean, errors: boolean, validate: KeywordCheck }
interface KeywordData { readonly parentData?: Record<string, unknown>, readonly parentDataProperty?: string | number }
interface KeywordCheck {
  (schema: unknown, data: unknown, parentSchema: unknown, where?: KeywordData): boolean
  errors?: Array<{ keyword: string, message: string, params: Record<string, unknown> }>
}

/**
 * An Ajv plugin (Fastify's `ajv.plugins`) adding the `feastBoolean` keyword: the value must be one
 * {@link feastBoolean} accepts, and is replaced by the boolean before the handler reads it, so
 * handlers only ever see `true` or `false`.
 */
export function addFeastBooleanKeyword<Ajv extends { addKeyword (definition: KeywordDefinition): unknown }> (ajv: Ajv): Ajv {
  const check: KeywordCheck = (_schema, data, _parentSchema, where) => {
    const value = feastBoolean(data)
    if (value === undefined) {
      check.errors = [{ keyword: 'feastBoolean', message: `must be ${FEAST_BOOLEAN_VALUES}`, params: {} }]
      return false
    }
    if (where?.parentData !== undefined && where.parentDataProperty !== undefined) where.parentData[where.parentDataProperty] = value
    return true
  }
  ajv.addKeyword({ keyword: 'feastBoolean', schemaType: 'boolean', modifying: true, errors: true, validate: check })
  return ajv
}
