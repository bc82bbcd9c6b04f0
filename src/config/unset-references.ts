import type { AuthLogger } from '../base/logging.ts'
import type { FeatureStoreFile } from './feature-store-file.ts'

/**
 * Warns of each reference in `file` to an environment variable that is not set, which is kept as
 * written, as Feast keeps it. By place only: the name may be part of a secret that merely holds a
 * `$`. The place is in the message too, as the CLI prints messages without their fields.
 */
export function warnOfUnsetReferences (file: FeatureStoreFile, logger: Pick<AuthLogger, 'warn'>): void {
  for (const { line, column } of file.unsetReferences ?? []) {
    const where = `${file.source ?? 'feature_store.yaml'}:${line}:${column}`
    logger.warn({ source: file.source, line, column },
      `feast-authz: ${where}: refers to an environment variable that is not set ($NAME, or the same in braces); the text is kept as written, as Feast keeps it`)
  }
}
