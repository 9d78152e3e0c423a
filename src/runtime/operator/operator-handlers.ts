import { backoffDelayMs, TASK_RETRY_BACKOFF } from '../../core/backoff.ts';
import { settlesWithin, systemClock } from '../../core/clock.ts';
import { errorMessage } from '../../core/errors.ts';
import { moduleValuesKey } from '../../core/module-name.ts';
import { MAIN_QUEUE } from '../queue/task-queue-set.ts';
import { scheduleContext, type BindingContext } from '../../hooks/binding-context.ts';
import { runHookWithContexts } from '../lifecycle-hooks.ts';
import { createTask, type AnyTask, type HookRunTask, type Task, type TaskType } from '../queue/task.ts';
import type { TaskContext, TaskHandler, TaskHandlers } from '../queue/task-handler.ts';
import { fail, success, type TaskResult } from '../queue/task-result.ts';
import type { ValuesChanges } from '../values-store.ts';
import { finishConverge, purgeRelease, startConverge } from './converge-modules.ts';
import type { OperatorContext } from './operator-context.ts';
import { lifecycleRun, onStartupTasks } from './run-hooks.ts';
import { switchModulesTree } from './switch-modules-tree.ts';
import { deleteDisabledModule, moduleRunTask, runModule } from './run-module.ts';
import type { ModuleRunPool } from './module-run-pool.ts';
import { runsToAwait } from './run-order.ts';

export interface HandlerEvents {
  /** Called after every ConvergeModules that completed; the first one makes /readyz ready. */
  readonly onConverged: () => void;
  readonly now: () => number;
  /** Whether a task of `type` (for `module`, if given) waits in any queue. */
  readonly isQueued: (type: 'ConvergeModules' | 'ModuleRun', module?: string) => boolean;
  /** Drops the queued tasks of a converge in progress, except the task `keep`. */
  readonly removeConvergeTasks: (keep: string) => void;
  /** KADDON_MODULE_FAILURE_POLICY=isolate: queues a ModuleRun of `module` after `delayMs`, in its own lane. */
  readonly retryLater: (module: string, delayMs: number) => void;
  /** Appends tasks to their queues: what a ModuleRun in the pool leads to. */
  readonly addLast: (...tasks: readonly AnyTask[]) => void;
}

/** How long the first `/readyz` 200 waits for the delivered objects' watches to list. */
const HEALTH_LISTED_WAIT_MS = 30_000;

/**
 * Before the first convergence is reported, the watches of delivered objects have listed, so that a
 * change made once `/readyz` answers 200 reaches drift and health as an event (docs/drift.md). A
 * watch that cannot list (its kind denied, say) holds readiness for HEALTH_LISTED_WAIT_MS at most.
 */
async function healthWatchesListed(ctx: OperatorContext): Promise<void> {
  const health = ctx.health;
  if (health === undefined) return;
  const listed = await settlesWithin(systemClock, health.settled(), HEALTH_LISTED_WAIT_MS);
  if (!listed)
    ctx.logger.warn('ready before every delivered object is watched: a watch has not listed yet', {
      waitedMs: HEALTH_LISTED_WAIT_MS,
    });
}

/**
 * The pool ModuleRuns overlap in (docs/lifecycle.md "Parallel module runs"): only with the isolate
 * policy, since `block` holds every module behind a failed one, and only for more than one run.
 */
function parallelRuns(ctx: OperatorContext): ModuleRunPool | undefined {
  const pool = ctx.moduleRuns;
  return ctx.failurePolicy === 'isolate' && pool !== undefined && pool.limit > 1 ? pool : undefined;
}

/**
 * Waits for the module runs and deliveries still going (of `module`, or all): a task that reads or
 * changes what they use sees them done, as in a main queue that runs one task at a time.
 */
async function settleRuns(ctx: OperatorContext, module?: string): Promise<void> {
  await ctx.moduleRuns?.settle(module === undefined ? undefined : [module]);
  await ctx.deliveries?.settle(module);
}

/**
 * A ModuleRun left running in the pool: a failure is isolated as a run's in the queue would be,
 * and the modules whose slices it changed are queued.
 */
