import { diffRelease } from '../../delivery/drift/release-diff.ts';
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
    return { data, text: formatQueueDump(data, now) };
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
    moduleConfig: configOf,
    modulePatches: (name) => ctx.store.patches(moduleOwner(name)),
    resourceMonitors: () => new Map(ctx.state.enabledModules.flatMap((name) => monitored(ctx, name))),
    renderedManifests: async (name) => {
      const result = await renderEnabled(ctx);
      const failure = result.failed.get(name);
      if (failure !== undefined) throw failure;
      return (result.rendered.slices.get(name) ?? []).map((resource) => deepClone(resource.obj));
    },
    moduleDiff: async (name) => {
      if (ctx.liveApi === undefined) throw new Error('module diff: the operator has no cluster connection');
      const result = await renderEnabled(ctx);
      const failure = result.failed.get(name);
      if (failure !== undefined) throw failure;
      const stored = await readStoredReleases(ctx.liveApi, ctx.namespace, name);
      return diffRelease(ctx.liveApi, {
        module: name,
        namespace: ctx.namespace,
        objects: (result.rendered.slices.get(name) ?? []).map((resource) => resource.obj),
        released: stored.get(name)?.objects,
      });
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

function moduleState(ctx: OperatorContext, name: string): DebugModule {
  const enabled = ctx.state.enabledModules.includes(name);
  const error = ctx.state.moduleErrors.get(name);
  let state: string;
  if (error !== undefined) state = `Failed: ${error}`;
  else if (!enabled) state = 'Disabled';
  else if (ctx.state.checksums.has(name) || ctx.state.preparedModules.has(name)) state = 'Ready';
  else state = 'Pending';
  return { name, enabled, state };
}

function monitored(ctx: OperatorContext, name: string): [string, readonly string[]][] {
  const ids = ctx.state.delivered.get(name);
  return ids === undefined ? [] : [[name, ids]];
}

function asObject(value: JsonValue | undefined): JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
}
