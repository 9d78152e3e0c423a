import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { errorMessage } from '../core/errors.ts';
import { familiesClash, type MetricFamilyName } from './metric-family-clash.ts';
import { metricLabelText } from './metric-label-text.ts';

/**
 * One operation a hook asks of its metrics (docs/hooks.md "Metrics from hooks"): hooks/hook-metrics.ts
 * reads them from $METRICS_PATH, this store applies them.
 */
export type MetricOperation =
  | {
      readonly action: 'add' | 'set';
      readonly name: string;
      readonly value: number;
      readonly labels: Readonly<Record<string, string>>;
      readonly group: string | undefined;
    }
  | {
      readonly action: 'observe';
      readonly name: string;
      readonly value: number;
      readonly buckets: readonly number[];
      readonly labels: Readonly<Record<string, string>>;
      readonly group: undefined;
    }
  | { readonly action: 'expire'; readonly group: string };

/** The hook whose run wrote the operations: its name becomes the `hook` label, its module `module`. */
export interface MetricsSource {
  readonly hook: string;
  readonly module?: string | undefined;
}

/** An operation that was not applied (or applied differently), for the hook's log. */
interface HookMetricsConflict {
  readonly name: string;
  readonly reason: string;
}

export interface HookMetricsStoreOptions {
  /**
   * Whether a family would clash with one served on the same endpoint that hooks may not touch,
   * such as the built-in metrics (docs/hooks.md "Metrics from hooks").
   */
  readonly isReserved?: (family: MetricFamilyName) => boolean;
}

export interface HookMetricsStore {
  /** The custom metrics of all hooks, in a registry of their own. */
  readonly registry: Registry;
  /**
   * Applies one hook run's operations as one batch (docs/hooks.md "Metrics from hooks", "Grouped metrics").
   */
  apply(source: MetricsSource, operations: readonly MetricOperation[]): HookMetricsConflict[];
}

type Family =
  | { readonly type: 'counter'; readonly metric: Counter }
  | { readonly type: 'gauge'; readonly metric: Gauge }
  | { readonly type: 'histogram'; readonly metric: Histogram; readonly buckets: readonly number[] };

interface FamilyState {
  readonly family: Family;
  readonly labelNames: ReadonlySet<string>;
  /** Series by label key, with the group that last wrote each (undefined: never expired). */
  readonly series: Map<string, { labels: Record<string, string>; group: string | undefined }>;
}

const TYPE_OF = { add: 'counter', set: 'gauge', observe: 'histogram' } as const;

/**
 * Custom metrics from hooks. Types follow the action (add → counter, set → gauge, observe →
 * histogram); the metric name is used as-is and HELP repeats it. Grouped series written in a run
 * keep accumulating; the series of a group the run wrote to but did not write again disappear, for
 * every hook using that group; `expire` removes a whole group; series without a group stay until
 * restart (docs/hooks.md "Metrics from hooks" example).
 */
