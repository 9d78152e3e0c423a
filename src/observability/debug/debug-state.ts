import type { ValueOrigin } from '../../core/values-origin.ts';
import type { ModuleDiff } from '../../core/module-diff.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { ValuesPatch } from '../../core/values-patch.ts';

/**
 * What the debug server reads (docs/observability.md "Debug socket"), declared here where it is consumed; the
 * operator implements it. Every `name` given to a module method is one `modules()` lists: the server answers
 * 404 for any other before it asks.
 */
export interface DebugState {
  /**
   * `queue list` (docs/observability.md "Debug socket"): the dump and its text form, from
   * dumpQueues/formatQueueDump.
   */
  queueList(showEmpty: boolean): DebugDocument;
  /** The `main` queue alone, in the same two forms. */
  queueMain(): DebugDocument;
  /** Global hook names, in order (`global list`). */
  globalHooks(): readonly string[];
  /** Merged global values, without the `global:` key. */
  globalValues(): JsonObject;
  /** Global config values, without the `global:` key. */
  globalConfig(): JsonObject;
  /** The global values patch kept in memory from hook runs, compacted. */
  globalPatches(): ValuesPatch;
  /** Every module found, enabled or not, in module order. */
  modules(): readonly DebugModule[];
  /** A module's merged values, without its values key. */
  moduleValues(name: string): JsonValue;
  /**
   * Each leaf of a module's values (`module` undefined: the global values) with where it came from
   * (docs/values.md "Where a value came from"); secret values masked.
   */
  valueOrigins(module: string | undefined): readonly ValueOrigin[];
  /** A module's config values, without its values key. */
  moduleConfig(name: string): JsonValue;
  /** The module's values patch kept in memory from hook runs, compacted. */
  modulePatches(name: string): ValuesPatch;
  /** Resource ids (`ns/Kind/name`, sorted) by the enabled module whose release is monitored. */
  resourceMonitors(): ReadonlyMap<string, readonly string[]>;
  /** The module's objects as the operator would deliver them now, with the current values. */
  renderedManifests(name: string): Promise<readonly JsonObject[]>;
  /** What delivering the module now would change in the cluster (docs/drift.md). */
  moduleDiff(name: string): Promise<ModuleDiff>;
  /** The snapshot of each kubernetes binding of every hook that has one. */
  hookSnapshots(): readonly HookSnapshots[];
  /** The Git source the modules tree comes from; undefined when it is MODULES_DIR. */
  gitStatus(): GitStatus | undefined;
}

export interface GitStatus {
  /** Without credentials. */
  readonly url: string;
  /** Undefined: the remote's default branch. */
  readonly ref: string | undefined;
  /** The newest good revision synced. */
  readonly currentRevision: string | undefined;
  /** The revision the operator serves; behind currentRevision until it has switched. */
  readonly revisionInUse: string | undefined;
  /** Why the last sync failed or its revision was refused; undefined after a good sync. */
  readonly lastError: string | undefined;
  /** ISO time of the last good sync. */
  readonly lastSyncTime: string | undefined;
}

/** A state with a text form of its own; `data` is JSON-serializable. */
export interface DebugDocument {
  readonly data: unknown;
  readonly text: string;
}

export interface DebugModule {
  readonly name: string;
  readonly enabled: boolean;
  /** Where the module stands, in the operator's words (e.g. `Ready`, `Failed: helm upgrade`). */
  readonly state: string;
}

export interface HookSnapshots {
  /** The hook's name as metrics and logs carry it. */
  readonly hook: string;
  /** Absent for a global hook. */
  readonly module?: string;
  /** By binding name, sorted by namespace and name. */
  readonly bindings: Readonly<Record<string, readonly SnapshotItem[]>>;
}

/** One object of a binding's snapshot, as a hook's binding context carries it (docs/hooks.md). */
export interface SnapshotItem {
  /** Absent when the binding has keepFullObjectsInMemory: false. */
  readonly object?: JsonObject;
  /** Present exactly when the binding has a jqFilter. */
  readonly filterResult?: JsonValue;
}
