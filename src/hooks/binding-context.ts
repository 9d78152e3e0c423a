import type { JsonObject, JsonValue } from '../core/json.ts';
import type {
  HookConfig,
  KubernetesBinding,
  LifecycleBindingType,
  ScheduleBinding,
  WatchEvent,
} from './hook-config.ts';

/**
 * Binding contexts: what a hook finds in $BINDING_CONTEXT_PATH, a JSON array of these (docs/hooks.md
 * "Binding contexts"; docs/lifecycle.md says what each step passes). The builders are pure: the
 * caller hands in the snapshots as they are when the hook runs.
 */

/** One object of a kubernetes binding as hooks see it, in `objects`, `snapshots` and Event contexts. */
export interface ObjectAndFilterResult {
  /** Absent when the binding has keepFullObjectsInMemory: false. */
  readonly object?: JsonObject;
  /** Present exactly when the binding has a jqFilter. */
  readonly filterResult?: JsonValue;
}

/**
 * The current objects of each kubernetes binding of one hook, by binding name, sorted by namespace and name.
 */
export type Snapshots = Readonly<Record<string, readonly ObjectAndFilterResult[]>>;

export interface OnStartupContext {
  readonly binding: 'onStartup';
}

/** beforeAll, afterAll, beforeHelm, afterHelm, beforeDeleteHelm, afterDeleteHelm: every snapshot. */
export interface LifecycleContext {
  readonly binding: LifecycleBindingType;
  readonly snapshots: Snapshots;
}

export interface ScheduleContext {
  readonly binding: string;
  readonly type: 'Schedule';
  readonly snapshots?: Snapshots;
}

export interface SynchronizationContext {
  readonly binding: string;
  readonly type: 'Synchronization';
  readonly objects: readonly ObjectAndFilterResult[];
  readonly snapshots?: Snapshots;
}

export interface EventContext {
  readonly binding: string;
  readonly type: 'Event';
  readonly watchEvent: WatchEvent;
  /** The object at the time of the event; null only when the event carried none. */
  readonly object?: JsonObject | null;
  readonly filterResult?: JsonValue;
  readonly snapshots?: Snapshots;
}

/** A schedule or kubernetes binding with a `group`: no objects, only the group's snapshots. */
export interface GroupContext {
  readonly binding: string;
  readonly type: 'Group';
  readonly groupName: string;
  readonly snapshots?: Snapshots;
}

type BindingContextV1 =
  | OnStartupContext
  | LifecycleContext
  | ScheduleContext
  | SynchronizationContext
  | EventContext
  | GroupContext;

/**
 * A v0 hook's context (docs/hooks.md "Configuration versions"): the binding and, for kubernetes, the object's
 * identity.
 */
export interface BindingContextV0 {
  readonly binding: string;
  readonly resourceEvent?: 'add' | 'update' | 'delete' | '';
  readonly resourceNamespace?: string;
  readonly resourceKind?: string;
  readonly resourceName?: string;
}

export type BindingContext = BindingContextV1 | BindingContextV0;

export function onStartupContext(): OnStartupContext {
  return { binding: 'onStartup' };
}

/**
 * Lifecycle bindings get the snapshots of all the hook's kubernetes bindings (docs/lifecycle.md steps 3, 5,
 * 6, 8).
 */
export function lifecycleContext(
  config: HookConfig,
  binding: LifecycleBindingType,
  snapshots: Snapshots,
): LifecycleContext | BindingContextV0 {
  if (config.version === 'v0') return { binding };
  return {
    binding,
    snapshots: pickSnapshots(
      config.kubernetes.map(({ name }) => name),
      snapshots,
    ),
  };
}

export function scheduleContext(
  config: HookConfig,
  binding: ScheduleBinding,
  snapshots: Snapshots,
): ScheduleContext | GroupContext | BindingContextV0 {
  if (config.version === 'v0') return { binding: binding.name };
  const included = includedSnapshots(binding, snapshots);
  if (binding.group !== undefined) return groupContext(binding.name, binding.group, included);
  return { binding: binding.name, type: 'Schedule', ...included };
}

