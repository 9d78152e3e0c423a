import type { JqEngine } from '../../jq/jq-engine.ts';
import {
  GO_DURATION_UNITS,
  isTooLongForTimer,
  parseGoDuration,
  TOO_LONG_HINT,
  tooLongProblem,
} from '../../core/go-duration.ts';
import type {
  HookConfig,
  HookOwner,
  HookSettings,
  KubernetesBinding,
  OrderedBindingType,
  ParsedHookConfig,
  ScheduleBinding,
} from '../hook-config.ts';
import { LIFECYCLE_BINDINGS } from '../hook-config.ts';
import type { ConfigObject } from './hook-config-reader.ts';
import { parseCrontab } from '../parse-crontab.ts';
import { parseKubernetesBinding } from './parse-hook-config-kubernetes.ts';

/**
 * shell-operator's webhook bindings: its v1 schema accepts them and addon-operator never runs them
 * (docs/hooks.md "Where hooks live"). kaddon accepts them too, so such hooks load unchanged, and warns.
 */
const WEBHOOK_BINDINGS = ['kubernetesValidating', 'kubernetesMutating', 'kubernetesCustomResourceConversion'];

const SCHEDULE_FIELDS = ['name', 'crontab', 'allowFailure', 'queue', 'group', 'includeSnapshotsFrom'];

/**
 * A `configVersion: v1` config (docs/hooks.md "Configuration versions" and "Bindings"); `root` is the whole
 * output.
 */
export function parseConfigV1(
  root: ConfigObject,
  owner: HookOwner,
  jq: JqEngine | undefined,
): ParsedHookConfig {
  checkTopLevelKeys(root, owner, [
    'configVersion',
    'onStartup',
    'schedule',
    'kubernetes',
    'settings',
    ...WEBHOOK_BINDINGS,
  ]);
  if (root.keys().length < 2)
    root.fail(undefined, 'a v1 config must declare a binding or settings besides configVersion');
  const order = parseOrders(root, owner);
  const settingsReader = root.object('settings');
  const settings = settingsReader && parseSettings(settingsReader);
  const warnings: string[] = [];
  const parsed = (root.objectList('kubernetes', 1) ?? []).map((reader) => ({
    reader,
    binding: parseKubernetesBinding(reader, { jq, warn: (message) => warnings.push(message) }),
  }));
  const kubernetes = parsed.map(({ binding }) => binding);
  for (const { reader, binding } of parsed) checkIncludes(reader, binding.includeSnapshotsFrom, kubernetes);
  const schedule = (root.objectList('schedule', 1) ?? []).map((reader) =>
    parseScheduleBinding(reader, kubernetes),
  );
  for (const key of WEBHOOK_BINDINGS.filter((name) => root.has(name))) {
    root.objectList(key, 1);
    warnings.push(`${key} is ignored: addon-operator does not run webhook bindings, and neither does kaddon`);
  }
  const config: HookConfig = {
    version: 'v1',
    order,
    schedule,
    kubernetes,
    ...(settings ? { settings } : {}),
  };
  return { config: withGroupSnapshots(config), warnings };
}

/**
 * Refuses unknown top-level fields, and says so plainly when a hook declares a lifecycle binding
 * of the other kind of hook (docs/hooks.md "Bindings": beforeAll/afterAll are global, the helm ones are
 * module bindings).
 */
export function checkTopLevelKeys(root: ConfigObject, owner: HookOwner, common: readonly string[]): void {
  const other = owner.kind === 'global' ? 'module' : 'global';
  const misplaced = LIFECYCLE_BINDINGS[other].find((key) => root.has(key));
  if (misplaced !== undefined)
    root.fail(
      misplaced,
      `a ${other} hook binding; ${owner.kind} hooks accept ${LIFECYCLE_BINDINGS[owner.kind].join(', ')}`,
      owner.kind === 'global'
        ? 'Run it from beforeAll or afterAll, or move the hook into a module.'
        : 'Run it from beforeHelm or afterHelm, or move the hook to the global hooks.',
    );
  root.allowOnly([...common, ...LIFECYCLE_BINDINGS[owner.kind]], `a ${owner.kind} hook config`);
}

/** ORDER values. addon-operator reads its own lifecycle orders as unsigned integers. */
export function parseOrders(root: ConfigObject, owner: HookOwner): HookConfig['order'] {
  const order: Partial<Record<OrderedBindingType, number>> = {};
  const onStartup = root.integer('onStartup');
  if (onStartup !== undefined) order.onStartup = onStartup;
  for (const key of LIFECYCLE_BINDINGS[owner.kind]) {
    const value = root.integer(key, 0);
    if (value !== undefined) order[key] = value;
  }
  return order;
}