async function runInPool(
  ctx: OperatorContext,
  events: HandlerEvents,
  module: string,
  activation: string,
): Promise<void> {
  let changed: string[];
  try {
    changed = await runModule(ctx, module, activation, (other) => events.isQueued('ModuleRun', other));
  } catch (error: unknown) {
    isolateFailure(ctx, events, module, error);
    return;
  }
  const now = events.now();
  events.addLast(...changed.map((other) => moduleRunTask(other, `slice changed by ${module}`, now)));
}

/**
 * The first module this one requires (module.yaml, docs/modules.md) that is not enabled, delivered and
 * Ready, said as the Module's status says it; undefined when all are.
 */
function unmetRequirement(ctx: OperatorContext, module: string): string | undefined {
  const definition = ctx.tree.modules.find((candidate) => candidate.name === module);
  for (const required of definition?.requires ?? []) {
    if (!ctx.state.modules.isEnabled(required)) return `module '${required}', which is disabled,`;
    if (ctx.status !== undefined && !ctx.status.isReady(required)) return `module '${required}'`;
  }
  return undefined;
}

/**
 * KADDON_MODULE_FAILURE_POLICY=isolate (docs/lifecycle.md "Failure isolation"): the failed run leaves
 * the main queue, so the modules behind it go on, and the module is run again after the queue's
 * backoff (5, 10, 20, 30 s) at the queue's tail, until a run succeeds or another change runs it.
 */
function isolateFailure(ctx: OperatorContext, events: HandlerEvents, module: string, error: unknown): void {
  const failures = ctx.state.modules.countIsolatedFailure(module);
  const delayMs = backoffDelayMs(failures, TASK_RETRY_BACKOFF);
  ctx.logger.error(`module ${module} failed; retried in ${delayMs / 1000} s while the others go on`, {
    module,
    failures,
    error: errorMessage(error),
  });
  events.retryLater(module, delayMs);
}

/**
 * One handler per task type (docs/architecture.md "House style" registry). Errors become `fail` results: the
 * queue keeps the task at its head and retries it with backoff (docs/lifecycle.md "Tasks and queues").
 */
