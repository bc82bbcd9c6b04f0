import { isMap, isScalar, type Document } from 'yaml'
import { describeKind } from '../base/describe-value.ts'
import { ConfigError } from './errors.ts'
import { readTextFile } from './read-text-file.ts'
import { parseYamlDocument, positionsIn, type PositionOf } from './yaml-document.ts'
import { expandEnvReferences } from './env-references.ts'

/**
 * Where a `feature_store.yaml` comes from:
 * - a path to the file (string without a newline, or a `URL`);
 * - the YAML text itself (any string containing a newline, or `{ yaml }`);
 * - an already parsed object;
 * - `undefined`: `FEATURE_STORE_YAML_BASE64`, then `./feature_store.yaml`.
 */
export type FeatureStoreSource = string | URL | { yaml: string, source?: string } | Record<string, unknown> | undefined

/** The parsed file plus what is needed to point at a line in error messages. */
export interface FeatureStoreFile {
  readonly data: Readonly<Record<string, unknown>>
  /** Display name of the origin (a path, or `FEATURE_STORE_YAML_BASE64`), undefined for objects. */
  readonly source: string | undefined
  /** Line and column of a field, when the file was YAML text. */
  locate (path: readonly string[]): { line: number, column: number } | undefined
  /**
   * Where the text refers to an environment variable that is not set (`$NAME`, `${NAME}`): kept
   * as written, as Feast keeps it, and worth a warning. Positions only: the name may be part of a
   * secret that merely holds a `$`.
   */
  readonly unsetReferences?: ReadonlyArray<{ readonly line: number, readonly column: number }>
}

export const BASE64_ENV = 'FEATURE_STORE_YAML_BASE64'
const MAX_FILE_BYTES = 1024 * 1024
// A feature_store.yaml has no use for aliases; a handful are tolerated, a "billion laughs" is not.
const MAX_ALIASES = 50

/**
 * Reads a `feature_store.yaml` as the plugin does (size and alias limits, one document), for
 * the sections feast-authz does not read itself (`project`, `registry`, your own). Errors are
 * `ConfigError`s naming the file; `locate()` gives the line of a field for your own.
 *
 * @example
 * ```ts
 * import { readFeatureStoreFile } from 'feast-authz'
 * const file = readFeatureStoreFile('./feature_store.yaml')
 * console.log(file.data.project, file.locate(['project'])?.line)
 * ```
 */
export function readFeatureStoreFile (input: FeatureStoreSource, env: NodeJS.ProcessEnv = process.env): FeatureStoreFile {
  return readYamlSource(input, FEATURE_STORE, env)
}

/** What a YAML file read like a `feature_store.yaml` is, in the words of its errors. */
export interface YamlFileKind {
  /** E.g. `a feature_store.yaml`: "larger than the N bytes <kind> may have". */
  readonly kind: string
  /** E.g. `the configuration`: "cannot read <what>: file not found", "<what> is larger than N bytes". */
  readonly what: string
  /** Integers beyond ±(2^53 − 1) are read as BigInts (the registry YAML's int64 keys), not rounded. */
  readonly exactIntegers?: boolean
  /** `$NAME` and `${NAME}` in the text are replaced from the environment first, as Feast does for feature_store.yaml. */
  readonly expandEnv?: boolean
}

const FEATURE_STORE: YamlFileKind = { kind: 'a feature_store.yaml', what: 'the configuration', expandEnv: true }

/**
 * A feature_store.yaml as written, its `${VAR}` references kept: for `operator render --base`,
 * which writes the file for another machine, whose environment is not this one's.
 */
export function readFeatureStoreFileAsWritten (input: string): FeatureStoreFile {
  return readYamlSource(input, { ...FEATURE_STORE, expandEnv: false })
}

/**
 * {@link readFeatureStoreFile} for another YAML file read with the same limits (a FeatureStore
 * resource), whose read errors name what it is.
 */
export function readYamlSource (input: FeatureStoreSource, file: YamlFileKind, env: NodeJS.ProcessEnv = process.env): FeatureStoreFile {
  if (input instanceof URL) return fromPath(input, file, env)
  if (typeof input === 'string') return input.includes('\n') ? fromText(input, undefined, file, env) : fromPath(input, file, env)
  if (input === undefined) return fromDefaultLocation(env)
  // null (JavaScript callers, `yaml.parse('')`) must be a ConfigError, not a TypeError from Object.hasOwn.
  if (input !== null && typeof input === 'object' && isYamlText(input)) return fromText(input.yaml, input.source, file, env)
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ConfigError(`expected a path, YAML text or an object for ${file.kind}, got ${input === null ? 'null' : Array.isArray(input) ? 'a list' : typeof input}`)
  }
  return { data: input, source: undefined, locate: () => undefined }
}

/**
 * `error` placed in `file`: a {@link ConfigError} that names a field of the file but not the file
 * (one raised after loading, e.g. by a manager opening `auth.ca_cert_path`) is given the file,
 * line and column of that field. Any other error is returned unchanged.
 */
