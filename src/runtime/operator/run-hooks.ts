import type { OrderedBindingType } from '../../hooks/hook-config.ts';
import { cleanText } from '../../core/untrusted-text.ts';
import { GLOBAL_OWNER, moduleOwner } from '../../core/values.ts';
import { parseHookMetrics } from '../../hooks/hook-metrics.ts';
import type { HookRunResult } from '../../hooks/run/run-hook.ts';
import { runLifecycleHook, type LifecycleRun, type LoadedHook } from '../lifecycle-hooks.ts';
import { MAIN_QUEUE } from '../queue/task-queue-set.ts';
import { createTask, type HookRunTask } from '../queue/task.ts';
import { onStartupContext } from '../../hooks/binding-context.ts';
import { hookId } from './hook-registry.ts';
import { hookRunRecord } from './hook-runs.ts';
import type { ValuesChanges } from '../values-store.ts';
import type { ObjectPatcher } from './object-patcher.ts';
import type { OperatorContext } from './operator-context.ts';

/** Runs the global hooks of a lifecycle binding in ORDER (docs/lifecycle.md steps 1 and 3, and afterAll). */
export async function runGlobalHooks(
  ctx: OperatorContext,
  binding: OrderedBindingType,
): Promise<ValuesChanges[]> {
  const run = lifecycleRun(ctx, undefined);
  const changes: ValuesChanges[] = [];
  for (const hook of ctx.hooks.global(binding)) changes.push(await runLifecycleHook(hook, binding, run));
  return changes;
}

/** GlobalHookRun tasks for the global onStartup hooks, in ORDER (docs/lifecycle.md "Start-up" bootstrap). */
export function onStartupTasks(ctx: OperatorContext, now: number): HookRunTask[] {
  return ctx.hooks.global('onStartup').map((hook) =>
    createTask(
      'GlobalHookRun',
      {
        queue: MAIN_QUEUE,
        payload: { bindingContexts: [onStartupContext()], hookVersion: hook.config.version },
        metadata: { hook: hookId(undefined, hook), bindingType: 'onStartup', event: 'OperatorStartup' },
      },
      now,
    ),
  );
}

/** Runs a module's hooks of a lifecycle binding in ORDER (docs/lifecycle.md steps 5, 6, 8). */
export async function runModuleHooks(
  ctx: OperatorContext,
  module: string,
  binding: OrderedBindingType,
): Promise<ValuesChanges[]> {
  const run = lifecycleRun(ctx, module);
  const changes: ValuesChanges[] = [];
  for (const hook of await ctx.hooks.module(module, binding))
    changes.push(await runLifecycleHook(hook, binding, run));
  return changes;
}

/** How a hook run is labelled in metrics; lifecycle runs are `main`-queue runs of their binding. */
export interface HookRunMetricLabels {
  readonly activation: string;
  readonly queue: string;
  /** The binding names; the run's label when absent (a lifecycle binding). */
  readonly binding?: string | undefined;
  readonly allowFailure?: boolean | undefined;
  /** The task's id, for the hook's log lines. */
  readonly task?: string | undefined;
}

export function lifecycleRun(
  ctx: OperatorContext,
  module: string | undefined,
  labels?: HookRunMetricLabels,
): LifecycleRun {
  return {
    store: ctx.store,
    owner: module === undefined ? GLOBAL_OWNER : moduleOwner(module),
    ...(module === undefined ? {} : { enabledModules: ctx.state.modules.enabled }),
    snapshots: (hook) => ctx.bindings.snapshots(module, hook),
    // The hook's output lines carry who ran it (issue 7: stable field names).
    runDeps: {
      ...ctx.runDeps,
      logger: ctx.runDeps.logger.child({
        module,
        queue: labels?.queue ?? MAIN_QUEUE,
        binding: labels?.binding,
        task: labels?.task,
      }),
    },
    onRun: (hook, label, result, seconds) => {
      recordHookRun(ctx, module, hook, { label, result, seconds, labels });
    },
    ...(ctx.objectPatcher ? { applyObjectPatches: objectPatchesOf(ctx.objectPatcher) } : {}),
    ...(ctx.hookTimeoutMs === undefined ? {} : { timeoutMs: ctx.hookTimeoutMs }),
  };
}

function objectPatchesOf(patcher: ObjectPatcher): (hook: string, text: string) => Promise<void> {
  return (hook, text) => patcher.apply(hook, text);
}

/**
 * Forgets the last runs (docs/ui.md) of hooks the operator no longer has: a module's once it is
 * removed (its record is gone, docs/lifecycle.md "Module states"), and hooks a new modules tree no
 * longer holds. Called where that happens (removeModule, switchModulesTree), so the runs kept never
 * outgrow the hooks of one tree.
 */
export function dropRunsOfRemovedHooks(ctx: OperatorContext): void {
  const loaded = ctx.hooks.loaded();
  const has = (hooks: readonly LoadedHook[] | undefined, name: string): boolean =>
    hooks?.some((hook) => hook.descriptor.name === name) === true;
  ctx.state.hookRuns.retain((module, hook) =>
    module === undefined
      ? has(loaded.global, hook)
      : ctx.state.modules.get(module) !== undefined && has(loaded.modules.get(module), hook),
  );
}

/** How many refused metric lines one run's log line quotes. */
const MAX_REFUSALS_LOGGED = 3;

/** docs/observability.md "Metrics" for one hook run, and the hook's $METRICS_PATH content. */
function recordHookRun(
  ctx: OperatorContext,
  module: string | undefined,
  hook: LoadedHook,
  run: { label: string; result: HookRunResult; seconds: number; labels: HookRunMetricLabels | undefined },
): void {
  const name = hook.descriptor.name;
  const { result } = run;
  const binding = run.labels?.binding ?? run.label;
  const durationMs = run.seconds * 1000;
  ctx.state.hookRuns.add(module, name, hookRunRecord(binding, result, { durationMs, endedAt: Date.now() }));
  const failed = run.labels?.allowFailure === true ? 'allowed-error' : 'error';
  ctx.metrics.hookRun(
    {
      hook: name,
      binding,
      activation: run.labels?.activation ?? run.label,
      queue: run.labels?.queue ?? MAIN_QUEUE,
      module,
    },
    {
      seconds: run.seconds,
      outcome: result.ok ? 'success' : failed,
      userCpu: result.usage?.userCpuSeconds,
      sysCpu: result.usage?.sysCpuSeconds,
      maxRssBytes: result.usage?.maxRssBytes,
    },
  );
  if (result.metricsText.trim() === '') return;
  const parsed = parseHookMetrics(result.metricsText);
  const conflicts = ctx.hookMetrics.apply({ hook: name, module }, parsed.operations);
  const refused = [
    ...parsed.invalid.map((line) => `line ${String(line.line)}: ${line.reason}: ${line.excerpt}`),
    ...conflicts.map((conflict) => `metric '${conflict.name}': ${conflict.reason}`),
  ];
  if (refused.length === 0) return;
  ctx.metrics.hookMetricsRejected({ hook: name, module }, refused.length);
  // One line per run however many were refused: a hook cannot flood the log through its metrics.
  ctx.logger.error('hook metrics refused', {
    module,
    hook: name,
    refused: refused.length,
    first: refused
      .slice(0, MAX_REFUSALS_LOGGED)
      .map((text) => cleanText(text, { maxBytes: 300 }))
      .join(' | '),
  });
}
