/**
 * What the reference server knows about the feature store: the project, its feature views
 * and feature services, and sample rows for the in-memory online store. The routes only see
 * {@link FeatureCatalog}; the YAML file is one way to fill it, a Feast registry file
 * (`catalogFromFeastRegistry` in src/registry/) another.
 */
import type { Resource } from '../permissions/index.ts'

/** The feature view classes the server serves; the kind is the resource type permissions see. */
export const FEATURE_VIEW_KINDS = ['FeatureView', 'BatchFeatureView', 'StreamFeatureView', 'OnDemandFeatureView', 'LabelView'] as const
/** One of {@link FEATURE_VIEW_KINDS}. */
export type FeatureViewKind = typeof FEATURE_VIEW_KINDS[number]

/** A feature view the reference server serves. */
export interface FeatureViewDef {
  readonly name: string
  readonly kind: FeatureViewKind
  /** The view's tags: what permissions' `requiredTags` are matched against. */
  readonly tags: Readonly<Record<string, string>>
  /** Join keys of the view's entities, e.g. `driver_id`: the key of an online row. */
  readonly entities: readonly string[]
  /**
   * Entities the view names that its registry does not have (a Feast registry file can hold such a
   * view; `entities` then holds the entity's name in place of a join key). Feast cannot read the
   * view (`EntityNotFoundException`), and neither does the server. Absent when there are none.
   */
  readonly unknownEntities?: readonly string[] | undefined
  readonly features: readonly string[]
  /** Name of the push source feeding the view, if any. */
  readonly pushSource?: string | undefined
  /**
   * On-demand views: the feature views they compute from (never their request sources). Reading
   * an on-demand view needs READ_ONLINE on each of them too, as in Feast; one the registry does not
   * have makes the read a 404, as in Feast, so keep every one the registry names.
   */
  readonly sources?: readonly string[] | undefined
  /**
   * On-demand views: the alias of each source that is read through a projection giving one
   * (Feast's `fv.with_name("...")` given as a source), by source name. The source view's rows are
   * read (and READ_ONLINE checked on it) under its own name; the alias is the name the read shows
   * it under, a table of its own beside the view read under its own name. Absent when no source
   * has one.
   */
  readonly sourceAliases?: Readonly<Record<string, string>> | undefined
  /**
   * On-demand views: the `join_key_map` of each source that is read through a projection renaming
   * join keys (Feast's `fv.with_join_key_map({...})` given as a source), by source name: a join key
   * of that view → the `entities` column a read of the on-demand view takes it from. Absent when
   * no source renames one.
   */
  readonly sourceJoinKeyMaps?: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined
  /**
   * On-demand views: the request data they compute from (Feast's request sources' fields). A read
   * of the view must send these columns in `entities`; they are used, not answered.
   */
  readonly requestData?: readonly string[] | undefined
  /** Served online (Feast's `online`; default true). Only online views are materialized by default. */
  readonly online?: boolean | undefined
  /**
   * Feature and batch views: written to the offline store (Feast's `offline`; default false).
   * Feast materializes a view named explicitly that is not online only when this is set.
   */
  readonly offline?: boolean | undefined
  /** Disabled for serving and materialization (Feast's `enabled=False`; default false). */
  readonly disabled?: boolean | undefined
  /**
   * A Feast lifecycle state in which the view serves nothing online (`CREATED`, `GENERATED`,
   * `MATERIALIZING`), read from a Feast registry; absent when it serves.
   */
  readonly unservedState?: string | undefined
  /** On-demand views: their results are written to the online store, so they are materialized. */
  readonly writeToOnlineStore?: boolean | undefined
}

/** One feature of one view, as written `view:feature`. */
export interface FeatureRef {
  readonly view: string
  readonly feature: string
  /** The name a feature service shows the view under (Feast's projection alias): full feature names use it. */
  readonly alias?: string | undefined
  /**
   * A feature service's renamed join keys (Feast's projection `join_key_map`, `with_join_key_map`):
   * a join key of the view → the `entities` column a read of the service takes it from. The same
   * for every feature of one projection.
   */
  readonly joinKeyMap?: Readonly<Record<string, string>> | undefined
}

/** A feature service: a named list of features of several views. */
export interface FeatureServiceDef {
  readonly name: string
  /** The service's tags: what permissions' `requiredTags` are matched against. */
  readonly tags: Readonly<Record<string, string>>
  readonly features: readonly FeatureRef[]
}

