import type { OrderedBindingType } from '../../hooks/hook-config.ts';
import { GLOBAL_OWNER, moduleOwner } from '../../core/values.ts';
import { runLifecycleHook, type LifecycleRun } from '../lifecycle-hooks.ts';
import type { ValuesChanges } from '../values-store.ts';
import type { OperatorContext } from './operator-context.ts';

/** Runs the global hooks of a lifecycle binding in ORDER (seed 001 steps 1 and 3, and afterAll). */
export async function runGlobalHooks(
  ctx: OperatorContext,
  binding: OrderedBindingType,
): Promise<ValuesChanges[]> {
  const run = lifecycleRun(ctx, undefined);
  const changes: ValuesChanges[] = [];
  for (const hook of ctx.hooks.global(binding)) changes.push(await runLifecycleHook(hook, binding, run));
  return changes;
}

/** Runs a module's hooks of a lifecycle binding in ORDER (seed 001 steps 5, 6, 8). */
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

export function lifecycleRun(ctx: OperatorContext, module: string | undefined): LifecycleRun {
  return {
    store: ctx.store,
    owner: module === undefined ? GLOBAL_OWNER : moduleOwner(module),
    ...(module === undefined ? {} : { enabledModules: ctx.state.enabledModules }),
    snapshots: (hook) => ctx.bindings.snapshots(module, hook),
    runDeps: ctx.runDeps,
  };
}
