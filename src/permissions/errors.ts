export interface PermissionErrorDetails {
  /** The file the permission came from, when there is one. */
  readonly source?: string | undefined
  readonly line?: number | undefined
  readonly column?: number | undefined
  /** Position of the permission in its list (0-based), when it came from a list. */
  readonly index?: number | undefined
  /** The permission's name, when it has a usable one. */
  readonly permission?: string | undefined
  /** The Feast project the permission belongs to, when it came from a registry. */
  readonly project?: string | undefined
  /** The offending field, in Feast's snake_case (`actions`, `policy.role_based_policy.roles`). */
  readonly field?: string | undefined
}

/**
 * An invalid permission definition, found when it is built or loaded (never at request time).
 * The message says where (file, line, list index, permission name, field), what was found and
 * what was expected, e.g.
 * `perms.yaml:7:5: permission [1] "readers": actions: unknown action "REED" (expected ...)`.
 */
export class PermissionError extends Error {
  override readonly name = 'PermissionError'
  readonly code = 'FEAST_AUTHZ_PERMISSION'
  readonly source: string | undefined
  readonly index: number | undefined
  readonly permission: string | undefined
  readonly field: string | undefined
  /** The message without the location prefix. */
  readonly reason: string

  constructor (message: string, details: PermissionErrorDetails = {}, cause?: unknown) {
    super(`${prefix(details)}${message}`, cause === undefined ? undefined : { cause })
    this.source = details.source
    this.index = details.index
    this.permission = details.permission
    this.field = details.field
    this.reason = message
  }
}

function prefix (details: PermissionErrorDetails): string {
  const where = details.source === undefined
    ? ''
    : `${details.source}${details.line === undefined ? '' : `:${details.line}:${details.column ?? 1}`}: `
  const which = details.index === undefined && details.permission === undefined
    ? ''
    : `permission${details.index === undefined ? '' : ` [${details.index}]`}${details.permission === undefined ? '' : ` ${JSON.stringify(details.permission)}`}: `
  const project = details.project === undefined ? '' : `project ${JSON.stringify(details.project)}: `
  const field = details.field === undefined ? '' : `${details.field}: `
  return `${where}${project}${which}${field}`
}
