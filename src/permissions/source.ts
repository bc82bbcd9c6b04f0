import type { Permission } from './model.ts'

/** Where permissions come from when they can change while the server runs (a registry). */
export interface PermissionSource {
  /** The permissions in force for `project` (the server's own project when undefined). */
  permissionsFor (project?: string): readonly Permission[]
}
