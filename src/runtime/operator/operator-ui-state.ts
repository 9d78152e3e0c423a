import { GLOBAL_OWNER, moduleOwner } from '../../core/values.ts';
import type { LoadedHook } from '../lifecycle-hooks.ts';
import type { ModuleEventLog } from '../module-status/module-event-log.ts';
import { readyStateOf, newModuleRecord, type ModuleRecord } from '../module-status/module-status.ts';
import type { QueueDump } from '../queue/queue-dump.ts';
import type { JsonValue } from '../../core/json.ts';
import type { DebugState } from '../../observability/debug/debug-state.ts';
import type {
  UiHook,
  UiHookRun,
  UiModule,
  UiModuleDetail,
  UiModuleState,
  UiObject,
  UiOverview,
  UiQueueList,
  UiState,
} from '../../observability/ui/ui-state.ts';
import type { ObjectHealth } from '../../core/object-health.ts';
import type { OperatorContext } from './operator-context.ts';
import { publishedText } from '../module-status/module-status-publisher.ts';
import type { HookRunRecord } from './hook-runs.ts';
import { formatDiffText, type ModuleDiff } from '../../core/module-diff.ts';
import { errorMessage } from '../../core/errors.ts';
import { createUiReleases } from './ui-releases.ts';
import { diffModule } from './operator-debug-state.ts';
import type { ApplyApi } from '../../delivery/drift/release-objects.ts';

/** The most of a diff the page is sent; a longer one is cut, saying so. */
const MAX_DIFF_BYTES = 1024 * 1024;

export interface OperatorUiStateOptions {
  readonly ctx: OperatorContext;
  /** The page's own client for release histories and diffs, never the operator's (docs/ui.md "Limits"). */
  readonly api: ApplyApi | undefined;
  readonly debug: DebugState;
  readonly events: ModuleEventLog | undefined;
  readonly version: string;
  readonly startedAt: number;
  /** Hides secret values in messages, as on the Module object (docs/hooks.md). */
  readonly mask?: (text: string) => string;
}

/**
 * The status page's view of a running operator (docs/ui.md), read from the debug state and the
 * module status tracker on each request: nothing is listed from the cluster.
 */
export function createOperatorUiState(options: OperatorUiStateOptions): UiState {
  const { ctx, debug } = options;
  const summarize = (name: string, record: Readonly<ModuleRecord>): UiModule =>
    summarizeRecord(name, record, (text) => publishedText(text, options.mask));
  const moduleOf = (name: string): UiModule => summarize(name, recordOf(ctx, name));
  const modules = (): UiModule[] => ctx.tree.modules.map(({ name }) => moduleOf(name));
  const releases = options.api
    ? createUiReleases({
        api: options.api,
        namespace: ctx.namespace,
        deliveredRevision: (name) => ctx.status?.record(name)?.delivered?.helmRevision,
      })
    : undefined;
  const diffText = (text: string): string => publishedText(text, options.mask, MAX_DIFF_BYTES);
  const queues = (): UiQueueList => queuesOf(debug.queueList(true).data as QueueDump, options.mask);
  // A diff asked for again while one of the same module runs waits for that one.
  const diffs = new Map<string, Promise<ModuleDiff>>();
  return {
    overview: () => overview(options, modules(), queues()),
    modules,
    module: async (name) => {
      const definition = ctx.tree.modules.find((module) => module.name === name);
      if (definition === undefined) return undefined;
      const record = recordOf(ctx, name);
      const ref = (other: string): { name: string; state: UiModuleState } => ({
        name: other,
        state: moduleOf(other).state,
      });
      const state = ctx.state.modules.get(name);
      const detail: UiModuleDetail = {
        ...summarize(name, record),
        phase: state?.phase ?? 'Disabled',
        waitingFor: state?.waitingFor,
        health: { status: record.health.status, message: publishedText(record.health.message, options.mask) },
        objects: objectsOf(ctx, debug, name, options.mask),
        events: (options.events?.events(name) ?? []).map(({ time, type, reason, note }) => ({
          time,
          type,
          reason,
          note,
        })),
        hooks: describeHooks(options, name, await ctx.hooks.moduleHooks(name)),
        requires: definition.requires.map(ref),
        requiredBy: ctx.tree.modules
          .filter((module) => module.requires.includes(name))
          .map(({ name: other }) => ref(other)),
      };
      return detail;
    },
    moduleValues: (name, shown) =>
      shown.secrets
        ? debug.moduleValues(name)
        : maskedStrings(ctx.store.moduleValuesWithoutSecrets(name, '***'), options.mask),
    valueOrigins: (name, shown) =>
      shown.secrets
        ? ctx.store.valueOrigins(name === undefined ? GLOBAL_OWNER : moduleOwner(name))
        : ctx.store
            .valueOrigins(name === undefined ? GLOBAL_OWNER : moduleOwner(name), '***')
            .map((entry) => ({ ...entry, value: maskedStrings(entry.value, options.mask) })),
    queues,
    globalHooks: () => describeHooks(options, undefined, ctx.hooks.globalHooks()),
    timeline: (filter) =>
      (options.events?.timeline(filter) ?? []).map(({ time, module, kind, type, reason, note }) => ({
        time,
        module,
        kind,
        type,
        reason,
        note,
      })),
    releases: async (name) =>
      ((await releases?.history(name)) ?? []).map((release) => ({
        ...release,
        description: publishedText(release.description, options.mask),
      })),
    revisionDiff: async (name, from, to) => {
      const text = await releases?.diff(name, from, to);
      return text === undefined ? undefined : diffText(text);
    },
    moduleDiff: async (name) => {
      let running = diffs.get(name);
      if (running === undefined) {
        // The page's own client: dry runs asked for by a person never take the operator's capacity.
        running = (
          options.api === undefined
            ? Promise.reject(new Error('module diff: the status page has no cluster connection'))
            : diffModule(ctx, name, options.api)
        ).finally(() => diffs.delete(name));
        diffs.set(name, running);
      }
      try {
        const diff = await running;
        return { action: diff.action, text: diffText(formatDiffText([diff], { colour: false })) };
      } catch (error: unknown) {
        // A module that does not render now, or the API server refusing a dry run: said on the page.
        return { action: 'failed', text: diffText(errorMessage(error)) };
      }
    },
  };
}

