import type { Permission } from './model.ts'

/** Where permissions come from when they can change while the server runs (a registry). */
export interface PermissionSource {
  /** The permissions in force for `project` (the server's own project when undefined). */
  permissionsFor (project?: string): readonly Permission[]
  /**
   * Optional, for a source that knows its projects (a Feast registry): calls `listener` now with
   * every project it holds, the server's own first, then again after each change of the
   * permissions in force; returns what stops it. The server then says at startup, and when a
   * project appears, which projects no permission protects, where a source without it is
   * reported at the first request that finds a project without permissions.
   */
  watchProjects? (listener: (projects: readonly string[]) => void): () => void
}