export function createOperatorHandlers(ctx: OperatorContext, events: HandlerEvents): TaskHandlers {
  return {
    ConvergeModules: guarded(ctx, async (task: Task<'ConvergeModules'>) => {
      const { event, phase, startedAt } = task.payload;
      // docs/lifecycle.md "Overlapping delivery": a converge starts and ends with every run and delivery done.
      await settleRuns(ctx);
      if (phase === 'AfterAll') {
        // A delivery left running that failed is run again, awaited, before the converge can end.
        // An isolated module is retried in its own lane, not here (docs/lifecycle.md "Failure isolation").
        const failed = ctx.state.modules.enabled.filter((module) => {
          const record = ctx.state.modules.get(module);
          return record?.deliveryFailed === true && record.isolatedFailures === 0;
        });
        if (failed.length > 0) {
          const now = events.now();
          return success({
            headTasks: [
              ...failed.map((module) => moduleRunTask(module, event, now)),
              createTask(
                'ConvergeModules',
                { queue: MAIN_QUEUE, payload: { event, phase: 'AfterAll', startedAt } },
                now,
              ),
            ],
          });
        }
        await finishConverge(ctx, event, startedAt ?? performance.now());
        if (!ctx.state.converged) await healthWatchesListed(ctx);
        ctx.state.converged = true;
        events.onConverged();
        return success();
      }
      // A new converge supersedes the rest of any converge still queued (docs/lifecycle.md "Tasks and
      // queues").
      events.removeConvergeTasks(task.id);
      return startConverge(ctx, event, events.now());
    }),
    ModuleRun: guarded(ctx, async (task: Task<'ModuleRun'>, { signal }) => {
      const module = task.metadata.module;
      if (module === undefined || !ctx.state.modules.isEnabled(module)) return success();
      const unmet = unmetRequirement(ctx, module);
      if (unmet !== undefined) {
        // Run again when the module it waits for turns Ready (Operator, onReady).
        ctx.state.modules.waitForRequirement(module, unmet);
        ctx.logger.info(`module ${module} waits for ${unmet} to be Ready`, { module });
        return success();
      }
      // The converge's event (OperatorStartup, ReloadAllModules…) is the activation label.
      const activation = task.payload.isReloadAll ? (task.metadata.event ?? 'ModuleRun') : 'ModuleRun';
      const pool = parallelRuns(ctx);
      if (pool !== undefined) {
        // The queue goes on once the run is in the pool; a full pool holds it here.
        await pool.room();
        const after = runsToAwait(ctx.tree, module, (other) => pool.pending(other));
        // A run that has not begun when the operator stops never begins.
        pool.start(
          module,
          () => (signal.aborted ? Promise.resolve() : runInPool(ctx, events, module, activation)),
          after,
        );
        return success();
      }
      let changed: string[];
      try {
        changed = await runModule(ctx, module, activation, (other) => events.isQueued('ModuleRun', other));
      } catch (error: unknown) {
        if (ctx.failurePolicy !== 'isolate') throw error;
        isolateFailure(ctx, events, module, error);
        return success();
      }
      // docs/architecture.md cross-module composition: a module whose slice this run changed runs too.
      const now = events.now();
      return success({
        tailTasks: changed.map((other) => moduleRunTask(other, `slice changed by ${module}`, now)),
      });
    }),
    ModuleDelete: guarded(ctx, async (task: Task<'ModuleDelete'>) => {
      const module = task.metadata.module;
      await settleRuns(ctx, module);
      if (module !== undefined && !ctx.state.modules.isEnabled(module))
        await deleteDisabledModule(ctx, module, task.metadata.event ?? 'ModuleDelete');
      return success();
    }),
    ModulePurge: guarded(ctx, async (task: Task<'ModulePurge'>) => {
      await settleRuns(ctx, task.payload.release);
      await purgeRelease(ctx, task.payload.release);
      return success();
    }),
    SwitchModulesTree: guarded(ctx, async () => {
      await settleRuns(ctx);
      return switchModulesTree(ctx, events.now());
    }),
    LoadGlobalHooks: guarded(ctx, async (task: Task<'LoadGlobalHooks'>) => {
      await ctx.hooks.loadGlobal(task.payload.globalHooksDir);
      const now = events.now();
      return success({
        headTasks: [
          ...onStartupTasks(ctx, now),
          createTask('GlobalHookEnableKubernetesBindings', { queue: MAIN_QUEUE, payload: {} }, now),
        ],
      });
    }),
    GlobalHookEnableKubernetesBindings: guarded(ctx, async () => {
      const hooks = ctx.hooks.globalHooks();
      let tasks: HookRunTask[];
      try {
        tasks = await ctx.bindings.startGlobal(hooks);
      } catch (error: unknown) {
        // Retried from scratch: what did start is stopped (a kind not served yet, a bad selector).
        await ctx.bindings.stopGlobal();
        throw error;
      }
      ctx.bindings.enableGlobalSchedules(hooks);
      // docs/lifecycle.md step 2: waited Synchronization runs come before the converge queued behind.
      return success({
        headTasks: tasks.filter((hookTask) => hookTask.queue === MAIN_QUEUE),
        tailTasks: tasks.filter((hookTask) => hookTask.queue !== MAIN_QUEUE),
      });
    }),
    ApplyKubeConfigValues: guarded(ctx, async () => {
      // Values change between runs, never in the middle of one.
      await settleRuns(ctx);
      const changes = await ctx.store.reloadConfig(ctx.state.pendingConfig);
      return success({ headTasks: followUps(ctx, changes, events.now()) });
    }),
    GlobalHookRun: guarded(ctx, (task: Task<'GlobalHookRun'>) => runHookTask(ctx, events, task)),
    ModuleHookRun: guarded(ctx, (task: Task<'ModuleHookRun'>) => runHookTask(ctx, events, task)),
  } satisfies TaskHandlers;
}

/** docs/lifecycle.md step 16: global or enabled flags changed → reload all; module sections → run those. */
function followUps(ctx: OperatorContext, changes: ValuesChanges, now: number): AnyTask[] {
  if (changes.global || changes.enabled.length > 0)
    return [
      createTask('ConvergeModules', { queue: MAIN_QUEUE, payload: { event: 'ReloadAllModules' } }, now),
    ];
  // In module order, as a converge would run them.
  return ctx.state.modules.enabled
    .filter((module) => changes.modules.includes(module))
    .map((module) => moduleRunTask(module, `config ${moduleValuesKey(module)}`, now));
}

