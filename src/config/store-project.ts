import { describeValue } from '../base/describe-value.ts'
import { ConfigError } from './errors.ts'
import type { FeatureStoreFile } from './feature-store-file.ts'

// Feast's rule (RepoConfig's project validator, repo_operations.is_valid_name): Python's Unicode
// `\w` (letters, digits, `_`) and `-`, not first `_` or `-`. Feast refuses any other name
// before it serves anything, so a file holding one was never a Feast store's.
const FEAST_PROJECT_NAME = /^[\p{L}\p{N}][\p{L}\p{N}_-]*$/u

/**
 * The `project` a feature_store.yaml names, or undefined when it names none (absent, null or
 * empty). A value Feast would refuse is a ConfigError at the file's line, not a name that
 * silently matches no registry project.
 */
export function storeProject (file: FeatureStoreFile): string | undefined {
  const project = file.data.project
  if (project === undefined || project === null || project === '') return undefined
  if (typeof project === 'string' && FEAST_PROJECT_NAME.test(project)) return project
  const at = file.locate(['project'])
  throw new ConfigError(
    `expected a project name as Feast takes it (letters, digits, _ and -, not starting with _ or -), got ${describeValue(project)}`,
    { source: file.source, field: 'project', line: at?.line, column: at?.column }
  )
}

/** {@link storeProject}, required: `why` says what needs it. */
export function requireStoreProject (file: FeatureStoreFile, why: string): string {
  const project = storeProject(file)
  if (project === undefined) throw new ConfigError(`expected the project name: ${why}`, { source: file.source, field: 'project' })
  return project
}
