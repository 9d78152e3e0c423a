import { randomUUID } from 'node:crypto';
import type { BindingContext } from '../../hooks/binding-context.ts';
import type { BindingType, ConfigVersion } from '../../hooks/hook-config.ts';

/**
 * What a task of each type carries (docs/lifecycle.md "Tasks and queues", the types kaddon queues). The keys
 * are the task types: a closed set of string literals, so a handler registry keyed by them is checked by the
 * compiler. addon-operator's GlobalHookEnableScheduleBindings and ModuleEnsureCRDs are steps of
 * GlobalHookEnableKubernetesBindings and ModuleRun here, DiscoverHelmReleases is part of every converge, and
 * modules run one at a time (no ParallelModuleRun).
 */
interface TaskPayloads {
  /** A global hook with the binding contexts of one or more events (combined when piled up). */
  readonly GlobalHookRun: HookRunPayload;
  readonly ModuleHookRun: HookRunPayload;
  /** Global kubernetes bindings started (their Synchronization queued), then their schedules. */
  readonly GlobalHookEnableKubernetesBindings: EmptyPayload;
  /** 'Reload all modules' (docs/lifecycle.md steps 3 to 8). */
  readonly ConvergeModules: ConvergeModulesPayload;
  readonly ModuleRun: ModuleRunPayload;
  readonly ModuleDelete: EmptyPayload;
  /** A release with no module directory (docs/lifecycle.md step 7). */
  readonly ModulePurge: { readonly release: string };
  readonly ApplyKubeConfigValues: EmptyPayload;
  /** GitOps: move to the newest validated modules tree, then reload all modules. */
  readonly SwitchModulesTree: EmptyPayload;
  /**
   * Start-up (docs/lifecycle.md step 1): the global hooks' `--config` loaded, then their onStartup runs and
   * kubernetes bindings queued. A hook that cannot be loaded is retried, never fatal.
   */
  readonly LoadGlobalHooks: { readonly globalHooksDir: string | undefined };
}

export type TaskType = keyof TaskPayloads;

type EmptyPayload = Readonly<Record<string, never>>;

/**
 * 'Reload all modules' in two phases (docs/lifecycle.md "Tasks and queues"): StandBy runs beforeAll and
 * discovery and queues the module tasks before an AfterAll task, which runs afterAll and ends the converge.
 */
interface ConvergeModulesPayload {
  readonly event: ConvergeEvent;
  /** Absent: StandBy. */
  readonly phase?: 'AfterAll';
  /** When StandBy started, in performance.now() milliseconds (convergence_seconds). */
  readonly startedAt?: number;
}

/** Why a converge was queued; also the `activation` label of convergence metrics. */
export type ConvergeEvent = 'OperatorStartup' | 'GlobalValuesChanged' | 'ReloadAllModules';

interface HookRunPayload {
  readonly bindingContexts: readonly BindingContext[];
  /** Only v1 hooks get the contexts of piled-up tasks combined (docs/hooks.md "Binding contexts"). */
  readonly hookVersion: ConfigVersion;
  /** Present on a kubernetes Synchronization task. */
  readonly synchronization?: {
    readonly waitForSynchronization: boolean;
    readonly executeOnSynchronization: boolean;
  };
  /**
   * Present on a schedule task: its contexts are built when it runs, from ScheduleBindings.take()
   * and the snapshots of that moment.
   */
  readonly scheduleKey?: string;
}

interface ModuleRunPayload {
  /** Run onStartup hooks and enable kubernetes bindings first: the module was just enabled. */
  readonly doModuleStartup: boolean;
  /** Queued by a converge (counts as a converge task) rather than by a values change. */
  readonly isReloadAll: boolean;
}

/** Who a task is about, for descriptions, logs, metrics labels and queue searches. */
export interface TaskMetadata {
  readonly module?: string;
  readonly hook?: string;
  readonly bindingType?: BindingType;
  /** The binding names of the task's contexts. */
  readonly bindings?: readonly string[];
  /** A failure is counted and the task dropped instead of retried (docs/lifecycle.md "Tasks and queues"). */
  readonly allowFailure?: boolean;
  /** What caused the task, e.g. `OperatorStartup` or `KubeConfig-Changed-Modules`. */
  readonly event?: string;
}

export interface Task<T extends TaskType = TaskType> {
  readonly id: string;
  readonly type: T;
  readonly queue: string;
  readonly payload: TaskPayloads[T];
  readonly metadata: TaskMetadata;
  /** How many times a handler has started on this task. */
  readonly attempts: number;
  /** Milliseconds since the epoch, from the queue clock. */
  readonly createdAt: number;
}

/** Any task, narrowed by `type`. */
export type AnyTask = { readonly [T in TaskType]: Task<T> }[TaskType];

export type HookRunTask = Task<'GlobalHookRun'> | Task<'ModuleHookRun'>;

export interface TaskInit<T extends TaskType> {
  readonly queue: string;
  readonly payload: TaskPayloads[T];
  readonly metadata?: TaskMetadata;
}

export function createTask<T extends TaskType>(type: T, init: TaskInit<T>, createdAt: number): Task<T> {
  return {
    id: randomUUID(),
    type,
    queue: init.queue,
    payload: init.payload,
    metadata: init.metadata ?? {},
    attempts: 0,
    createdAt,
  };
}

export function isHookRunTask(task: AnyTask): task is HookRunTask {
  return task.type === 'GlobalHookRun' || task.type === 'ModuleHookRun';
}

export function isTaskOfType<T extends TaskType>(task: AnyTask, type: T): task is AnyTask & Task<T> {
  return task.type === type;
}
