import { LineCounter, parseDocument, type Document } from 'yaml'

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
 * reported as `invalid YAML: <reason>` at its line and column.
 */
export function parseYamlDocument (text: string, options: ParseYamlOptions): YamlDocument {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true })
  const problem = doc.errors[0] ?? (options.warningsAreErrors === true ? doc.warnings[0] : undefined)
  if (problem !== undefined) {
    const pos = lineCounter.linePos(problem.pos[0])
    const reason = problem.code === 'DUPLICATE_KEY' ? 'duplicate key' : problem.message.split('\n')[0] ?? 'invalid YAML'
    throw options.error(`invalid YAML: ${reason}`, { line: pos.line, column: pos.col })
  }
  let data: unknown
  try {
    data = doc.toJS({ maxAliasCount: options.maxAliases })
  } catch (error) {
    throw options.error(`invalid YAML: ${(error as Error).message}`)
  }
  return { doc, lineCounter, data }
}