/** The module's delivered objects, each followed one with its health now. */
function objectsOf(
  ctx: OperatorContext,
  debug: DebugState,
  name: string,
  mask: ((text: string) => string) | undefined,
): UiObject[] {
  const health = ctx.health?.objectHealth(name) ?? new Map<string, ObjectHealth>();
  return (debug.resourceMonitors().get(name) ?? []).map((id) => {
    const found = health.get(id);
    return found === undefined
      ? { id }
      : { id, health: found.status, message: publishedText(found.message, mask) };
  });
}

/** `kaddon operator` always has a tracker; an Operator built without one shows enabled or disabled only. */
function recordOf(ctx: OperatorContext, name: string): Readonly<ModuleRecord> {
  const tracked = ctx.status?.record(name);
  if (tracked !== undefined) return tracked;
  const record = newModuleRecord();
  record.enabled = ctx.state.modules.isEnabled(name);
  return record;
}

function summarizeRecord(
  name: string,
  record: Readonly<ModuleRecord>,
  text: (raw: string) => string,
): UiModule {
  const ready = readyStateOf(record);
  return {
    name,
    enabled: record.enabled,
    state: stateOf(ready.status, ready.reason, ready.beside),
    reason: ready.reason,
    message: text(ready.message),
    lastDelivery:
      record.delivered === undefined
        ? undefined
        : {
            at: new Date(record.delivered.at).toISOString(),
            helmRevision: record.delivered.helmRevision,
            gitRevision: record.delivered.gitRevision,
          },
    driftedObjects: record.drift?.objects ?? [],
  };
}

function stateOf(status: string, reason: string, beside: string | undefined): UiModuleState {
  if (reason === 'Disabled') return 'Disabled';
  // docs/operations.md "Hands off": shown apart, and among what needs attention.
  if (reason === 'Maintenance') return 'Maintenance';
  if (status === 'True') return 'Ready';
  return beside === 'Stalled' ||
    (status === 'False' && reason !== 'Progressing' && reason !== 'DependencyNotReady')
    ? 'Failed'
    : 'Progressing';
}

const ORDER: Readonly<Record<UiModuleState, number>> = {
  Failed: 0,
  Maintenance: 1,
  Progressing: 2,
  Ready: 3,
  Disabled: 4,
};

