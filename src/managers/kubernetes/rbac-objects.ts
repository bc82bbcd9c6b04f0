import { UnusableAnswer } from './api-request.ts'
import { read, type JsonObject } from './json-shape.ts'
import type { ListPage } from './paged-list.ts'

/** `apiVersion` of the RBAC objects read. */
export const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1'

/** The metadata read of a namespaced object. */
export interface ObjectMeta {
  readonly name: string
  readonly namespace: string
  readonly resourceVersion?: string | undefined
}

export interface SubjectObject {
  readonly kind: string
  readonly name: string
  readonly namespace?: string | undefined
  readonly apiGroup?: string | undefined
}

/** What is read of an `rbac.authorization.k8s.io/v1` RoleBinding. */
export interface RoleBindingObject {
  readonly metadata: ObjectMeta
  readonly roleRef: { readonly apiGroup: string, readonly kind: string, readonly name: string }
  readonly subjects: readonly SubjectObject[]
}

export interface PolicyRuleObject {
  readonly verbs: readonly string[]
  readonly apiGroups?: readonly string[] | undefined
  readonly resources?: readonly string[] | undefined
  readonly resourceNames?: readonly string[] | undefined
  readonly nonResourceURLs?: readonly string[] | undefined
}

/** What is read of an `rbac.authorization.k8s.io/v1` Role. */
export interface RoleObject {
  readonly metadata: ObjectMeta
  readonly rules: readonly PolicyRuleObject[]
}

/** A collection of namespaced RBAC objects: its names and how one of its objects is read. */
export interface RbacCollection<T extends { readonly metadata: ObjectMeta }> {
  /** The resource in paths, e.g. `rolebindings`. */
  readonly resource: 'rolebindings' | 'roles'
  readonly kind: 'RoleBinding' | 'Role'
  /** Reads one object of the collection found at `at` (for messages), which must be in `namespace`. */
  readObject (value: unknown, at: string, namespace: string): T
}

export const ROLE_BINDINGS: RbacCollection<RoleBindingObject> = {
  resource: 'rolebindings',
  kind: 'RoleBinding',
  readObject (value, at, namespace) {
    const object = read.object(value, at)
    const roleRef = read.object(object.roleRef, `${at}.roleRef`)
    return {
      metadata: readMetadata(object, at, namespace),
      roleRef: {
        apiGroup: read.text(roleRef.apiGroup, `${at}.roleRef.apiGroup`),
        kind: read.text(roleRef.kind, `${at}.roleRef.kind`),
        name: read.text(roleRef.name, `${at}.roleRef.name`)
      },
      subjects: (read.optionalList(object.subjects, `${at}.subjects`) ?? []).map((item, i) => {
        const where = `${at}.subjects[${i}]`
        const subject = read.object(item, where)
        return {
          kind: read.text(subject.kind, `${where}.kind`),
          name: read.text(subject.name, `${where}.name`),
          namespace: read.optionalText(subject.namespace, `${where}.namespace`),
          apiGroup: read.optionalText(subject.apiGroup, `${where}.apiGroup`)
        }
      })
    }
  }
}

export const ROLES: RbacCollection<RoleObject> = {
  resource: 'roles',
  kind: 'Role',
  readObject (value, at, namespace) {
    const object = read.object(value, at)
    return {
      metadata: readMetadata(object, at, namespace),
      rules: (read.optionalList(object.rules, `${at}.rules`) ?? []).map((item, i) => {
        const where = `${at}.rules[${i}]`
        const rule = read.object(item, where)
        return {
          verbs: read.optionalTexts(rule.verbs, `${where}.verbs`) ?? [],
          apiGroups: read.optionalTexts(rule.apiGroups, `${where}.apiGroups`),
          resources: read.optionalTexts(rule.resources, `${where}.resources`),
          resourceNames: read.optionalTexts(rule.resourceNames, `${where}.resourceNames`),
          nonResourceURLs: read.optionalTexts(rule.nonResourceURLs, `${where}.nonResourceURLs`)
        }
      })
    }
  }
}

/**
 * One page of a list of `collection` in `namespace`, or an {@link UnusableAnswer}: a list of
 * another kind, without `metadata.resourceVersion` (a watch from no version would replay the
 * current objects and never the deletions since the list), `items` that are not a list, an item
 * of another kind or namespace (the index keys objects by name in one namespace: another
 * namespace's Role would stand for ours) or of another shape. Items carry no `kind` in a list
 * (the API server leaves it out); one that does must name the collection's.
 */
export function readListPage<T extends { readonly metadata: ObjectMeta }> (answer: unknown, collection: RbacCollection<T>, namespace: string): ListPage<T> {
  const list = read.object(answer, `the ${collection.kind} list`)
  read.exactly(list.kind, `the ${collection.kind} list's kind`, `${collection.kind}List`)
  read.exactly(list.apiVersion, `the ${collection.kind} list's apiVersion`, RBAC_API_VERSION)
  const metadata = read.object(list.metadata, `the ${collection.kind} list's metadata`)
  const resourceVersion = read.name(metadata.resourceVersion, `the ${collection.kind} list's metadata.resourceVersion`)
  const continueToken = read.optionalText(metadata.continue, `the ${collection.kind} list's metadata.continue`)
  const items = read.optionalList(list.items, `the ${collection.kind} list's items`)
  if (items === undefined) throw new UnusableAnswer(`the ${collection.kind} list's items are missing`)
  return {
    items: items.map((item, i) => {
      const at = `the ${collection.kind} list's items[${i}]`
      const typed = read.object(item, at)
      if (typed.kind !== undefined) read.exactly(typed.kind, `${at}.kind`, collection.kind)
      if (typed.apiVersion !== undefined) read.exactly(typed.apiVersion, `${at}.apiVersion`, RBAC_API_VERSION)
      return collection.readObject(typed, at, namespace)
    }),
    resourceVersion,
    continueToken: continueToken === '' ? undefined : continueToken
  }
}

/**
 * Checks that the object of a watch event is of `collection`'s kind and version: a watch event's
 * object always names them (as a BOOKMARK's empty object does).
 */
export function checkEventObjectType (object: JsonObject, collection: { readonly kind: string }, at: string): void {
  read.exactly(object.kind, `${at}.kind`, collection.kind)
  read.exactly(object.apiVersion, `${at}.apiVersion`, RBAC_API_VERSION)
}

function readMetadata (object: JsonObject, at: string, namespace: string): ObjectMeta {
  const metadata = read.object(object.metadata, `${at}.metadata`)
  const name = read.name(metadata.name, `${at}.metadata.name`)
  const found = read.text(metadata.namespace, `${at}.metadata.namespace`)
  if (found !== namespace) throw new UnusableAnswer(`${at}.metadata.namespace is another namespace than the one listed or watched`)
  return { name, namespace: found, resourceVersion: read.optionalText(metadata.resourceVersion, `${at}.metadata.resourceVersion`) }
}
