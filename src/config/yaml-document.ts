import { LineCounter, parseAllDocuments, parseDocument, type Document, type DocumentOptions, type ParseOptions, type YAMLError } from 'yaml'
import { yamlReason } from './yaml-reason.ts'

/** A parsed YAML document, its plain data, and what is needed to turn offsets into line:col. */
export interface YamlDocument {
  readonly doc: Document
  readonly lineCounter: LineCounter
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
  const doc = parseDocument(text, parseOptions(lineCounter))
  return { doc, lineCounter, data: judge(doc, lineCounter, options) }
}

/** Every document of a YAML stream (`---` between them), each judged as {@link parseYamlDocument} judges one. */
export function parseYamlDocuments (text: string, options: ParseYamlOptions): YamlDocument[] {
  const lineCounter = new LineCounter()
  return parseAllDocuments(text, parseOptions(lineCounter)).map((doc) => ({ doc, lineCounter, data: judge(doc, lineCounter, options) }))
}

function parseOptions (lineCounter: LineCounter): ParseOptions & DocumentOptions {
  return { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true }
}

/** The document's data, or the caller's error for its first problem. */
function judge (doc: Document, lineCounter: LineCounter, options: ParseYamlOptions): unknown {
  const problem: YAMLError | undefined = doc.errors[0] ?? (options.warningsAreErrors === true ? doc.warnings[0] : undefined)
  if (problem !== undefined) {
    const pos = lineCounter.linePos(problem.pos[0])
    const reason = problem.code === 'DUPLICATE_KEY' ? 'duplicate key' : yamlReason(problem.message)
    throw options.error(`invalid YAML: ${reason}`, { line: pos.line, column: pos.col })
  }
  try {
    return doc.toJS({ maxAliasCount: options.maxAliases })
  } catch (error) {
    // An alias naming no anchor fails here, and its message names the alias: an unquoted `*secret`.
    throw options.error(`invalid YAML: ${yamlReason((error as Error).message)}`)
  }
}