export function placeConfigError (error: unknown, file: FeatureStoreFile): unknown {
  if (!(error instanceof ConfigError) || error.source !== undefined || error.field === undefined) return error
  const position = file.locate(error.field.split('.'))
  if (file.source === undefined && position === undefined) return error
  return new ConfigError(error.detail, { source: file.source, field: error.field, line: position?.line, column: position?.column }, error.cause ?? error)
}

function isYamlText (input: object): input is { yaml: string, source?: string } {
  return Object.hasOwn(input, 'yaml') && typeof (input as { yaml?: unknown }).yaml === 'string'
}

function fromDefaultLocation (env: NodeJS.ProcessEnv): FeatureStoreFile {
  const encoded = env[BASE64_ENV]
  if (encoded !== undefined && encoded.trim() !== '') return fromBase64(encoded, env)
  try {
    return fromPath('feature_store.yaml', FEATURE_STORE, env)
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code === 'ENOENT') {
      throw new ConfigError(`no configuration given: pass the \`config\` option, set ${BASE64_ENV}, or put a feature_store.yaml in ${process.cwd()}`)
    }
    throw error
  }
}

/** Decodes `FEATURE_STORE_YAML_BASE64`, rejecting anything that is not base64 rather than guessing. */
export function fromBase64 (encoded: string, env: NodeJS.ProcessEnv = process.env): FeatureStoreFile {
  const compact = encoded.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw new ConfigError('is not valid base64 (expected the base64 encoding of a whole feature_store.yaml)', { source: BASE64_ENV })
  }
  if (compact.length > (MAX_FILE_BYTES * 4) / 3 + 4) {
    throw new ConfigError(`is larger than ${MAX_FILE_BYTES} bytes once decoded`, { source: BASE64_ENV })
  }
  return fromText(Buffer.from(compact, 'base64').toString('utf8'), BASE64_ENV, FEATURE_STORE, env)
}

function fromPath (path: string | URL, file: YamlFileKind, env: NodeJS.ProcessEnv): FeatureStoreFile {
  const text = readTextFile(path, {
    maxBytes: MAX_FILE_BYTES,
    kind: file.kind,
    cannotRead: `cannot read ${file.what}`,
    error: (message, source, cause) => new ConfigError(message, { source }, cause)
  })
  return fromText(text, path instanceof URL ? path.pathname : path, file, env)
}

export function fromText (
  written: string,
  source: string | undefined,
  file: YamlFileKind = FEATURE_STORE,
  env: NodeJS.ProcessEnv = process.env
): FeatureStoreFile {
  if (Buffer.byteLength(written) > MAX_FILE_BYTES) {
    throw new ConfigError(`${file.what} is larger than ${MAX_FILE_BYTES} bytes`, { source })
  }
  const expanded = file.expandEnv === true ? expandEnvReferences(written, env) : undefined
  const text = expanded?.text ?? written
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
    throw new ConfigError(`${file.what} is larger than ${MAX_FILE_BYTES} bytes once its $NAME and \${NAME} references are replaced`, { source })
  }
  // Positions are told in the file as written, whatever the values put in its place.
  const writtenPosition = expanded === undefined || text === written ? undefined : positionsIn(written)
  const { doc, positionOf, data: parsed } = parseYamlDocument(text, {
    maxAliases: MAX_ALIASES,
    exactIntegers: file.exactIntegers,
    positionOf: writtenPosition === undefined ? undefined : (offset) => writtenPosition(expanded?.writtenOffset(offset) ?? offset),
    error: (message, position) => new ConfigError(message, { source, line: position?.line, column: position?.column })
  })
  // Empty, or comments only: YAML reads null, which says nothing of what the file lacks.
  if (doc.contents === null) throw new ConfigError('the file is empty (or holds only comments): expected a mapping at the top of the file', { source })
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !isMap(doc.contents)) {
    // The kind only, never the value: a file given by mistake may hold a token. A list is most
    // likely the permissions file, given where feature_store.yaml goes: said so.
    const hint = file === FEATURE_STORE && Array.isArray(parsed) ? ' (a list of permissions goes in the permissions file; feature_store.yaml is a mapping of project, registry, auth...)' : ''
    throw new ConfigError(`expected a mapping at the top of the file, got ${describeKind(parsed)}${hint}`, { source })
  }
  const located = { data: parsed as Record<string, unknown>, source, locate: (path: readonly string[]) => locate(doc, positionOf, path) }
  if (expanded === undefined || expanded.unset.length === 0) return located
  const writtenLines = writtenPosition ?? positionsIn(written)
  const unsetReferences = expanded.unset.map(writtenLines).map(({ line, col }) => ({ line, column: col }))
  return { ...located, unsetReferences }
}

function locate (doc: Document, positionOf: PositionOf, path: readonly string[]): { line: number, column: number } | undefined {
  // Point at the key when the path names one, so "unknown key" errors land on the key itself.
  for (let depth = path.length; depth > 0; depth--) {
    const parent = depth === 1 ? doc.contents : doc.getIn(path.slice(0, depth - 1), true)
    if (!isMap(parent)) continue
    const pair = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === path[depth - 1])
    const range = pair !== undefined && isScalar(pair.key) ? pair.key.range : undefined
    if (range !== undefined && range !== null) {
      const pos = positionOf(range[0])
      return { line: pos.line, column: pos.col }
    }
  }
  return undefined
}
