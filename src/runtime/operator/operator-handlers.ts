import { moduleValuesKey } from '../../core/module-name.ts';
import { MAIN_QUEUE } from '../queue/task-queue-set.ts';
import { createTask, type AnyTask, type Task, type TaskType } from '../queue/task.ts';
import type { TaskHandler, TaskHandlers } from '../queue/task-handler.ts';
import { fail, success, type TaskResult } from '../queue/task-result.ts';
import type { ValuesChanges } from '../values-store.ts';
import { convergeModules } from './converge-modules.ts';
import type { OperatorContext } from './operator-context.ts';
import { runModule } from './run-module.ts';

export interface HandlerEvents {
  /** Called after every ConvergeModules that completed; the first one makes /readyz ready. */
  readonly onConverged: () => void;
  readonly now: () => number;
}

/**
 * One handler per task type (STYLE.md registry). Errors become `fail` results: the queue keeps
 * the task at its head and retries it with backoff (seed 000 "Task queues").
 */
export function createOperatorHandlers(ctx: OperatorContext, events: HandlerEvents): TaskHandlers {
  const notYet =
    <T extends TaskType>(): TaskHandler<T> =>
    (task) => {
      ctx.logger.info('task type not handled yet; dropped', { task: task.type });
      return Promise.resolve(success());
    };
  return {
    ConvergeModules: guarded(ctx, async () => {
      await convergeModules(ctx);
      ctx.state.converged = true;
      events.onConverged();
      return success();
    }),
    ModuleRun: guarded(ctx, async (task: Task<'ModuleRun'>) => {
      const module = task.metadata.module;
      if (module !== undefined && ctx.state.enabledModules.includes(module)) await runModule(ctx, module);
      return success();
    }),
    ApplyKubeConfigValues: guarded(ctx, async () => {
      const changes = await ctx.store.reloadConfig();
      return success({ headTasks: followUps(ctx, changes, events.now()) });
    }),
    GlobalHookRun: notYet(),
    ModuleHookRun: notYet(),
    GlobalHookEnableScheduleBindings: notYet(),
    GlobalHookEnableKubernetesBindings: notYet(),
    GlobalHookWaitKubernetesSynchronization: notYet(),
    ModuleEnsureCRDs: notYet(),
    ParallelModuleRun: notYet(),
    ModuleDelete: notYet(),
    ModulePurge: notYet(),
    DiscoverHelmReleases: notYet(),
  } satisfies TaskHandlers;
}

/** Seed 001 step 16: global or enabled flags changed → reload all; module sections → run those. */
export function followUps(ctx: OperatorContext, changes: ValuesChanges, now: number): AnyTask[] {
  if (changes.global || changes.enabled.length > 0)
    return [
      createTask('ConvergeModules', { queue: MAIN_QUEUE, payload: { event: 'ReloadAllModules' } }, now),
    ];
  return changes.modules
    .filter((module) => ctx.state.enabledModules.includes(module))
    .map((module) =>
      createTask(
        'ModuleRun',
        {
          queue: MAIN_QUEUE,
          payload: { doModuleStartup: false, isReloadAll: false },
          metadata: { module, event: `config ${moduleValuesKey(module)}` },
        },
        now,
      ),
    );
}

function guarded<T extends TaskType>(
  ctx: OperatorContext,
  handle: (task: Task<T>) => Promise<TaskResult>,
): TaskHandler<T> {
  return async (task) => {
    try {
      return await handle(task);
    } catch (error: unknown) {
      ctx.logger.error(
        `task ${task.type} failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          module: task.metadata.module,
          attempts: task.attempts,
        },
      );
      return fail(error);
    }
  };
}
