/**
 * The engine's verdict without its explanation: allow or deny, which permission granted, and
 * for a denial in filter mode whether the resource is hidden or refuses the call. `decide` adds
 * the explanation; `filterAllowed` and the adapters' checks only need this, and a listing asks it
 * once per resource, so it builds nothing per resource and stops at the first answer.
 */
import { compile, type CompiledPermission } from './compiled.ts'
import { actionsCovered, nameMatches, tagsMatch, typeMatches } from './match.ts'
import type { Action, Permission, Resource, ResourceType } from './model.ts'
import { policyGrants, type PolicySubject } from './policy.ts'

/** The permissions covering one resource type, by index in the list, in list order. */
interface TypeEntry {
  readonly members: readonly number[]
  /** Whether any of them has name patterns: a denial no permission applies to is then hidden. */
  readonly anyNamePatterns: boolean
}

/** A permission list, compiled once and grouped by resource type on first need. */
interface PermissionTable {
  readonly compiled: readonly CompiledPermission[]
  readonly byType: Map<ResourceType, TypeEntry>
}

// Keyed by the list itself: a registry that reloads hands out a new frozen list, and the old
// one's table goes with it. A list that is not frozen could change under a cached table, so it
// gets a table for the one evaluation only.
const tables = new WeakMap<readonly Permission[], PermissionTable>()

function tableFor (permissions: readonly Permission[]): PermissionTable {
  let table = tables.get(permissions)
  if (table === undefined) {
    // Compiling every permission up front keeps a hand-built permission with a bad pattern
    // failing on the first decision, whatever the resource.
    table = { compiled: permissions.map(compile), byType: new Map() }
    if (Object.isFrozen(permissions)) tables.set(permissions, table)
  }
  return table
}

function entryFor (table: PermissionTable, resource: Resource): TypeEntry {
  let entry = table.byType.get(resource.type)
  if (entry === undefined) {
    const members: number[] = []
    let anyNamePatterns = false
    table.compiled.forEach((compiled, i) => {
      if (!typeMatches(compiled, resource)) return
      members.push(i)
      if (compiled.patterns.length > 0) anyNamePatterns = true
    })
    entry = { members, anyNamePatterns }
    table.byType.set(resource.type, entry)
  }
  return entry
}

// What is learnt of a permission for the whole evaluation (it does not depend on the resource):
// each fact's bit, and the bit above it once the fact has been learnt.
const COVERS_ACTIONS = 1
const GRANTS = 4
type Fact = typeof COVERS_ACTIONS | typeof GRANTS

/**
 * One principal asking for the same actions on any number of resources, under a non-empty
 * permission list. Whether a permission covers the actions and whether its policy grants the
 * principal are learnt once, when first needed; a resource then costs its type's permissions'
 * tag and name checks, cheapest first, and only as far as the answer needs.
 */
export class Evaluation {
  readonly #permissions: readonly Permission[]
  readonly #principal: PolicySubject
  readonly #actions: readonly Action[]
  readonly #table: PermissionTable
  readonly #known: Uint8Array

  constructor (permissions: readonly Permission[], principal: PolicySubject, actions: readonly Action[]) {
    this.#permissions = permissions
    this.#principal = principal
    this.#actions = actions
    this.#table = tableFor(permissions)
    this.#known = new Uint8Array(permissions.length)
  }

  /**
   * The index of the first permission that applies to `resource` and grants the principal
   * (the one an explanation names as granting), or -1 when access is denied.
   */
  granting (resource: Resource): number {
    const { compiled } = this.#table
    for (const i of entryFor(this.#table, resource).members) {
      if (!this.#coversActions(i) || !this.#grants(i)) continue
      const permission = compiled[i]!
      if (tagsMatch(permission, resource) && nameMatches(permission, resource)) return i
    }
    return -1
  }

  /**
   * For a resource {@link granting} denied, Feast's filter rule: hidden when the last applicable
   * permission has name patterns or, none applying, when a permission of its type has some;
   * otherwise it refuses the whole call.
   */
  deniedIsDropped (resource: Resource): boolean {
    const { compiled } = this.#table
    const { members, anyNamePatterns } = entryFor(this.#table, resource)
    // Walking back from the last permission, a name-scoped one only matters if an applicable
    // one without patterns comes before it: until then its name patterns are not run (most of a
    // listing's cost). With none of those applicable, the answer is `anyNamePatterns` either way.
    for (let k = members.length - 1; k >= 0; k--) {
      const i = members[k]!
      if (!this.#mayApply(i)) continue
      const permission = compiled[i]!
      if (permission.patterns.length > 0 || !tagsMatch(permission, resource)) continue
      for (let later = k + 1; later < members.length; later++) {
        const j = members[later]!
        if (this.#mayApply(j) && tagsMatch(compiled[j]!, resource) && nameMatches(compiled[j]!, resource)) return true
      }
      return false
    }
    return anyNamePatterns
  }

  // For a denied resource: a granting permission that applied would have allowed it, so only
  // those covering the actions without granting can be the last applicable one.
  #mayApply (i: number): boolean {
    return this.#coversActions(i) && !this.#grants(i)
  }

  #coversActions (i: number): boolean {
    return this.#holds(i, COVERS_ACTIONS)
  }

  #grants (i: number): boolean {
    return this.#holds(i, GRANTS)
  }

  #holds (i: number, fact: Fact): boolean {
    let known = this.#known[i]!
    if ((known & (fact << 1)) === 0) {
      const permission = this.#permissions[i]!
      const holds = fact === COVERS_ACTIONS ? actionsCovered(permission.actions, this.#actions) : policyGrants(permission.policy, this.#principal)
      known |= (fact << 1) | (holds ? fact : 0)
      this.#known[i] = known
    }
    return (known & fact) !== 0
  }
}