/** One online row: join key values, feature values, and optionally `event_timestamp`. */
export type SampleRow = Readonly<Record<string, unknown>>

/**
 * The reference server's registry as plain data: what the YAML registry file holds, and what any
 * other loader produces for {@link catalogFromSnapshot}. Not the Feast registry's
 * `RegistrySnapshot` (`feast-authz`), which holds decoded `registry.db` projects and permissions.
 */
export interface YamlCatalogSnapshot {
  readonly project: string
  readonly featureViews: readonly FeatureViewDef[]
  readonly featureServices: readonly FeatureServiceDef[]
  /** Rows per feature view name, loaded into the online store at startup. */
  readonly sampleRows: Readonly<Record<string, readonly SampleRow[]>>
}

/**
 * What the `entities` columns of a read may name in a project, as Feast's `_get_entity_maps`
 * finds it: the join keys of all the project's entities (answered as columns), and entity names,
 * each standing for its join key (Feast's deprecated spelling).
 */
export interface EntityColumns {
  readonly joinKeys: ReadonlySet<string>
  readonly entityNames: ReadonlyMap<string, string>
}

/** The read-only registry the routes use. */
export interface FeatureCatalog {
  readonly project: string
  featureViews (): readonly FeatureViewDef[]
  /**
   * The project's {@link EntityColumns}, for the registry version in force; worked out once per
   * version, as every read asks. Without it, they are the join keys of `featureViews()`, worked
   * out once per array that returns (so once per call, for a catalog returning a new array each).
   */
  entityColumns? (): EntityColumns
  featureView (name: string): FeatureViewDef | undefined
  featureService (name: string): FeatureServiceDef | undefined
  /** Views whose push source is `name` (Feast checks permissions on each of them). */
  viewsFedBy (pushSource: string): readonly FeatureViewDef[]
  sampleRows (view: string): readonly SampleRow[]
  /**
   * The same registry seen from another project (a request's `project` query parameter), or
   * undefined when it does not have that project. Without it, only `project` is served.
   */
  forProject? (name: string): FeatureCatalog | undefined
}

/** `registry` seen from `project` (itself for its own project); undefined when it does not have it. */
export function catalogForProject (registry: FeatureCatalog, project: string | undefined): FeatureCatalog | undefined {
  if (project === undefined || project === registry.project) return registry
  return registry.forProject?.(project)
}

/** A {@link FeatureCatalog} over fixed data: one project, the snapshot's views, services and rows. */
export function catalogFromSnapshot (snapshot: YamlCatalogSnapshot): FeatureCatalog {
  const views = new Map(snapshot.featureViews.map((view) => [view.name, view]))
  const services = new Map(snapshot.featureServices.map((service) => [service.name, service]))
  const columns = entityColumnsOf(snapshot.featureViews)
  // One project per file: any other project is not in this registry.
  return {
    project: snapshot.project,
    featureViews: () => snapshot.featureViews,
    entityColumns: () => columns,
    featureView: (name) => views.get(name),
    featureService: (name) => services.get(name),
    viewsFedBy: (pushSource) => snapshot.featureViews.filter((view) => view.pushSource === pushSource),
    sampleRows: (view) => Object.hasOwn(snapshot.sampleRows, view) ? snapshot.sampleRows[view] ?? [] : []
  }
}

/**
 * The entity columns of views that name no entities, only join keys (the YAML registry's): every
 * view's join keys, and no entity names. `entityNames` adds a registry's entity names. An entity
 * the registry does not have gives no join key (its name stands in `entities`, not a join key).
 */
export function entityColumnsOf (views: readonly FeatureViewDef[], entityNames: ReadonlyMap<string, string> = new Map()): EntityColumns {
  const joinKeys = new Set(entityNames.values())
  for (const view of views) for (const key of view.entities) if (view.unknownEntities?.includes(key) !== true) joinKeys.add(key)
  return Object.freeze({ joinKeys, entityNames })
}

/** An empty registry for `project`, used when the server is started without a registry file. */
export function emptyCatalog (project: string): FeatureCatalog {
  return catalogFromSnapshot({ project, featureViews: [], featureServices: [], sampleRows: {} })
}

/** The permission resource for a feature view. */
export function viewResource (view: FeatureViewDef, project: string): Resource {
  return { type: view.kind, name: view.name, project, tags: view.tags }
}

/** The permission resource for a feature service. */
export function serviceResource (service: FeatureServiceDef, project: string): Resource {
  return { type: 'FeatureService', name: service.name, project, tags: service.tags }
}
