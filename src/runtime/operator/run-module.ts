import { errorMessage } from '../../core/errors.ts';
import { MAIN_QUEUE } from '../queue/task-queue-set.ts';
import { createTask, type Task } from '../queue/task.ts';
import path from 'node:path';
import { deleteModule } from '../../delivery/helm/delete-module.ts';
import { forgetModule, removeModule } from './converge-modules.ts';
import type { ValuesChanges } from '../values-store.ts';
import { deliverTree, heldByOthers, type DeliverRun } from './deliver-tree.ts';
import type { OperatorContext } from './operator-context.ts';
import { runHookWithContexts } from '../lifecycle-hooks.ts';
import { lifecycleRun, runModuleHooks } from './run-hooks.ts';
import { maintenanceHoldNote } from './module-controls.ts';

/**
 * A ModuleRun for an event (a config edit, a hook's values, another module's render, absent
 * resources), as opposed to the runs a converge queues: in the main queue, without startup.
 */
export function moduleRunTask(module: string, event: string, now: number): Task<'ModuleRun'> {
  return createTask(
    'ModuleRun',
    {
      queue: MAIN_QUEUE,
      payload: { doModuleStartup: false, isReloadAll: false },
      metadata: { module, event },
    },
    now,
  );
}

/** A module whose afterHelm keeps changing its own values is run at most this often per task. */
const MAX_AFTER_HELM_RERUNS = 3;

/**
 * ModuleRun (docs/lifecycle.md steps 5–8, docs/lifecycle.md "Tasks and queues" ModuleRun phases): onStartup
 * only on start or when newly enabled, beforeHelm, render and deliver, afterHelm; a values change during
 * afterHelm runs the module again.
 */
export async function runModule(
  ctx: OperatorContext,
  module: string,
  activation: string,
  willRun?: (module: string) => boolean,
): Promise<string[]> {
  const startedAt = performance.now();
  // docs/operations.md "Reconcile now": a request seen before this run began is answered by it.
  const answering = ctx.controls?.takeReconcileRequest(module);
  if (ctx.controls?.hooksHeld(module) === true) {
    // docs/operations.md "Hands off": with its hooks held too, nothing of the module runs.
    ctx.status?.deliveryHeld(module);
    if (answering !== undefined) ctx.status?.reconcileHandled(module, answering);
    ctx.logger.info('module run skipped: in maintenance with its hooks held', { module });
    return [];
  }
  // addon-operator pauses the module's resource monitor while its hooks run (docs/lifecycle.md "Helm
  // delivery").
  ctx.resources?.pause(module);
  ctx.state.modules.startRun(module);
  let succeeded = false;
  try {
    const changed = await runModulePhases(ctx, module, {
      module,
      activation,
      ...(willRun ? { willRun } : {}),
    });
    ctx.state.modules.finishRun(module);
    succeeded = true;
    return changed;
  } catch (error: unknown) {
    ctx.state.modules.failRun(module, error);
    ctx.metrics.moduleRunError(module);
    throw error;
  } finally {
    ctx.resources?.resume(module);
    ctx.metrics.moduleRun(module, (performance.now() - startedAt) / 1000);
    if (answering !== undefined) await answerReconcile(ctx, module, answering, succeeded);
  }
}

/**
 * The end of a run that answers a reconcile request (docs/operations.md "Reconcile now"): after a
 * delivery, the drift check runs at once instead of at its next tick; then the Module's status
 * names the request.
 */
async function answerReconcile(
  ctx: OperatorContext,
  module: string,
  token: string,
  succeeded: boolean,
): Promise<void> {
  if (succeeded && ctx.controls?.isInMaintenance(module) !== true) {
    await ctx.deliveries?.settle(module);
    try {
      await ctx.resources?.checkNow(module);
    } catch (error: unknown) {
      ctx.logger.error(
        `module ${module}: the drift check of a reconcile request failed: ${errorMessage(error)}`,
        {
          module,
        },
      );
    }
  }
  ctx.status?.reconcileHandled(module, token);
}

