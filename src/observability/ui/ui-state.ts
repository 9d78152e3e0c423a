import type { ValueOrigin } from '../../core/values-origin.ts';

/**
 * What the status page reads (docs/ui.md), declared here where it is consumed; the operator implements
 * it from its own memory, so a request never lists the cluster. Every answer is plain JSON.
 */
export interface UiState {
  overview(): UiOverview;
  modules(): readonly UiModule[];
  /** Undefined for a module the tree does not have. */
  module(name: string): Promise<UiModuleDetail | undefined>;
  /**
   * A module's merged values; shown only to who may read the operator's ConfigMap. Without
   * `secrets` (who may not read Secrets), values marked `x-kaddon-secret` and every secret kaddon
   * knows read `***` (docs/ui.md "Who may see what").
   */
  moduleValues(name: string, shown: { readonly secrets: boolean }): unknown;
  /**
   * Each leaf of the module's values (the global values for `undefined`) with where it came from
   * (docs/values.md "Where a value came from"), masked as `moduleValues` is; shown to the same people.
   */
  valueOrigins(name: string | undefined, shown: { readonly secrets: boolean }): readonly ValueOrigin[];
  /**
   * `kaddon queue list`'s dump: main and named queues and the pool of module runs; a task's last
   * error is apart from its description, masked as messages are.
   */
  queues(): UiQueueList;
  globalHooks(): readonly UiHook[];
  /**
   * What happened on the platform, newest first: deliveries and the Modules' Events, kept in the
   * operator's memory with a bound (docs/ui.md "Timeline"); `module` and `kind` narrow it.
   */
  timeline(filter: { readonly module?: string; readonly kind?: string }): readonly UiTimelineEntry[];
  /** The module's release history, newest first (docs/ui.md "Releases"). */
  releases(name: string): Promise<readonly UiRelease[]>;
  /**
   * What changed between two revisions of the module's release, Secret values masked; undefined
   * when either revision is not in its history. Shown only to who may read the ConfigMap.
   */
  revisionDiff(name: string, from: number, to: number): Promise<string | undefined>;
  /**
   * What delivering the module would change now, as `kaddon module diff` prints it (Secret values
   * masked); dry runs against the API server, so asked for by a person, not by redraws.
   */
  moduleDiff(name: string): Promise<{ readonly action: string; readonly text: string }>;
}

export interface UiQueueList {
  readonly active: readonly UiQueue[];
  readonly empty?: readonly UiQueue[];
  readonly summary: unknown;
  readonly moduleRuns?: unknown;
}

export interface UiQueue {
  readonly name: string;
  readonly tasksCount: number;
  readonly status: string;
  readonly tasks: readonly UiTask[];
}

export interface UiTask {
  readonly index: number;
  readonly id: string;
  readonly type: string;
  /** What the task is about, without its last error. */
  readonly description: string;
  readonly attempts: number;
  readonly failures: number;
  /**
   * Why it failed last: may hold a hook's stderr, so left out for who may not get the operator's
   * ConfigMap, as hooks' output is (docs/ui.md "Who may see what").
   */
  readonly lastError?: string;
  readonly retryAt?: string;
}

/** One revision of a module's release, as `helm history` lists it, with kaddon's checksum. */
export interface UiRelease {
  readonly revision: number;
  readonly status: string;
  readonly updated: string;
  readonly description: string;
  /** The checksum over what decided the release's content (docs/lifecycle.md "Helm delivery"). */
  readonly checksum: string;
}

export type UiModuleState = 'Ready' | 'Progressing' | 'Failed' | 'Maintenance' | 'Disabled';

export interface UiModule {
  readonly name: string;
  readonly enabled: boolean;
  readonly state: UiModuleState;
  /** The Ready condition's reason and message (docs/module-status.md "Conditions"). */
  readonly reason: string;
  readonly message: string;
  readonly lastDelivery:
    | {
        readonly at: string;
        readonly helmRevision: number | undefined;
        readonly gitRevision: string | undefined;
      }
    | undefined;
  readonly driftedObjects: readonly string[];
}

export interface UiObject {
  readonly id: string;
  readonly health?: string;
  readonly message?: string;
}

export interface UiModuleDetail extends UiModule {
  /**
   * Its phase in the operator's module record and, while it waits, the module it waits for
   * (docs/lifecycle.md "Module states").
   */
  readonly phase: string;
  readonly waitingFor: string | undefined;
  readonly health: { readonly status: string; readonly message: string };
  /**
   * Delivered objects as `ns/Kind/name`, with the kstatus health of those whose kind has a health
   * rule (docs/module-status.md "Health").
   */
  readonly objects: readonly UiObject[];
  readonly events: readonly UiEvent[];
  readonly hooks: readonly UiHook[];
  readonly requires: readonly UiModuleRef[];
  readonly requiredBy: readonly UiModuleRef[];
}

interface UiModuleRef {
  readonly name: string;
  readonly state: UiModuleState;
}

interface UiEvent {
  readonly time: string;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly note: string;
}

export interface UiHook {
  readonly name: string;
  readonly bindings: readonly string[];
  /** Its last runs since the operator started, newest first. */
  readonly lastRuns: readonly UiHookRun[];
}

export interface UiHookRun {
  /** What ran it: a lifecycle binding, or the names of its kubernetes or schedule bindings. */
  readonly binding: string;
  readonly startedAt: string;
  readonly durationMs: number;
  /** `ok`, `exit N`, `signal X`, `timed out`, or why it did not start or its output files were refused. */
  readonly outcome: string;
  /**
   * The last lines of its stdout and stderr, secrets masked and control characters out; left out for
   * who may not get the operator's ConfigMap, as values are (docs/ui.md "Who may see what").
   */
  readonly stdout?: string;
  readonly stderr?: string;
}

export interface UiOverview {
  readonly counts: Readonly<Record<UiModuleState, number>>;
  /** Failing modules first, then the progressing ones. */
  readonly attention: readonly UiModule[];
  readonly git:
    | {
        readonly url: string;
        readonly revision: string | undefined;
        readonly lastSync: string | undefined;
        readonly lastError: string | undefined;
      }
    | undefined;
  readonly replica: {
    readonly role: 'leader' | 'standby';
    readonly version: string;
    readonly uptimeSeconds: number;
  };
  readonly queues: readonly { readonly name: string; readonly length: number }[];
  readonly running: string | undefined;
}

/** A line of the timeline: a delivery or an Event of a module. */
interface UiTimelineEntry {
  readonly time: string;
  readonly module: string;
  /** delivery, failure, recovery, drift, maintenance, uninstall or health. */
  readonly kind: string;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly note: string;
}
