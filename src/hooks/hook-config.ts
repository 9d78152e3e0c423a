import { KaddonError } from '../core/errors.ts';
import type { CrontabSchedule } from './parse-crontab.ts';

/**
 * A hook's configuration as `hook --config` declares it (docs/hooks.md "Bindings"), validated and with addon-operator's defaults applied.
 */

/** Who owns a hook: the global hooks directory or one module. */
export type HookOwner = { readonly kind: 'global' } | { readonly kind: 'module'; readonly module: string };

/** What errors and logs name a hook by. */
export interface HookIdentity {
  /** As addon-operator names it: `001-foo/bar.sh` for a global hook, `hooks/bar.sh` for a module's. */
  readonly name: string;
  readonly owner: HookOwner;
}

export type ConfigVersion = 'v0' | 'v1';

export type WatchEvent = 'Added' | 'Modified' | 'Deleted';
export const WATCH_EVENTS: readonly WatchEvent[] = ['Added', 'Modified', 'Deleted'];

/**
 * Bindings whose value is an ORDER: hooks run sorted by it, then by name (docs/hooks.md "Lifecycle
 * bindings").
 */
export type OrderedBindingType =
  | 'onStartup'
  | 'beforeAll'
  | 'afterAll'
  | 'beforeHelm'
  | 'afterHelm'
  | 'beforeDeleteHelm'
  | 'afterDeleteHelm';

/** addon-operator's own bindings: they get the snapshots of all the hook's kubernetes bindings. */
export type LifecycleBindingType = Exclude<OrderedBindingType, 'onStartup'>;

export type BindingType = OrderedBindingType | 'schedule' | 'kubernetes';

/**
 * Which lifecycle bindings each owner may declare (docs/hooks.md "Bindings"). beforeDeleteHelm is not in
 * addon-operator's documentation; current addon-operator accepts it for module hooks (docs/hooks.md
 * "Lifecycle bindings"), so kaddon does.
 */
export const LIFECYCLE_BINDINGS = {
  global: ['beforeAll', 'afterAll'],
  module: ['beforeHelm', 'afterHelm', 'beforeDeleteHelm', 'afterDeleteHelm'],
} as const satisfies Record<HookOwner['kind'], readonly LifecycleBindingType[]>;

export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  readonly values?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

export interface NameSelector {
  readonly matchNames: readonly string[];
}

export type FieldSelectorOperator = '=' | '==' | 'Equals' | '!=' | 'NotEquals';

interface FieldSelectorRequirement {
  readonly field: string;
  readonly operator: FieldSelectorOperator;
  readonly value: string;
}

export interface FieldSelector {
  readonly matchExpressions: readonly FieldSelectorRequirement[];
}

/** Absent or empty means all namespaces. When both are set, shell-operator uses only labelSelector. */
export interface NamespaceSelector {
  readonly nameSelector?: NameSelector;
  readonly labelSelector?: LabelSelector;
}

export interface KubernetesBinding {
  /** The binding name; `kubernetes` (v1) or `onKubernetesEvent` (v0) when not set. */
  readonly name: string;
  readonly apiVersion?: string;
  readonly kind: string;
  readonly nameSelector?: NameSelector;
  readonly labelSelector?: LabelSelector;
  readonly fieldSelector?: FieldSelector;
  readonly namespace?: NamespaceSelector;
  readonly jqFilter?: string;
  /** Watch events that run the hook; all three by default, `[]` for a snapshot-only binding. */
  readonly executeHookOnEvent: readonly WatchEvent[];
  readonly executeHookOnSynchronization: boolean;
  /** True unless set to false together with an explicit `queue` (shell-operator ignores it otherwise). */
  readonly waitForSynchronization: boolean;
  readonly keepFullObjectsInMemory: boolean;
  readonly allowFailure: boolean;
  readonly queue: string;
  readonly group?: string;
  /** The binding's own includeSnapshotsFrom, then the kubernetes bindings of its group. */
  readonly includeSnapshotsFrom: readonly string[];
  /** Accepted as shell-operator accepts it; nothing uses it there either. */
  readonly resynchronizationPeriod?: string;
}

export interface ScheduleBinding {
  /** The binding name; `schedule` when not set. */
  readonly name: string;
  /** As written: schedules fire every binding with the same crontab string. */
  readonly crontab: string;
  readonly schedule: CrontabSchedule;
  readonly allowFailure: boolean;
  readonly queue: string;
  readonly group?: string;
  /** The binding's own includeSnapshotsFrom, then the kubernetes bindings of its group. */
  readonly includeSnapshotsFrom: readonly string[];
}

/** Execution rate (docs/hooks.md "Execution rate"): a token bucket of `executionBurst` tokens. */
export interface HookSettings {
  readonly executionMinIntervalMs: number;
  readonly executionBurst: number;
}

export interface HookConfig {
  readonly version: ConfigVersion;
  /** ORDER of each ordered binding the hook declares. */
  readonly order: Readonly<Partial<Record<OrderedBindingType, number>>>;
  readonly schedule: readonly ScheduleBinding[];
  readonly kubernetes: readonly KubernetesBinding[];
  readonly settings?: HookSettings;
}

/** A parsed config and what kaddon accepted but will not act on (e.g. webhook bindings). */
export interface ParsedHookConfig {
  readonly config: HookConfig;
  readonly warnings: readonly string[];
}

export type HookConfigErrorCode = 'hook-config-unparsable' | 'hook-config-invalid';

/** A `--config` output that kaddon (like addon-operator) refuses. */
export class HookConfigError extends KaddonError {
  readonly code: HookConfigErrorCode;
  readonly hook: HookIdentity;
  /** Where in the config, e.g. `kubernetes[1].executeHookOnEvent[0]`; empty for the whole config. */
  readonly field: string;

  constructor(
    code: HookConfigErrorCode,
    hook: HookIdentity,
    field: string,
    problem: string,
    hint: string,
    options?: { cause?: unknown },
  ) {
    super(`${describeHook(hook)}: ${field === '' ? '' : `${field}: `}${problem}.`, hint, options);
    this.code = code;
    this.hook = hook;
    this.field = field;
  }
}

/** `hook '001-foo/bar.sh'` or `hook 'hooks/bar.sh' in module 'echo-server'`. */
export function describeHook(hook: HookIdentity): string {
  const where = hook.owner.kind === 'module' ? ` in module '${hook.owner.module}'` : '';
  return `hook '${hook.name}'${where}`;
}