/** The module's phases; returns the other modules whose slices its renders changed. */
async function runModulePhases(ctx: OperatorContext, module: string, run: DeliverRun): Promise<string[]> {
  const changed = new Set<string>();
  // The module's hooks see its release as its last delivery left it.
  await ctx.deliveries?.settle(module);
  const states = ctx.state.modules;
  if (states.get(module)?.crdsApplied !== true) {
    await ensureCrds(ctx, module);
    states.crdsWereApplied(module);
  }
  if (states.get(module)?.started !== true) {
    await runModuleHooks(ctx, module, 'onStartup');
    await synchronizeModule(ctx, module);
    states.startupRan(module);
  }
  for (let attempt = 0; attempt <= MAX_AFTER_HELM_RERUNS; attempt++) {
    await runModuleHooks(ctx, module, 'beforeHelm');
    states.prepared(module);
    const helmStartedAt = performance.now();
    // docs/lifecycle.md "Overlapping delivery": without afterHelm hooks nothing in this run waits
    // for the release, so its delivery is left running unless the last one left running failed.
    const afterHelm = await ctx.hooks.module(module, 'afterHelm');
    const background = afterHelm.length === 0 && states.get(module)?.deliveryFailed !== true;
    if (ctx.controls?.isInMaintenance(module) === true) {
      // docs/operations.md "Hands off": its values are kept; the end of maintenance delivers them.
      ctx.status?.deliveryHeld(module);
      ctx.logger.info('delivery held: the module is in maintenance', { module });
    } else for (const other of await deliverTree(ctx, { ...run, background })) changed.add(other);
    ctx.metrics.moduleHelm(module, run.activation, (performance.now() - helmStartedAt) / 1000);
    const changes = await runModuleHooks(ctx, module, 'afterHelm');
    // What afterHelm deleted is the module's own doing: not healed. Without afterHelm hooks (one
    // ValuesChanges per hook run) nothing was deleted, and the objects are not probed.
    if (changes.length > 0) await ctx.resources?.afterModuleHook(module);
    if (!changedModule(changes, module)) return [...changed];
    ctx.logger.info('values changed in afterHelm: running the module again', { module });
  }
  return [...changed];
}

/**
 * ModuleEnsureCRDs (docs/lifecycle.md "Helm delivery") on a module's first run and after a tree switch: its
 * CRDs exist before its hooks run.
 */
async function ensureCrds(ctx: OperatorContext, module: string): Promise<void> {
  const definition = ctx.tree.modules.find((candidate) => candidate.name === module);
  if (definition === undefined) return;
  const applied = await ctx.applyCrds(path.join(definition.dir, 'crds'));
  if (applied.length > 0) ctx.logger.info('CRDs applied', { module, crds: applied.join(',') });
}

/**
 * ModuleDelete (docs/lifecycle.md step 6, docs/lifecycle.md "Helm delivery"): beforeDeleteHelm hooks when
 * there is a release, `helm uninstall`, afterDeleteHelm hooks, the values patches its hooks left dropped
 * (ResetState), then the module's bindings stop (the hooks still get their snapshots). A failure throws and
 * counts in module_delete_errors_total: the task is retried.
 */
export async function deleteDisabledModule(
  ctx: OperatorContext,
  module: string,
  activation: string,
): Promise<void> {
  if (ctx.controls?.isInMaintenance(module) === true) {
    // docs/operations.md "Hands off": the uninstall waits for the end of maintenance.
    if (!ctx.controls.isUninstallHeld(module))
      ctx.status?.uninstallHeld(module, maintenanceHoldNote('the module is disabled'));
    ctx.controls.holdUninstall(module);
    ctx.logger.info('uninstall held: the module is in maintenance', { module });
    return;
  }
  try {
    if ((await ctx.helm.status(module, ctx.namespace)) !== undefined)
      await runModuleHooks(ctx, module, 'beforeDeleteHelm');
    const startedAt = performance.now();
    const handedOver = await heldByOthers(ctx, module);
    // What the uninstall deletes is not drift to put back, nor missing objects to heal.
    ctx.resources?.pause(module);
    try {
      await deleteModule(module, ctx.namespace, ctx.helm, ctx.helmTimeoutSeconds, handedOver);
    } finally {
      ctx.resources?.resume(module);
    }
    ctx.metrics.helmOperation(
      { module, activation, operation: 'uninstall' },
      (performance.now() - startedAt) / 1000,
    );
    forgetModule(ctx, module);
    ctx.controls?.releaseUninstall(module);
    await runModuleHooks(ctx, module, 'afterDeleteHelm');
    await ctx.store.resetModule(module);
  } catch (error: unknown) {
    ctx.metrics.moduleDeleteError(module);
    ctx.state.modules.failDelete(module, errorMessage(error));
    throw error;
  }
  await ctx.bindings.stopModule(module);
  removeModule(ctx, module, 'deleted');
  ctx.logger.info('module deleted', { module });
}

/**
 * docs/lifecycle.md step 5: the module's kubernetes bindings start, and their Synchronization runs happen
 * here, before beforeHelm; its schedules start too. A failure throws and the ModuleRun is retried.
 */
async function synchronizeModule(ctx: OperatorContext, module: string): Promise<void> {
  const tasks = await ctx.bindings.startModule(module, await ctx.hooks.moduleHooks(module));
  const run = lifecycleRun(ctx, module);
  for (const task of tasks) {
    const hook = task.metadata.hook === undefined ? undefined : ctx.hooks.byId(task.metadata.hook);
    if (hook === undefined) continue;
    try {
      await runHookWithContexts(hook, task.payload.bindingContexts, 'Synchronization', run);
    } catch (error: unknown) {
      if (task.metadata.allowFailure !== true) throw error;
      ctx.logger.error(errorMessage(error), { module });
    }
  }
}

function changedModule(changes: readonly ValuesChanges[], module: string): boolean {
  return changes.some((change) => change.modules.includes(module));
}