/**
 * The queue dump as the page shows it: a task's last error apart from its description, so that
 * who may not see hooks' output gets the task without it; both masked as messages are.
 */
function queuesOf(dump: QueueDump, mask: ((text: string) => string) | undefined): UiQueueList {
  const queue = (entry: QueueDump['active'][number]): UiQueueList['active'][number] => ({
    ...entry,
    tasks: entry.tasks.map(({ lastError, description, ...task }) => ({
      ...task,
      description: publishedText(withoutError(description, lastError), mask),
      ...(lastError === undefined ? {} : { lastError: publishedText(lastError, mask) }),
    })),
  });
  return {
    ...dump,
    active: dump.active.map(queue),
    ...(dump.empty === undefined ? {} : { empty: dump.empty.map(queue) }),
  };
}

/** describeTask ends a failed task's description with `:<last error>` (runtime/queue/task-description.ts). */
function withoutError(description: string, lastError: string | undefined): string {
  return lastError !== undefined && description.endsWith(`:${lastError}`)
    ? description.slice(0, -lastError.length - 1)
    : description;
}

/** Every string of a JSON value masked: values shown to who may not read Secrets. */
function maskedStrings(value: JsonValue, mask: ((text: string) => string) | undefined): JsonValue {
  if (mask === undefined) return value;
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskedStrings(item, mask));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskedStrings(item, mask)]));
}

function overview(
  options: OperatorUiStateOptions,
  modules: readonly UiModule[],
  list: UiQueueList,
): UiOverview {
  const counts: Record<UiModuleState, number> = {
    Ready: 0,
    Progressing: 0,
    Failed: 0,
    Maintenance: 0,
    Disabled: 0,
  };
  for (const module of modules) counts[module.state] += 1;
  const git = options.debug.gitStatus();
  const dump = list as UiQueueList & {
    moduleRuns?: { runs: readonly { module: string; state: string }[] };
  };
  const queues = [...dump.active, ...(dump.empty ?? [])].map(({ name, tasksCount }) => ({
    name,
    length: tasksCount,
  }));
  const head = dump.active.find((queue) => queue.name === 'main')?.tasks[0];
  const running = dump.moduleRuns?.runs
    .filter((run) => run.state === 'running')
    .map((run) => `ModuleRun ${run.module}`);
  return {
    counts,
    attention: modules
      .filter((module) => ['Failed', 'Maintenance', 'Progressing'].includes(module.state))
      .sort((a, b) => ORDER[a.state] - ORDER[b.state] || a.name.localeCompare(b.name)),
    git:
      git === undefined
        ? undefined
        : { url: git.url, revision: git.revisionInUse, lastSync: git.lastSyncTime, lastError: git.lastError },
    replica: {
      role: 'leader',
      version: options.version,
      uptimeSeconds: Math.round((Date.now() - options.startedAt) / 1000),
    },
    queues,
    running: running !== undefined && running.length > 0 ? running.join(', ') : head?.description,
  };
}

/** Global (`module` undefined) or a module's hooks with their bindings and last runs. */
function describeHooks(
  options: OperatorUiStateOptions,
  module: string | undefined,
  hooks: readonly LoadedHook[],
): UiHook[] {
  return hooks.map((hook) => describeHook(options, module, hook));
}

function describeHook(options: OperatorUiStateOptions, module: string | undefined, hook: LoadedHook): UiHook {
  const { ctx, mask } = options;
  const config = hook.config;
  return {
    name: hook.descriptor.name,
    bindings: [
      ...Object.keys(config.order),
      ...config.schedule.map((binding) => `schedule ${binding.name}`),
      ...config.kubernetes.map((binding) => `kubernetes ${binding.name}`),
    ],
    lastRuns: ctx.state.hookRuns.last(module, hook.descriptor.name).map((run) => describeRun(run, mask)),
  };
}

/** A run as the page shows it: what the hook wrote leaves the operator as messages do, masked and cleaned. */
function describeRun(run: HookRunRecord, mask: ((text: string) => string) | undefined): UiHookRun {
  return {
    binding: run.binding,
    startedAt: run.startedAt,
    durationMs: run.durationMs,
    outcome: publishedText(run.outcome, mask),
    stdout: publishedText(run.stdout, mask),
    stderr: publishedText(run.stderr, mask),
  };
}
