import { isDeepStrictEqual } from 'node:util';
import { asError, errorMessage } from '../../core/errors.ts';
import type { LoadedHook } from '../lifecycle-hooks.ts';
import { MAIN_QUEUE } from '../queue/task-queue-set.ts';
import { createTask, type HookRunTask } from '../queue/task.ts';
import { success, type TaskResult } from '../queue/task-result.ts';
import type { TreeHooks } from './hook-registry.ts';
import type { OperatorContext } from './operator-context.ts';
import { treeValues } from './prepare-modules-tree.ts';
import { dropRunsOfRemovedHooks } from './run-hooks.ts';

/**
 * SwitchModulesTree (GitOps): between two tasks of the main queue the operator moves to the
 * newest prepared tree. The values store takes the new values files, modules and schemas first
 * (a refusal drops the revision and changes nothing); then the tree and every hook are replaced at
 * once; hooks whose bindings changed have their watches and schedules restarted, with their
 * Synchronization runs queued; last, all modules are reloaded: new modules run, disabled ones are
 * deleted, releases of removed ones purged (ConvergeModules).
 */
export async function switchModulesTree(ctx: OperatorContext, now: number): Promise<TaskResult> {
  const prepared = ctx.modulesSource?.next();
  if (prepared === undefined) return success();
  try {
    await ctx.store.replaceModules(treeValues(prepared));
  } catch (error: unknown) {
    // The config values changed since the revision was checked: refused, never retried forever
    // at the head of the main queue; the tree in use stays, a later commit is picked up.
    ctx.modulesSource?.refuse(prepared.revision, asError(error));
    ctx.logger.error(`revision ${prepared.revision} refused: ${errorMessage(error)}`, {
      revision: prepared.revision,
    });
    return success();
  }
  ctx.tree = prepared.tree;
  ctx.sharedComponentRoots = prepared.sharedComponentRoots;
  ctx.hooks.replace(prepared.tree, prepared.hooks);
  dropRunsOfRemovedHooks(ctx);
  // The new revision's crds/ are applied on each module's next run.
  ctx.state.modules.treeSwitched();
  for (const warning of prepared.warnings) ctx.logger.info(`warning: ${warning}`);
  // A restart that fails throws: the retry compares with the bindings that run, so it resumes.
  const synchronizations = await restartChangedBindings(ctx, prepared.hooks);
  ctx.modulesSource?.markInUse(prepared.revision);
  ctx.logger.info('modules tree switched', {
    revision: prepared.revision,
    modules: prepared.tree.modules.map((module) => module.name).join(','),
  });
  const converge = createTask(
    'ConvergeModules',
    { queue: MAIN_QUEUE, payload: { event: 'ReloadAllModules' } },
    now,
  );
  // A newer tree that came while this task ran was not queued (one switch task at a time).
  const again =
    ctx.modulesSource?.next() === undefined
      ? []
      : [createTask('SwitchModulesTree', { queue: MAIN_QUEUE, payload: {} }, now)];
  return success({
    headTasks: [...synchronizations.filter((task) => task.queue === MAIN_QUEUE), converge],
    tailTasks: [...synchronizations.filter((task) => task.queue !== MAIN_QUEUE), ...again],
  });
}

/**
 * Restarts the kubernetes and schedule bindings of global hooks and of each started module when
 * its hooks or their configurations differ from the ones bound; a removed module's stop. Returns
 * the Synchronization tasks: global ones as startGlobal queues them, a module's in the main queue,
 * ahead of the converge, as its first run would have them (docs/lifecycle.md step 5).
 */
async function restartChangedBindings(ctx: OperatorContext, hooks: TreeHooks): Promise<HookRunTask[]> {
  const tasks: HookRunTask[] = [];
  if (!isSameHooks(ctx.bindings.bound(undefined), hooks.global)) {
    await ctx.bindings.stopGlobal();
    tasks.push(...(await ctx.bindings.startGlobal(hooks.global)));
    ctx.bindings.enableGlobalSchedules(hooks.global);
  }
  for (const module of ctx.state.modules.started()) {
    const moduleHooks = hooks.modules.get(module);
    if (moduleHooks === undefined) await ctx.bindings.stopModule(module);
    else if (!isSameHooks(ctx.bindings.bound(module), moduleHooks)) {
      const synchronizations = await ctx.bindings.startModule(module, moduleHooks);
      tasks.push(...synchronizations.map((task) => ({ ...task, queue: MAIN_QUEUE })));
    }
  }
  return tasks;
}

/** Same hook names with the same configurations; where a hook file lives does not matter. */
function isSameHooks(bound: readonly LoadedHook[], next: readonly LoadedHook[]): boolean {
  const key = (hooks: readonly LoadedHook[]): [string, unknown][] =>
    hooks
      .map((hook): [string, unknown] => [hook.descriptor.name, hook.config])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return isDeepStrictEqual(key(bound), key(next));
}