function parseScheduleBinding(
  reader: ConfigObject,
  kubernetes: readonly KubernetesBinding[],
): ScheduleBinding {
  reader.allowOnly(SCHEDULE_FIELDS, 'a schedule binding');
  const crontab = reader.requiredString('crontab');
  const parsed = parseCrontab(crontab);
  if (!parsed.ok)
    reader.fail(
      'crontab',
      `'${crontab}' is not a valid crontab: ${parsed.problem}`,
      'Write 5 fields (minute hour day-of-month month day-of-week), 6 with seconds first, or @every <duration>.',
    );
  const includeSnapshotsFrom = reader.stringList('includeSnapshotsFrom', { minItems: 1 }) ?? [];
  checkIncludes(reader, includeSnapshotsFrom, kubernetes);
  const group = reader.string('group') ?? '';
  return {
    name: reader.string('name') || 'schedule',
    crontab,
    schedule: parsed.schedule,
    allowFailure: reader.boolean('allowFailure') ?? false,
    queue: reader.string('queue') || 'main',
    ...(group === '' ? {} : { group }),
    includeSnapshotsFrom,
  };
}

/** Each name must be the name of exactly one kubernetes binding of the hook (self-include is fine). */
function checkIncludes(
  reader: ConfigObject,
  includes: readonly string[],
  kubernetes: readonly KubernetesBinding[],
): void {
  const names = kubernetes.map((binding) => binding.name);
  includes.forEach((include, i) => {
    const count = names.filter((name) => name === include).length;
    if (count === 1) return;
    if (count === 0)
      reader.failItem(
        'includeSnapshotsFrom',
        i,
        `'${include}' is not the name of a kubernetes binding of this hook`,
        names.length === 0
          ? 'The hook has no kubernetes bindings.'
          : `Its kubernetes bindings are ${names.join(', ')}.`,
      );
    reader.failItem(
      'includeSnapshotsFrom',
      i,
      `'${include}' names ${count} kubernetes bindings`,
      'Give the bindings distinct names.',
    );
  });
}

/**
 * `settings` (docs/hooks.md "Execution rate"). addon-operator's documentation calls the interval
 * executionMinPeriod, shell-operator executionMinInterval; both are accepted (docs/architecture.md). As in
 * shell-operator, a settings block must give both the interval and the burst.
 */
function parseSettings(reader: ConfigObject): HookSettings {
  reader.allowOnly(['executionMinInterval', 'executionMinPeriod', 'executionBurst'], 'settings');
  if (reader.has('executionMinInterval') && reader.has('executionMinPeriod'))
    reader.fail(undefined, 'executionMinInterval and executionMinPeriod are the same setting; give only one');
  const key = reader.has('executionMinPeriod') ? 'executionMinPeriod' : 'executionMinInterval';
  const interval = reader.string(key);
  if (interval === undefined)
    reader.fail(undefined, `'executionMinInterval' (or its alias executionMinPeriod) is required`);
  const executionMinIntervalMs = parseGoDuration(interval);
  if (executionMinIntervalMs === undefined)
    reader.fail(key, `'${interval}' is not a duration such as 3s or 1m30s (units ${GO_DURATION_UNITS})`);
  if (isTooLongForTimer(executionMinIntervalMs)) reader.fail(key, tooLongProblem(interval), TOO_LONG_HINT);
  // A burst of 0 would never let the hook run.
  const executionBurst = reader.integer('executionBurst', 1);
  if (executionBurst === undefined) reader.fail(undefined, `'executionBurst' is required`);
  return { executionMinIntervalMs, executionBurst };
}

/**
 * A binding with a group receives the snapshots of every kubernetes binding of that group: their
 * names are appended to its includeSnapshotsFrom (docs/hooks.md "kubernetes" `group`).
 */
function withGroupSnapshots(config: HookConfig): HookConfig {
  const byGroup = new Map<string, string[]>();
  for (const { group, name } of config.kubernetes) {
    if (group !== undefined) byGroup.set(group, [...(byGroup.get(group) ?? []), name]);
  }
  const merge = <T extends KubernetesBinding | ScheduleBinding>(binding: T): T => {
    const members = binding.group === undefined ? undefined : byGroup.get(binding.group);
    if (members === undefined) return binding;
    return { ...binding, includeSnapshotsFrom: [...new Set([...binding.includeSnapshotsFrom, ...members])] };
  };
  return { ...config, kubernetes: config.kubernetes.map(merge), schedule: config.schedule.map(merge) };
}
