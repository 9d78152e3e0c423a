import { errorMessage } from '../../core/errors.ts';
import { orphanReleases } from '../../delivery/helm/delete-module.ts';
import { MAIN_QUEUE } from '../queue/task-queue-set.ts';
import { createTask, type ConvergeEvent } from '../queue/task.ts';
import { fail, success, type TaskResult } from '../queue/task-result.ts';
import { discoverModules, type ModuleDiscovery } from './discover-modules.ts';
import type { OperatorContext } from './operator-context.ts';
import { dropRunsOfRemovedHooks, runGlobalHooks } from './run-hooks.ts';
import { heldPrunes } from './prune-guard.ts';
import { maintenanceHoldNote } from './module-controls.ts';

/**
 * ConvergeModules in StandBy, "reload all modules" (docs/lifecycle.md steps 3–8 and "Tasks and
 * queues"): beforeAll, discovery, then the tasks that do the rest, in the order of docs/lifecycle.md, to be
 * put at the head of the main queue: a ModuleRun per enabled module, a ModuleDelete per module that is now
 * disabled, a ModulePurge per release without a module, and the AfterAll phase. Each is its own task, so a
 * failing module is retried alone and what waits behind it is visible in `queue list`. A failing beforeAll
 * hook throws (retried with backoff); a failing discovery is retried in 5 s.
 */
export async function startConverge(
  ctx: OperatorContext,
  event: ConvergeEvent,
  now: number,
): Promise<TaskResult> {
  const startedAt = performance.now();
  await runGlobalHooks(ctx, 'beforeAll');
  let discovery: ModuleDiscovery;
  try {
    discovery = await discoverModules(ctx);
  } catch (error: unknown) {
    // A failing `enabled` script is retried every 5 s (docs/lifecycle.md step 4), not with the growing
    // backoff.
    ctx.metrics.moduleDiscoverError();
    ctx.logger.error(
      `module discovery failed, retried in ${String(DISCOVERY_RETRY_MS / 1000)} s: ${errorMessage(error)}`,
    );
    return fail(error, DISCOVERY_RETRY_MS);
  }
  const known = new Set(ctx.tree.modules.map((module) => module.name));
  const previous = ctx.state.modules.enabled;
  const releases = await ctx.helm.list(ctx.namespace);
  ctx.state.modules.discovered(discovery.enabled, releases);
  for (const module of discovery.enabled) ctx.controls?.releaseUninstall(module);
  // docs/lifecycle.md step 6: modules enabled before; at start, disabled modules that still have a release.
  const heldBefore = [
    ...(ctx.state.pruneHold?.releases ?? []),
    ...(ctx.state.pruneConfirmed?.releases ?? []),
  ];
  const candidates = ctx.tree.modules
    .map((module) => module.name)
    .filter((name) => !discovery.enabled.includes(name))
    .filter(
      (name) =>
        previous.includes(name) ||
        heldBefore.includes(name) ||
        ctx.controls?.isUninstallHeld(name) === true ||
        (!ctx.state.converged && releases.includes(name)),
    );
  // docs/lifecycle.md step 7: releases whose module directory is gone (HELM_IGNORE_RELEASE kept).
  const purges = orphanReleases(releases, known, ctx.helmIgnoreRelease);
  // docs/lifecycle.md "Missing inputs and mass deletion": too many uninstalls at once wait for a confirmation.
  const delivered = releases.filter((release) => release !== ctx.helmIgnoreRelease);
  const held = heldPrunes(
    ctx,
    [...candidates.filter((name) => releases.includes(name)), ...purges],
    delivered,
  );
  const toDelete = candidates.filter((name) => !held.includes(name));
  // docs/operations.md "Hands off": a release whose Module is in maintenance is not purged either.
  const inMaintenance = (release: string): boolean => ctx.controls?.isInMaintenance(release) === true;
  const toPurge = purges.filter((release) => !held.includes(release) && !inMaintenance(release));
  for (const release of purges.filter(inMaintenance)) {
    if (ctx.controls?.isUninstallHeld(release) !== true)
      ctx.status?.uninstallHeld(release, maintenanceHoldNote('its module is gone from the tree'));
    ctx.controls?.holdUninstall(release);
  }
  const kept = [...held, ...purges.filter(inMaintenance)];
  // A release held from purging keeps its Module object until it is uninstalled.
  ctx.status?.setModules([...known, ...kept.filter((name) => !known.has(name))], discovery.enabled);
  const activation = { event };
  const headTasks = [
    ...discovery.enabled.map((module) =>
      createTask(
        'ModuleRun',
        {
          queue: MAIN_QUEUE,
          payload: { doModuleStartup: ctx.state.modules.get(module)?.started !== true, isReloadAll: true },
          metadata: { module, ...activation },
        },
        now,
      ),
    ),
    ...toDelete.map((module) =>
      createTask(
        'ModuleDelete',
        { queue: MAIN_QUEUE, payload: {}, metadata: { module, ...activation } },
        now,
      ),
    ),
    ...toPurge.map((release) =>
      createTask('ModulePurge', { queue: MAIN_QUEUE, payload: { release }, metadata: activation }, now),
    ),
    createTask(
      'ConvergeModules',
      { queue: MAIN_QUEUE, payload: { event, phase: 'AfterAll', startedAt } },
      now,
    ),
  ];
  return success({ headTasks });
}

/** How often a failed module discovery is tried again. */
const DISCOVERY_RETRY_MS = 5_000;

/** ConvergeModules in AfterAll (docs/lifecycle.md step 8): afterAll hooks, then the converge is done. */
export async function finishConverge(
  ctx: OperatorContext,
  event: ConvergeEvent,
  startedAt: number,
): Promise<void> {
  await runGlobalHooks(ctx, 'afterAll');
  ctx.metrics.convergence(event, (performance.now() - startedAt) / 1000);
}

/** ModulePurge (docs/lifecycle.md "Helm delivery"): `helm uninstall`; a failure is logged, never retried. */
export async function purgeRelease(ctx: OperatorContext, release: string): Promise<void> {
  await ctx.bindings.stopModule(release);
  forgetModule(ctx, release);
  removeModule(ctx, release, 'purged');
  ctx.controls?.releaseUninstall(release);
  try {
    await ctx.helm.uninstall(release, ctx.namespace, ctx.helmTimeoutSeconds);
    ctx.logger.info('release purged', { release });
  } catch (error: unknown) {
    ctx.logger.error(`release ${release} not purged: ${errorMessage(error)}`, {
      release,
    });
  }
}

/** The module is gone from the operator: its record and its hooks' last runs (docs/lifecycle.md "Module states"). */
export function removeModule(ctx: OperatorContext, module: string, how: 'deleted' | 'purged'): void {
  ctx.state.modules.remove(module, how);
  dropRunsOfRemovedHooks(ctx);
}

/** Drops what the operator remembers of a module's delivery: its release is gone. */
export function forgetModule(ctx: OperatorContext, module: string): void {
  ctx.resources?.forget(module);
  void ctx.health?.forget(module);
  ctx.state.modules.released(module);
}
