import { LineCounter, parseAllDocuments, parseDocument, visit, type Document, type DocumentOptions, type ParseOptions, type ScalarTag, type SchemaOptions, type YAMLError } from 'yaml'
import { yamlReason } from './yaml-reason.ts'

/** Line and column (from 1) of an offset in the parsed text, in the text as written. */
export type PositionOf = (offset: number) => { line: number, col: number }

/** A parsed YAML document, its plain data, and what is needed to turn offsets into line:col. */
export interface YamlDocument {
  readonly doc: Document
  /** Line and column of an offset: the parsed text's own, or the caller's {@link ParseYamlOptions.positionOf}. */
  readonly positionOf: PositionOf
  /** `doc.toJS()`: null or undefined for an empty document. */
  readonly data: unknown
}

/** How {@link parseYamlDocument} judges the text, and the caller's error type. */
export interface ParseYamlOptions {
  /**
   * Aliases allowed when expanding: configuration has no use for them, so a handful are
   * tolerated and a "billion laughs" is not.
   */
  readonly maxAliases: number
  /** Also refuse parser warnings (an unresolved `!!tag`, for one). Default false. */
  readonly warningsAreErrors?: boolean | undefined
  /**
   * Read an integer beyond ±(2^53 − 1) as the BigInt it writes, not the double nearest to it;
   * every other integer stays a number. Default false.
   */
  readonly exactIntegers?: boolean | undefined
  /**
   * Where an offset of the parsed text is in the text as written, when the two differ (a
   * feature_store.yaml whose `${VAR}` references were replaced). Default: the parsed text's own.
   */
  readonly positionOf?: PositionOf | undefined
  /** Builds the caller's error (ConfigError, PermissionError) with its source and, when known, the position. */
  readonly error: (message: string, position?: { line: number, column: number }) => Error
}

/**
 * Parses one YAML document strictly: duplicate keys are errors, and the first problem is
 * reported as `invalid YAML: <reason>` at its line and column. The reason never quotes the text
 * (see yaml-reason.ts): configuration files hold secrets.
 */
export function parseYamlDocument (text: string, options: ParseYamlOptions): YamlDocument {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, parseOptions(lineCounter, options))
  const positionOf = options.positionOf ?? ((offset: number) => lineCounter.linePos(offset))
  return { doc, positionOf, data: judge(doc, positionOf, options) }
}

/** Every document of a YAML stream (`---` between them), each judged as {@link parseYamlDocument} judges one. */
export function parseYamlDocuments (text: string, options: ParseYamlOptions): YamlDocument[] {
  const lineCounter = new LineCounter()
  const positionOf = options.positionOf ?? ((offset: number) => lineCounter.linePos(offset))
  return parseAllDocuments(text, parseOptions(lineCounter, options)).map((doc) => ({ doc, positionOf, data: judge(doc, positionOf, options) }))
}

function parseOptions (lineCounter: LineCounter, options: ParseYamlOptions): ParseOptions & DocumentOptions & SchemaOptions {
  return { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true, ...(options.exactIntegers === true ? { customTags: exactIntegerTags } : {}) }
}

type Tags = Extract<NonNullable<SchemaOptions['customTags']>, unknown[]>

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER)
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * The schema's integer tags (decimal, octal, hex) reading every integer as a BigInt, then giving
 * back a number for those a double holds exactly: only the others stay BigInts.
 */
function exactIntegerTags (tags: Tags): Tags {
  return tags.map((tag) => {
    if (typeof tag !== 'object' || tag.tag !== 'tag:yaml.org,2002:int' || !('resolve' in tag)) return tag
    // Integer tags are scalar tags: their resolve reads the source text.
    const resolve = tag.resolve as (source: string, onError: (message: string) => void, options: ParseOptions) => unknown
    return {
      ...tag,
      resolve: (source: string, onError: (message: string) => void, options: ParseOptions) => {
        const value = resolve(source, onError, { ...options, intAsBigInt: true })
        return typeof value === 'bigint' && value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value
      }
    } as ScalarTag
  })
}

/** The document's data, or the caller's error for its first problem. */
function judge (doc: Document, positionOf: PositionOf, options: ParseYamlOptions): unknown {
  const problem: YAMLError | undefined = doc.errors[0] ?? (options.warningsAreErrors === true ? doc.warnings[0] : undefined)
  if (problem !== undefined) {
    const pos = positionOf(problem.pos[0])
    const reason = problem.code === 'DUPLICATE_KEY' ? 'duplicate key' : yamlReason(problem.message)
    throw options.error(`invalid YAML: ${reason}`, { line: pos.line, column: pos.col })
  }
  try {
    return doc.toJS({ maxAliasCount: options.maxAliases })
  } catch (error) {
    // An alias naming no anchor fails here, and its message names the alias: an unquoted `*secret`.
    // The message is not shown; where the alias is written is, as for any other YAML error.
    const at = unresolvedAliasOffset(doc)
    const pos = at === undefined ? undefined : positionOf(at)
    throw options.error(`invalid YAML: ${yamlReason((error as Error).message)}`, pos === undefined ? undefined : { line: pos.line, column: pos.col })
  }
}

/** Where the first alias naming no anchor starts, if there is one. */
function unresolvedAliasOffset (doc: Document): number | undefined {
  let offset: number | undefined
  visit(doc, {
    Alias (_key, alias) {
      if (alias.resolve(doc) !== undefined) return undefined
      offset = alias.range?.[0]
      return visit.BREAK
    }
  })
  return offset
}

/** {@link PositionOf} for `text`: the line and column of an offset in it. */
export function positionsIn (text: string): PositionOf {
  const counter = new LineCounter()
  counter.addNewLine(0)
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) counter.addNewLine(at + 1)
  return (offset) => counter.linePos(offset)
}