/** The first run of a kubernetes binding: every object it matches (docs/lifecycle.md step 2). */
export function synchronizationContext(
  config: HookConfig,
  binding: KubernetesBinding,
  objects: readonly ObjectAndFilterResult[],
  snapshots: Snapshots,
): SynchronizationContext | GroupContext | BindingContextV0 {
  if (config.version === 'v0') return v0KubernetesContext(binding, '', objects[0]);
  const included = includedSnapshots(binding, snapshots);
  if (binding.group !== undefined) return groupContext(binding.name, binding.group, included);
  return { binding: binding.name, type: 'Synchronization', objects, ...included };
}

/** A watch event (docs/lifecycle.md step 9): the object as it was at the event. */
export function eventContext(
  config: HookConfig,
  binding: KubernetesBinding,
  watchEvent: WatchEvent,
  item: ObjectAndFilterResult | undefined,
  snapshots: Snapshots,
): EventContext | GroupContext | BindingContextV0 {
  if (config.version === 'v0') return v0KubernetesContext(binding, V0_EVENT[watchEvent], item);
  const included = includedSnapshots(binding, snapshots);
  if (binding.group !== undefined) return groupContext(binding.name, binding.group, included);
  const fields =
    item ?? (binding.jqFilter === undefined ? { object: null } : { object: null, filterResult: '' });
  return { binding: binding.name, type: 'Event', watchEvent, ...fields, ...included };
}

/**
 * The item a binding keeps for one object: the object unless keepFullObjectsInMemory is false, and
 * the jqFilter's result when there is a filter (`outputs` are everything the filter yielded).
 */
export function snapshotItem(
  binding: KubernetesBinding,
  object: JsonObject,
  outputs: readonly JsonValue[] = [],
): ObjectAndFilterResult {
  return {
    ...(binding.keepFullObjectsInMemory ? { object } : {}),
    ...(binding.jqFilter === undefined ? {} : { filterResult: filterResultOf(outputs) }),
  };
}

/** One jq output is the result; none is null; several are a list. */
export function filterResultOf(outputs: readonly JsonValue[]): JsonValue {
  if (outputs.length === 0) return null;
  if (outputs.length === 1) return outputs[0] ?? null;
  return [...outputs];
}

/**
 * Of consecutive contexts of one group, only the last is kept: it carries the same, newest
 * snapshots (docs/hooks.md "Binding contexts", shell-operator's group compaction when contexts are combined).
 */
export function compactGroupContexts(contexts: readonly BindingContext[]): BindingContext[] {
  return contexts.filter((context, i) => {
    const group = groupOf(context);
    return group === undefined || groupOf(contexts[i + 1]) !== group;
  });
}

function groupOf(context: BindingContext | undefined): string | undefined {
  return context !== undefined && 'groupName' in context ? context.groupName : undefined;
}

const V0_EVENT = { Added: 'add', Modified: 'update', Deleted: 'delete' } as const;

function v0KubernetesContext(
  binding: KubernetesBinding,
  resourceEvent: BindingContextV0['resourceEvent'],
  item: ObjectAndFilterResult | undefined,
): BindingContextV0 {
  if (item === undefined) return { binding: binding.name, resourceEvent };
  const metadata = item.object?.metadata;
  const field = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');
  const meta = metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata) ? metadata : {};
  return {
    binding: binding.name,
    resourceEvent,
    resourceNamespace: field(meta.namespace),
    resourceKind: field(item.object?.kind),
    resourceName: field(meta.name),
  };
}

function groupContext(binding: string, groupName: string, included: { snapshots?: Snapshots }): GroupContext {
  return { binding, type: 'Group', groupName, ...included };
}

/** `snapshots` is present when includeSnapshotsFrom (with the group's bindings merged in) is not empty. */
function includedSnapshots(
  binding: KubernetesBinding | ScheduleBinding,
  snapshots: Snapshots,
): { snapshots?: Snapshots } {
  if (binding.includeSnapshotsFrom.length === 0) return {};
  return { snapshots: pickSnapshots(binding.includeSnapshotsFrom, snapshots) };
}

/** Every named binding gets a key; a binding with no objects yet has an empty list. */
function pickSnapshots(names: readonly string[], snapshots: Snapshots): Snapshots {
  return Object.fromEntries(names.map((name) => [name, snapshots[name] ?? []]));
}