export function createHookMetricsStore(options: HookMetricsStoreOptions = {}): HookMetricsStore {
  const registry = new Registry();
  const families = new Map<string, FamilyState>();
  const isReserved = options.isReserved ?? (() => false);

  const expire = (group: string, keep: ReadonlySet<string>): void => {
    for (const [name, state] of families) {
      for (const [key, series] of state.series) {
        if (series.group !== group || keep.has(`${name}\n${key}`)) continue;
        state.family.metric.remove(series.labels);
        state.series.delete(key);
      }
      if (state.series.size === 0) {
        registry.removeSingleMetric(name);
        families.delete(name);
      }
    }
  };

  const apply = (source: MetricsSource, operations: readonly MetricOperation[]): HookMetricsConflict[] => {
    const conflicts: HookMetricsConflict[] = [];
    const written = new Set<string>();
    const groups = new Set<string>();
    for (const operation of operations) {
      if (operation.action === 'expire') {
        expire(operation.group, new Set());
        groups.delete(operation.group);
        continue;
      }
      const labels = seriesLabels(source, operation.labels);
      const state = families.get(operation.name) ?? register(operation, labels);
      const problem = typeof state === 'string' ? state : conflictOf(state, operation, labels);
      if (problem !== undefined || typeof state === 'string') {
        conflicts.push({ name: operation.name, reason: problem ?? '' });
        continue;
      }
      const note = bucketsNote(state.family, operation);
      if (note !== undefined) conflicts.push({ name: operation.name, reason: note });
      const refused = record(state.family, operation, labels);
      if (refused !== undefined) {
        conflicts.push({ name: operation.name, reason: refused });
        continue;
      }
      const key = labelKey(labels);
      state.series.set(key, { labels, group: operation.group });
      written.add(`${operation.name}\n${key}`);
      if (operation.group !== undefined) groups.add(operation.group);
    }
    for (const group of groups) expire(group, written);
    return conflicts;
  };

  /** A new family, or why it cannot be one. */
  const register = (
    operation: Exclude<MetricOperation, { action: 'expire' }>,
    labels: Record<string, string>,
  ): FamilyState | string => {
    const wanted: MetricFamilyName = { name: operation.name, type: TYPE_OF[operation.action] };
    if (isReserved(wanted)) return reservedReason(operation.name);
    const other = [...families.entries()].find(([name, state]) =>
      familiesClash(wanted, { name, type: state.family.type }),
    );
    if (other !== undefined)
      return `'${operation.name}' would be read as part of the ${other[1].family.type} '${other[0]}' another hook exports: choose another name`;
    const labelNames = [
      'hook',
      'module',
      ...Object.keys(labels).filter((n) => n !== 'hook' && n !== 'module'),
    ];
    const config = { name: operation.name, help: operation.name, labelNames, registers: [registry] };
    let family: Family;
    try {
      family = createFamily(operation, config);
    } catch (error: unknown) {
      // prom-client's own checks: whatever it refuses is one refused line, never a failed run.
      return `refused by the metrics library: ${errorMessage(error)}`;
    }
    const state: FamilyState = { family, labelNames: new Set(labelNames), series: new Map() };
    families.set(operation.name, state);
    return state;
  };

  return { registry, apply };
}

function createFamily(
  operation: Exclude<MetricOperation, { action: 'expire' }>,
  config: { name: string; help: string; labelNames: string[]; registers: Registry[] },
): Family {
  if (operation.action !== 'observe')
    return operation.action === 'add'
      ? { type: 'counter', metric: new Counter(config) }
      : { type: 'gauge', metric: new Gauge(config) };
  const buckets = operation.buckets;
  return { type: 'histogram', metric: new Histogram({ ...config, buckets: [...buckets] }), buckets };
}

/** The operator's labels win over a hook's own `hook` or `module` label. */
function seriesLabels(source: MetricsSource, own: Readonly<Record<string, string>>): Record<string, string> {
  const labels: Record<string, string> = { hook: metricLabelText(source.hook) };
  if (source.module !== undefined) labels.module = metricLabelText(source.module);
  for (const [name, value] of Object.entries(own)) if (!(name in labels)) labels[name] = value;
  return labels;
}

function conflictOf(
  state: FamilyState,
  operation: Exclude<MetricOperation, { action: 'expire' }>,
  labels: Record<string, string>,
): string | undefined {
  const wanted = TYPE_OF[operation.action];
  if (state.family.type !== wanted)
    return `action '${operation.action}' needs a ${wanted} but the metric is a ${state.family.type}: use one action per metric name`;
  const extra = Object.keys(labels).filter((name) => !state.labelNames.has(name));
  if (extra.length > 0)
    return `label ${extra.map((n) => `'${n}'`).join(', ')} not in the metric's labels (${[...state.labelNames].join(', ')}): keep one set of label names per metric`;
  return undefined;
}

function reservedReason(name: string): string {
  return `'${name}' is a built-in metric or would be read as part of one: choose another name`;
}

function bucketsNote(family: Family, operation: MetricOperation): string | undefined {
  if (family.type !== 'histogram' || operation.action !== 'observe') return undefined;
  const same =
    family.buckets.length === operation.buckets.length &&
    family.buckets.every((bound, index) => bound === operation.buckets[index]);
  return same
    ? undefined
    : `buckets differ from the first observation's [${family.buckets.join(', ')}], which are kept`;
}

/** Records the operation; what prom-client refuses comes back as the reason. */
function record(
  family: Family,
  operation: MetricOperation,
  labels: Record<string, string>,
): string | undefined {
  if (operation.action === 'expire') return undefined;
  try {
    if (family.type === 'counter') family.metric.inc(labels, operation.value);
    else if (family.type === 'gauge') family.metric.set(labels, operation.value);
    else family.metric.observe(labels, operation.value);
    return undefined;
  } catch (error: unknown) {
    return `refused by the metrics library: ${errorMessage(error)}`;
  }
}

function labelKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
