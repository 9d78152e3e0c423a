import { diffRelease } from '../../delivery/drift/release-diff.ts';
import type { ApplyApi } from '../../delivery/drift/release-objects.ts';
import type { ModuleDiff } from '../../core/module-diff.ts';
import { driftIgnoreOf } from '../drift-ignore.ts';
import { readStoredReleases } from '../../delivery/drift/release-storage.ts';
import { deepClone, type JsonObject, type JsonValue } from '../../core/json.ts';
import { moduleValuesKey } from '../../core/module-name.ts';
import { GLOBAL_OWNER, moduleOwner } from '../../core/values.ts';
import type {
  DebugDocument,
  DebugModule,
  DebugState,
  HookSnapshots,
} from '../../observability/debug/debug-state.ts';
import { dumpQueues, formatQueueDump } from '../queue/queue-dump.ts';
import { seconds } from '../queue/queue-status.ts';
import type { PoolRun } from './module-run-pool.ts';
import { MAIN_QUEUE, type TaskQueueSet } from '../queue/task-queue-set.ts';
import { renderEnabled } from './deliver-tree.ts';
import type { OperatorContext } from './operator-context.ts';

/**
 * The debug socket's view of a running operator (docs/observability.md "Debug socket"), read live on every
 * request.
 */
export function createOperatorDebugState(ctx: OperatorContext, queues: TaskQueueSet): DebugState {
  const dump = (showEmpty: boolean, only?: string): DebugDocument => {
    const now = queues.clock.now();
    const selected = queues.queues().filter((queue) => only === undefined || queue.name === only);
    const data = dumpQueues(selected, now, showEmpty);
    const text = formatQueueDump(data, now);
    const pool = ctx.moduleRuns;
    if (only !== undefined || pool === undefined) return { data, text };
    const runs = dumpModuleRuns(pool.limit, pool.runs(), Date.now());
    return { data: { ...data, moduleRuns: runs }, text: `${text}\n${formatModuleRuns(runs)}` };
  };
  const configOf = (name: string): JsonValue =>
    ctx.store.configView(moduleOwner(name))[moduleValuesKey(name)] ?? {};
  return {
    queueList: (showEmpty) => dump(showEmpty),
    queueMain: () => dump(true, MAIN_QUEUE),
    globalHooks: () => ctx.hooks.globalHooks().map((hook) => hook.descriptor.name),
    globalValues: () => ctx.store.globalValues(),
    globalConfig: () => asObject(ctx.store.configView(GLOBAL_OWNER).global),
    globalPatches: () => ctx.store.patches(GLOBAL_OWNER),
    modules: () => ctx.tree.modules.map(({ name }) => moduleState(ctx, name)),
    moduleValues: (name) => ctx.store.moduleValues(name),
    valueOrigins: (name) =>
      ctx.store.valueOrigins(name === undefined ? GLOBAL_OWNER : moduleOwner(name), '***'),
    moduleConfig: configOf,
    modulePatches: (name) => ctx.store.patches(moduleOwner(name)),
    resourceMonitors: () => new Map(ctx.state.modules.enabled.flatMap((name) => monitored(ctx, name))),
    renderedManifests: async (name) => {
      const result = await renderEnabled(ctx);
      const failure = result.failed.get(name);
      if (failure !== undefined) throw failure;
      return (result.rendered.slices.get(name) ?? []).map((resource) => deepClone(resource.obj));
    },
    moduleDiff: (name) => {
      if (ctx.liveApi === undefined)
        return Promise.reject(new Error('module diff: the operator has no cluster connection'));
      return diffModule(ctx, name, ctx.liveApi);
    },
    gitStatus: () => ctx.modulesSource?.status(),
    hookSnapshots: () =>
      ctx.bindings.allSnapshots().map(({ hook, module, snapshots }): HookSnapshots => ({
        hook: hook.descriptor.name,
        ...(module === undefined ? {} : { module }),
        bindings: snapshots,
      })),
  };
}

/**
 * What delivering `name` would change now (docs/drift.md "The running operator's view"): its render
 * with live values against the stored release and server-side apply dry runs sent through `api`.
 */
export async function diffModule(ctx: OperatorContext, name: string, api: ApplyApi): Promise<ModuleDiff> {
  const result = await renderEnabled(ctx);
  const failure = result.failed.get(name);
  if (failure !== undefined) throw failure;
  const stored = await readStoredReleases(api, ctx.namespace, name);
  return diffRelease(api, {
    module: name,
    namespace: ctx.namespace,
    objects: (result.rendered.slices.get(name) ?? []).map((resource) => resource.obj),
    released: stored.get(name)?.objects,
    ignore: (desired, live) =>
      driftIgnoreOf(
        desired,
        live,
        ctx.tree.modules.find((module) => module.name === name)?.driftIgnore ?? [],
      ),
  });
}

function moduleState(ctx: OperatorContext, name: string): DebugModule {
  const enabled = ctx.state.modules.isEnabled(name);
  const record = ctx.state.modules.get(name);
  const error = record?.error;
  let state: string;
  if (error !== undefined) state = `Failed: ${error}`;
  else if (!enabled) state = 'Disabled';
  else if (record?.checksum !== undefined || record?.prepared === true) state = 'Ready';
  else state = 'Pending';
  return { name, enabled, state };
}

function monitored(ctx: OperatorContext, name: string): [string, readonly string[]][] {
  const ids = ctx.state.modules.get(name)?.deliveredIds;
  return ids === undefined ? [] : [[name, ids]];
}

function asObject(value: JsonValue | undefined): JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
}

/** The ModuleRuns in the pool (docs/lifecycle.md "Parallel module runs"), as `queue list` shows them. */
interface ModuleRunsDump {
  readonly limit: number;
  readonly runs: readonly {
    readonly module: string;
    readonly state: 'running' | 'waiting';
    /** Since when it runs, or since when it waits. */
    readonly since: string;
    readonly seconds: number;
    /** The modules whose runs it waits for; its own name for its earlier run. */
    readonly waitingFor?: readonly string[];
  }[];
}

function dumpModuleRuns(limit: number, runs: readonly PoolRun[], now: number): ModuleRunsDump {
  return {
    limit,
    runs: runs.map((run) => {
      const since = run.startedAt ?? run.enteredAt;
      return {
        module: run.module,
        state: run.startedAt === undefined ? 'waiting' : 'running',
        since: new Date(since).toISOString(),
        seconds: Math.max(0, Math.round((now - since) / 100) / 10),
        ...(run.waitingFor === undefined ? {} : { waitingFor: run.waitingFor }),
      };
    }),
  };
}

function formatModuleRuns(dump: ModuleRunsDump): string {
  const header = `Module runs in the pool: ${String(dump.runs.length)} of ${String(dump.limit)}`;
  const lines = dump.runs.map((run, i) => {
    const index = String(i + 1).padStart(2);
    const age = seconds(run.seconds * 1000);
    if (run.state === 'running') return `${index}. ModuleRun:${run.module}: running for ${age}`;
    const waitingFor = run.waitingFor ?? [];
    const others = waitingFor.filter((name) => name !== run.module);
    const what = [
      ...(waitingFor.includes(run.module) ? ['its earlier run'] : []),
      ...(others.length > 0 ? [`the runs of ${others.join(', ')}`] : []),
    ];
    return `${index}. ModuleRun:${run.module}: waiting ${age} for ${what.join(' and ') || 'its turn'}`;
  });
  return lines.length === 0 ? `${header}\n` : `${header}\n\n${lines.join('\n')}\n`;
}