/**
 * A kubernetes or schedule run of a hook (docs/lifecycle.md steps 9–12): its binding contexts (a schedule
 * task's built now, with the snapshots of now), patches applied; a global values change reloads
 * all modules, a module's runs the module, once the first converge is done.
 */
async function runHookTask(
  ctx: OperatorContext,
  events: HandlerEvents,
  task: HookRunTask,
): Promise<TaskResult> {
  const module = task.metadata.module;
  const id = task.metadata.hook;
  const hook = id === undefined ? undefined : ctx.hooks.byId(id);
  if (hook === undefined || (module !== undefined && !ctx.state.modules.isEnabled(module))) return success();
  // docs/operations.md "Hands off": a module in maintenance with its hooks held runs none of them.
  if (module !== undefined && ctx.controls?.hooksHeld(module) === true) return success();
  // A module's hook sees its release delivered; a global hook, every release asked for before it.
  await settleRuns(ctx, module);
  let contexts: readonly BindingContext[] = task.payload.bindingContexts;
  const { scheduleKey } = task.payload;
  if (scheduleKey !== undefined) {
    const run = ctx.bindings.takeSchedule(scheduleKey);
    // Ticks before the first converge are dropped (docs/hooks.md "schedule").
    if (run === undefined || !ctx.state.converged) return success();
    contexts = [scheduleContext(run.config, run.binding, ctx.bindings.snapshots(module, hook))];
  }
  const bindings = (task.metadata.bindings ?? []).join(',');
  const label =
    bindings === ''
      ? (task.metadata.bindingType ?? 'hook')
      : `${task.metadata.bindingType ?? 'hook'} ${bindings}`;
  const metricLabels = {
    activation: task.metadata.bindingType ?? 'hook',
    queue: task.queue,
    // A lifecycle task (onStartup) names its binding by its type, as addon-operator labels it.
    binding: bindings === '' ? (task.metadata.bindingType ?? 'hook') : bindings,
    allowFailure: task.metadata.allowFailure,
    task: task.id,
  };
  let changes: ValuesChanges;
  if (module !== undefined) ctx.resources?.pause(module);
  try {
    changes = await runHookWithContexts(hook, contexts, label, lifecycleRun(ctx, module, metricLabels));
  } finally {
    // What a module's own hook deleted is not healed (docs/lifecycle.md "Helm delivery").
    if (module !== undefined) {
      await ctx.resources?.afterModuleHook(module);
      ctx.resources?.resume(module);
    }
  }
  // Before the first converge (global Synchronization, docs/lifecycle.md step 2) changes trigger nothing.
  if (!ctx.state.converged) return success();
  const now = events.now();
  if (changes.global || changes.enabled.length > 0) {
    if (events.isQueued('ConvergeModules')) return success();
    return success({
      tailTasks: [
        createTask('ConvergeModules', { queue: MAIN_QUEUE, payload: { event: 'GlobalValuesChanged' } }, now),
      ],
    });
  }
  const runs = changes.modules
    .filter((changed) => ctx.state.modules.isEnabled(changed) && !events.isQueued('ModuleRun', changed))
    .map((changed) => moduleRunTask(changed, `values changed by ${hook.descriptor.name}`, now));
  return success({ tailTasks: runs });
}

function guarded<T extends TaskType>(
  ctx: OperatorContext,
  handle: (task: Task<T>, context: TaskContext) => Promise<TaskResult>,
): TaskHandler<T> {
  return async (task, context) => {
    try {
      return await handle(task, context);
    } catch (error: unknown) {
      ctx.logger.error(`task ${task.type} failed: ${errorMessage(error)}`, {
        module: task.metadata.module,
        hook: task.metadata.hook,
        binding: task.metadata.bindings?.join(','),
        queue: task.queue,
        task: task.id,
        attempts: task.attempts,
      });
      return fail(error);
    }
  };
}
