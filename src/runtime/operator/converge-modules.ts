import { purgeReleases } from '../../delivery/helm/delete-module.ts';
import { discoverModules } from './discover-modules.ts';
import type { OperatorContext } from './operator-context.ts';
import { runGlobalHooks } from './run-hooks.ts';
import { deleteDisabledModule, runModule } from './run-module.ts';

/**
 * ConvergeModules, "reload all modules" (seed 001 steps 3–8): beforeAll, discovery, a module run
 * for each enabled module in order, deletes of the disabled ones, purge of releases that have no
 * module, afterAll. A failure throws; the queue retries the task at the head of the main queue.
 */
export async function convergeModules(ctx: OperatorContext, activation: string): Promise<void> {
  const startedAt = performance.now();
  await runGlobalHooks(ctx, 'beforeAll');
  const discovery = await discoverModules(ctx).catch((error: unknown) => {
    ctx.metrics.moduleDiscoverError();
    throw error;
  });
  ctx.state.enabledModules = discovery.enabled;
  for (const module of ctx.state.preparedModules)
    if (!discovery.enabled.includes(module)) ctx.state.preparedModules.delete(module);
  for (const module of discovery.enabled) await runModule(ctx, module, activation);
  for (const module of discovery.disabled) await deleteDisabledModule(ctx, module, activation);
  await purgeOrphanReleases(ctx);
  await runGlobalHooks(ctx, 'afterAll');
  ctx.metrics.convergence(activation, (performance.now() - startedAt) / 1000);
}

/** Releases in the namespace with no module directory (or, at start, of a disabled module). */
async function purgeOrphanReleases(ctx: OperatorContext): Promise<void> {
  const keep = ctx.state.enabledModules;
  const result = await purgeReleases(ctx.namespace, keep, ctx.helmIgnoreRelease, ctx.helm);
  for (const release of result.purged) ctx.logger.info('release purged', { release });
  for (const error of result.failed) ctx.logger.error(error.message);
}
